/* bench_scale.c -- a big trace read in bounded memory: `mprof stats`'s,
 * `mprof report`'s and `mprof view --png`'s peak RSS and speed (a report
 * of a trace this big is made in one pass, and so is the picture of one
 * whose model would pass MPROF_VIEW_BUDGET_MIB), and the sidecar index's
 * build speed per core,
 * each against the model's load, or its load and analysis, of the same
 * trace (or a fixed budget).
 *
 *   mprof_bench_scale --mprof MPROF --trace TRACE [--trace TRACE ...]
 *                     [--rounds N] [--load-events N]
 *
 * Each trace was written by test/trace_gen (bench/run.sh makes a 10 M
 * and a 100 M-event one).  The model is loaded only from traces of at most
 * --load-events events (default 2e7: a model takes ~50 bytes an event);
 * bigger traces are held against the rate of the last one loaded.  Lines:
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

typedef struct options_s {
  const char *mprof;
  const char *traces[8];
  int trace_count;
  int rounds;
  uint64_t load_events;
} options_t;

static void usage(const char *program) {
  fprintf(stderr,
          "usage: %s --mprof MPROF --trace TRACE... [--rounds N] "
          "[--load-events N]\n",
          program);
  exit(2);
}

static void parse(int argc, char **argv, options_t *o) {
  *o = (options_t){NULL, {NULL}, 0, 3, 20000000};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--mprof"))
      o->mprof = argv[i + 1];
    else if (!strcmp(argv[i], "--trace") && o->trace_count < 8)
      o->traces[o->trace_count++] = argv[i + 1];
    else if (!strcmp(argv[i], "--rounds"))
      o->rounds = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--load-events"))
      o->load_events = strtoull(argv[i + 1], NULL, 10);
    else
      usage(argv[0]);
  }
  if (!o->mprof || !o->trace_count || o->rounds < 1 ||
      o->rounds > BENCH_MAX_ROUNDS || (argc - 1) % 2)
    usage(argv[0]);
}

/* `mprof COMMAND OPTION [VALUE] trace` run once (value NULL: none), its
 * output dropped: its wall seconds and peak RSS. */
static int run_mprof(const char *mprof, const char *command, const char *option,
                     const char *value, const char *trace, double *seconds,
                     double *rss_bytes) {
  uint64_t start = bench_now_ns();
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stdout) ||
        !freopen("/dev/null", "w", stderr))
      _exit(127);
    if (value)
      execl(mprof, mprof, command, option, value, trace, (char *)NULL);
    else
      execl(mprof, mprof, command, option, trace, (char *)NULL);
    _exit(127);
  }
  int status;
  struct rusage usage;
  if (pid < 0 || wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return -1;
  *seconds = (double)(bench_now_ns() - start) / 1e9;
  *rss_bytes = (double)usage.ru_maxrss * 1024;
  return 0;
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

/* "10M" for 10,000,025 events. */
static void size_name(uint64_t events, char *name, size_t size) {
  if (events >= 900000000)
    snprintf(name, size, "%.0fB", (double)events / 1e9);
  else
    snprintf(name, size, "%.0fM", (double)events / 1e6);
}

/* Every line of one trace; *load_rate is the model's load rate, and
 * *report_rate its load and analysis's, measured here if the trace is
 * small enough, else the one before. */
static int bench_trace(const options_t *o, const char *path, double *load_rate,
                       double *report_rate) {
  mprof_trace_t *trace;
  if (mprof_trace_open(path, NULL, NULL, &trace)) return -1;
  double index1[BENCH_MAX_ROUNDS], indexn[BENCH_MAX_ROUNDS];
  double stats[BENCH_MAX_ROUNDS], rss[BENCH_MAX_ROUNDS];
  double report[BENCH_MAX_ROUNDS], report_rss[BENCH_MAX_ROUNDS];
  double load[BENCH_MAX_ROUNDS], model_report[BENCH_MAX_ROUNDS];
  double view[BENCH_MAX_ROUNDS], view_rss[BENCH_MAX_ROUNDS];
  char png[4096];
  snprintf(png, sizeof png, "%s.bench.png", path);
  uint64_t events = 0;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int loads = 0;
  for (int r = 0; r < o->rounds; r++) {
    index1[r] = index_seconds(trace, 1, &events);
    indexn[r] = index_seconds(trace, (unsigned)cores, &events);
    if (run_mprof(o->mprof, "stats", "--json", NULL, path, &stats[r],
                  &rss[r]) ||
        run_mprof(o->mprof, "report", "--stream", NULL, path, &report[r],
                  &report_rss[r]) ||
        run_mprof(o->mprof, "view", "--png", png, path, &view[r], &view_rss[r]))
      return -1;
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
  bench_note("%s: %.0f events, %d rounds, %ld cores", path, e, o->rounds,
             cores);
  snprintf(bench, sizeof bench, "stats_%s", name);
  bench_json(bench, "peak_rss_bytes", bench_median(rss, o->rounds),
             "budget_512MiB", BUDGET_BYTES);
  bench_json(bench, "events_per_s", e / bench_median(stats, o->rounds),
             load_name, *load_rate);
  snprintf(bench, sizeof bench, "report_%s", name);
  bench_json(bench, "peak_rss_bytes", bench_median(report_rss, o->rounds),
             "budget_512MiB", BUDGET_BYTES);
  bench_json(bench, "events_per_s", e / bench_median(report, o->rounds),
             loads ? "model_report" : "model_report_smaller_trace",
             *report_rate);
  snprintf(bench, sizeof bench, "index_%s", name);
  double one = e / bench_median(index1, o->rounds);
  bench_json(bench, "events_per_s_per_core", one, load_name, *load_rate);
  snprintf(metric, sizeof metric, "events_per_s_n%ld", cores);
  bench_json(bench, metric, e / bench_median(indexn, o->rounds),
             "Nx_one_thread", one * (double)cores);
  snprintf(bench, sizeof bench, "view_png_%s", name);
  bench_json(bench, "peak_rss_bytes", bench_median(view_rss, o->rounds),
             "budget_1GiB", VIEW_BUDGET_BYTES);
  bench_json(bench, "events_per_s", e / bench_median(view, o->rounds),
             load_name, *load_rate);
  remove(png);
  return 0;
}

int main(int argc, char **argv) {
  options_t o;
  parse(argc, argv, &o);
  double load_rate = 0, report_rate = 0;
  int failed = 0;
  for (int i = 0; i < o.trace_count; i++)
    if (bench_trace(&o, o.traces[i], &load_rate, &report_rate)) {
      bench_note("%s: cannot be read, or mprof stats or report failed",
                 o.traces[i]);
      failed = 1;
    }
  return failed;
}
