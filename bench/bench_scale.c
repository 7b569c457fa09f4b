/* bench_scale.c -- a big trace read in bounded memory: `mprof stats`'s,
 * `mprof report`'s and `mprof view --png`'s peak RSS and speed (a report
 * of a trace this big is made in one pass, and so is the picture of one
 * whose model would pass MPROF_VIEW_BUDGET_MIB), and the sidecar index's
 * build speed per core,
 * each against the model's load, or its load and analysis, of the same
 * trace (or a fixed budget).
 *
 *   mprof_bench_scale --mprof MPROF --trace TRACE [--trace TRACE ...]
 *                     [--once TRACE ...] [--rounds N] [--load-events N]
 *
 * Each trace was written by test/trace_gen (bench/run.sh makes a 10 M,
 * a 100 M and a 1 B-event one).  The model is loaded only from traces of
 * at most --load-events events (default 2e7: a model takes ~50 bytes an
 * event); bigger traces are held against the rate of the last one loaded.
 * A trace named with --once gives only its report and view_png lines, of
 * one round each (a 1 B-event trace takes a minute a command).  Each
 * trace's sidecar index is built first, on every core (the time a note),
 * and left beside it: `mprof view --png` would write it in the first
 * round, and stats read it in the next.  Traces are measured in the
 * order given.  Lines:
 *
 *   stats_NAME  peak_rss_bytes         budget_512MiB  ratio <= 1
 *   stats_NAME  events_per_s           model_load     (the census's pass)
 *   report_NAME peak_rss_bytes         budget_512MiB  (mprof report --stream)
 *   report_NAME events_per_s           model_report   (load and analysis)
 *   index_NAME  events_per_s_per_core  model_load     (one OS thread)
 *   index_NAME  events_per_s_nN        Nx_one_thread  (every core)
 *   view_png_NAME peak_rss_bytes       budget_1GiB    (mprof view --png of
 *                                                      the whole trace)
 *   view_png_NAME events_per_s         model_load
 * Each command's events/s is of wall-clock time; a note on stderr gives
 * its CPU time too, which a machine shared with other work inflates far
 * less.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "mprof/index.h"
#include "mprof/model.h"

#define BUDGET_BYTES (512.0 * 1024 * 1024)
#define VIEW_BUDGET_BYTES (1024.0 * 1024 * 1024)

#define MAX_TRACES 8

typedef struct options_s {
  const char *mprof;
  const char *traces[MAX_TRACES];
  int once[MAX_TRACES]; /* measured once, for report and view_png */
  int trace_count;
  int rounds;
  uint64_t load_events;
} options_t;

static void usage(const char *program) {
  fprintf(stderr,
          "usage: %s --mprof MPROF --trace TRACE... [--once TRACE...] "
          "[--rounds N] [--load-events N]\n",
          program);
  exit(2);
}

static void parse(int argc, char **argv, options_t *o) {
  *o = (options_t){NULL, {NULL}, {0}, 0, 3, 20000000};
  for (int i = 1; i + 1 < argc; i += 2) {
    int once = !strcmp(argv[i], "--once");
    if (!strcmp(argv[i], "--mprof")) {
      o->mprof = argv[i + 1];
    } else if ((once || !strcmp(argv[i], "--trace")) &&
               o->trace_count < MAX_TRACES) {
      o->once[o->trace_count] = once;
      o->traces[o->trace_count++] = argv[i + 1];
    } else if (!strcmp(argv[i], "--rounds")) {
      o->rounds = atoi(argv[i + 1]);
    } else if (!strcmp(argv[i], "--load-events")) {
      o->load_events = strtoull(argv[i + 1], NULL, 10);
    } else {
      usage(argv[0]);
    }
  }
  if (!o->mprof || !o->trace_count || o->rounds < 1 ||
      o->rounds > BENCH_MAX_ROUNDS || (argc - 1) % 2)
    usage(argv[0]);
}

/* One command's rounds: wall-clock and CPU seconds, peak RSS in bytes. */
typedef struct runs_s {
  double wall[BENCH_MAX_ROUNDS], cpu[BENCH_MAX_ROUNDS], rss[BENCH_MAX_ROUNDS];
} runs_t;

/* What a command is run with, and what came of it: the launcher's
 * messages. */
typedef struct request_s {
  char mprof[4096], command[16], option[16], value[4096], trace[4096];
} request_t;
typedef struct reply_s {
  int ok;
  double wall, cpu, rss;
} reply_t;

/* Commands are started by a launcher, a process forked before this one
 * loads a model or builds an index: the peak RSS that wait4() gives of a
 * child counts the pages its parent had when it forked (the kernel sets
 * the child's high-water mark from the page tables it copies), and
 * keeps it through exec. */
static int to_launcher = -1, from_launcher = -1;
static pid_t launcher_pid = -1;

static int write_all(int fd, const void *data, size_t size) {
  for (size_t done = 0; done < size;) {
    ssize_t n = write(fd, (const char *)data + done, size - done);
    if (n <= 0) return -1;
    done += (size_t)n;
  }
  return 0;
}

static int read_all(int fd, void *data, size_t size) {
  for (size_t done = 0; done < size;) {
    ssize_t n = read(fd, (char *)data + done, size - done);
    if (n <= 0) return -1;
    done += (size_t)n;
  }
  return 0;
}

/* `MPROF COMMAND OPTION [VALUE] TRACE` run once (no value: none), its
 * output dropped: *a its wall and CPU seconds and peak RSS. */
static void spawn_mprof(const request_t *q, reply_t *a) {
  const char *value = q->value[0] ? q->value : NULL;
  uint64_t start = bench_now_ns();
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stdout) ||
        !freopen("/dev/null", "w", stderr))
      _exit(127);
    if (value)
      execl(q->mprof, q->mprof, q->command, q->option, value, q->trace,
            (char *)NULL);
    else
      execl(q->mprof, q->mprof, q->command, q->option, q->trace, (char *)NULL);
    _exit(127);
  }
  int status;
  struct rusage usage;
  a->ok = pid > 0 && wait4(pid, &status, 0, &usage) == pid &&
          WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!a->ok) return;
  a->wall = (double)(bench_now_ns() - start) / 1e9;
  a->cpu = (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  a->rss = (double)usage.ru_maxrss * 1024;
}

/* Fork the launcher: it runs each request and replies, until its pipe
 * closes.  Returns 0, or -1 if it cannot. */
static int launcher_start(void) {
  int requests[2], replies[2];
  if (pipe(requests)) return -1;
  if (pipe(replies)) {
    close(requests[0]), close(requests[1]);
    return -1;
  }
  launcher_pid = fork();
  if (launcher_pid == 0) {
    close(requests[1]), close(replies[0]);
    static request_t q;
    reply_t a;
    while (!read_all(requests[0], &q, sizeof q)) {
      memset(&a, 0, sizeof a);
      spawn_mprof(&q, &a);
      if (write_all(replies[1], &a, sizeof a)) break;
    }
    _exit(0);
  }
  close(requests[0]), close(replies[1]);
  to_launcher = requests[1], from_launcher = replies[0];
  return launcher_pid < 0 ? -1 : 0;
}

static void launcher_stop(void) {
  close(to_launcher);
  close(from_launcher);
  waitpid(launcher_pid, NULL, 0);
}

/* `mprof COMMAND OPTION [VALUE] trace` run once by the launcher (value
 * NULL: none), as round r of runs. */
static int run_mprof(const char *mprof, const char *command, const char *option,
                     const char *value, const char *trace, runs_t *runs,
                     int r) {
  static request_t q;
  reply_t a;
  snprintf(q.mprof, sizeof q.mprof, "%s", mprof);
  snprintf(q.command, sizeof q.command, "%s", command);
  snprintf(q.option, sizeof q.option, "%s", option);
  snprintf(q.value, sizeof q.value, "%s", value ? value : "");
  snprintf(q.trace, sizeof q.trace, "%s", trace);
  if (write_all(to_launcher, &q, sizeof q) ||
      read_all(from_launcher, &a, sizeof a) || !a.ok)
    return -1;
  runs->wall[r] = a.wall;
  runs->cpu[r] = a.cpu;
  runs->rss[r] = a.rss;
  return 0;
}

/* The report's, view's and stats's rounds of one trace. */
typedef struct commands_s {
  runs_t stats, report, view;
} commands_t;

/* Round r of the commands that run_stats says (stats only if nonzero). */
static int run_commands(const char *mprof, const char *path, int run_stats,
                        commands_t *c, int r) {
  char png[4096];
  snprintf(png, sizeof png, "%s.bench.png", path);
  int err = (run_stats &&
             run_mprof(mprof, "stats", "--json", NULL, path, &c->stats, r)) ||
            run_mprof(mprof, "report", "--stream", NULL, path, &c->report, r) ||
            run_mprof(mprof, "view", "--png", png, path, &c->view, r);
  remove(png);
  return err ? -1 : 0;
}

/* Seconds to load trace's model, and to load and analyse it (what
 * `mprof report` does with a model) into *report; -1 if it cannot. */
static double load_seconds(const mprof_trace_t *trace, double *report) {
  mprof_model_t *model;
  mprof_analysis_t analysis;
  uint64_t start = bench_now_ns();
  *report = -1;
  if (mprof_model_load(trace, &model)) return -1;
  double seconds = (double)(bench_now_ns() - start) / 1e9;
  int err = mprof_model_analyse(model, &analysis);
  *report = err ? -1 : (double)(bench_now_ns() - start) / 1e9;
  if (!err) mprof_analysis_free(&analysis);
  mprof_model_free(model);
  return seconds;
}

/* Seconds to build trace's index on threads OS threads; -1 if it cannot. */
static double index_seconds(const mprof_trace_t *trace, unsigned threads,
                            uint64_t *events) {
  mprof_index_key_t key;
  memset(&key, 0, sizeof key);
  mprof_index_t *index;
  uint64_t start = bench_now_ns();
  if (mprof_index_build(trace, &key, threads, &index)) return -1;
  double seconds = (double)(bench_now_ns() - start) / 1e9;
  *events = mprof_index_events(index);
  mprof_index_free(index);
  return seconds;
}

/* Open the sidecar index of trace, at path, built on every core and
 * written beside it if none is there: every round's commands meet it
 * alike (view --png writes it, to find the whole trace's range, and
 * stats reads it), as they would after a first `mprof view`.  *events:
 * its count of the trace's events.  Returns 0, or -1 if it cannot. */
static int open_sidecar(const char *path, const mprof_trace_t *trace,
                        uint64_t *events) {
  mprof_index_t *index;
  mprof_index_found_t found;
  uint64_t start = bench_now_ns();
  if (mprof_index_open(path, trace, 0, &found, NULL, &index)) return -1;
  *events = mprof_index_events(index);
  mprof_index_free(index);
  bench_note("%s: %llu events, its index %s in %.1f s", path,
             (unsigned long long)*events,
             found == MPROF_INDEX_VALID ? "read" : "built on every core",
             (double)(bench_now_ns() - start) / 1e9);
  return 0;
}

/* "10M" for 10,000,025 events. */
static void size_name(uint64_t events, char *name, size_t size) {
  if (events >= 900000000)
    snprintf(name, size, "%.0fB", (double)events / 1e9);
  else
    snprintf(name, size, "%.0fM", (double)events / 1e6);
}

/* The lines of one command of bench: its peak RSS against budget and its
 * events/s against rate; its wall and CPU times in a note. */
static void command_lines(const char *bench, const runs_t *runs, int rounds,
                          double events, const char *budget_name, double budget,
                          const char *rate_name, double rate) {
  double wall = bench_median(runs->wall, rounds);
  double cpu = bench_median(runs->cpu, rounds);
  bench_note("%s: %.2f s wall, %.2f s CPU (medians of %d): %.3g events/s "
             "of CPU time",
             bench, wall, cpu, rounds, events / cpu);
  bench_json(bench, "peak_rss_bytes", bench_median(runs->rss, rounds),
             budget_name, budget);
  bench_json(bench, "events_per_s", events / wall, rate_name, rate);
}

/* The report's and view_png's lines of the trace called name. */
static void report_view_lines(const char *name, const commands_t *c, int rounds,
                              double events, int loaded, double load_rate,
                              double report_rate) {
  char bench[32];
  snprintf(bench, sizeof bench, "report_%s", name);
  command_lines(
      bench, &c->report, rounds, events, "budget_512MiB", BUDGET_BYTES,
      loaded ? "model_report" : "model_report_smaller_trace", report_rate);
  snprintf(bench, sizeof bench, "view_png_%s", name);
  command_lines(bench, &c->view, rounds, events, "budget_1GiB",
                VIEW_BUDGET_BYTES,
                loaded ? "model_load" : "model_load_smaller_trace", load_rate);
}

/* Every line of one trace; *load_rate is the model's load rate, and
 * *report_rate its load and analysis's, measured here if the trace is
 * small enough, else the one before. */
static int bench_trace(const options_t *o, const char *path, double *load_rate,
                       double *report_rate) {
  mprof_trace_t *trace;
  uint64_t events;
  if (mprof_trace_open(path, NULL, NULL, &trace)) return -1;
  if (open_sidecar(path, trace, &events)) {
    mprof_trace_close(trace);
    return -1;
  }
  double index1[BENCH_MAX_ROUNDS], indexn[BENCH_MAX_ROUNDS];
  double load[BENCH_MAX_ROUNDS], model_report[BENCH_MAX_ROUNDS];
  static commands_t c;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int loads = 0;
  for (int r = 0; r < o->rounds; r++) {
    index1[r] = index_seconds(trace, 1, &events);
    indexn[r] = index_seconds(trace, (unsigned)cores, &events);
    if (run_commands(o->mprof, path, 1, &c, r)) {
      mprof_trace_close(trace);
      return -1;
    }
    if (events <= o->load_events) {
      load[loads] = load_seconds(trace, &model_report[loads]);
      loads++;
    }
  }
  mprof_trace_close(trace);
  double e = (double)events;
  if (loads) {
    *load_rate = e / bench_median(load, loads);
    *report_rate = e / bench_median(model_report, loads);
  }
  const char *load_name = loads ? "model_load" : "model_load_smaller_trace";
  char name[16], bench[32], metric[32];
  size_name(events, name, sizeof name);
  bench_note("%s: %d rounds, %ld cores", path, o->rounds, cores);
  snprintf(bench, sizeof bench, "stats_%s", name);
  command_lines(bench, &c.stats, o->rounds, e, "budget_512MiB", BUDGET_BYTES,
                load_name, *load_rate);
  report_view_lines(name, &c, o->rounds, e, loads, *load_rate, *report_rate);
  snprintf(bench, sizeof bench, "index_%s", name);
  double one = e / bench_median(index1, o->rounds);
  bench_json(bench, "events_per_s_per_core", one, load_name, *load_rate);
  snprintf(metric, sizeof metric, "events_per_s_n%ld", cores);
  bench_json(bench, metric, e / bench_median(indexn, o->rounds),
             "Nx_one_thread", one * (double)cores);
  return 0;
}

/* The report and view_png lines of a trace measured once, against the
 * rates of the last trace loaded. */
static int bench_once(const options_t *o, const char *path, double load_rate,
                      double report_rate) {
  mprof_trace_t *trace;
  uint64_t events;
  if (mprof_trace_open(path, NULL, NULL, &trace)) return -1;
  int err = open_sidecar(path, trace, &events);
  mprof_trace_close(trace);
  static commands_t c;
  if (err || run_commands(o->mprof, path, 0, &c, 0)) return -1;
  char name[16];
  size_name(events, name, sizeof name);
  report_view_lines(name, &c, 1, (double)events, 0, load_rate, report_rate);
  return 0;
}

int main(int argc, char **argv) {
  options_t o;
  parse(argc, argv, &o);
  if (launcher_start()) {
    bench_note("cannot start a process to run mprof from");
    return 1;
  }
  double load_rate = 0, report_rate = 0;
  int failed = 0;
  for (int i = 0; i < o.trace_count; i++) {
    const char *path = o.traces[i];
    if (o.once[i] ? bench_once(&o, path, load_rate, report_rate)
                  : bench_trace(&o, path, &load_rate, &report_rate)) {
      bench_note("%s: cannot be read, or mprof stats, report or view failed",
                 path);
      failed = 1;
    }
  }
  launcher_stop();
  return failed;
}
