/* cmd_watch.c -- `mprof watch [--on RULE]... [--before DUR] [--after DUR]
 * [--max N] [--for DUR] [-o DIR] (TRACE | --pid PID)`: a flight recorder
 * that keeps the moment things went wrong.
 *
 * It polls the trace (a consistent snapshot of the file, or of the
 * process's memory), analyses its last WATCH_LOOKBACK_NS of packets with
 * the findings detectors, and when a finding matches a rule saves the
 * packets from --before the finding's start to --after it
 * (DIR/capture-N.ctf, mprof_trace_open_window) with the finding
 * (DIR/capture-N.json).  A finding still open at the trace's live edge
 * counts once it has lasted WATCH_SETTLE_NS: a wait that began a moment
 * ago is no stall yet.  Each poll is followed by a sleep of at least
 * WATCH_IDLE_FACTOR times the processor time it took, so the watch uses
 * at most 1/WATCH_IDLE_FACTOR of a core whatever the trace's rate.
 * docs/watch.md tells more.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "watch.h"

#define WATCH_LOOKBACK_NS 10000000000LL /* what the detectors see */
#define WATCH_SETTLE_NS 1000000000LL    /* an open finding must last this */
#define WATCH_POLL_NS 100000000LL       /* the shortest sleep between polls */
#define WATCH_IDLE_FACTOR 20            /* sleep >= this x a poll's cost */
#define WATCH_APPEAR_NS 5000000000LL    /* a trace file may come this late */
#define WATCH_MAX_RULES 32

static const char help[] =
    "usage: mprof watch [--on RULE]... [--before DUR] [--after DUR] [--max N]\n"
    "                   [--for DUR] [-o DIR] (TRACE | --pid PID)\n"
    "Follow a trace being written (a file, or --pid: the trace a process\n"
    "records into its memory), run the findings detectors on its last 10 s,\n"
    "and when a finding matches a RULE save DIR/capture-N.ctf (the packets\n"
    "from --before its start, default 2s, to --after, default 0.5s) and\n"
    "DIR/capture-N.json (the finding); one line per capture on stdout.\n"
    "RULE: a finding kind, with an optional least measure: loop_blocked>50ms,\n"
    "stalled>1s, lost_wakeup, pool_saturated, leaked (default: every error\n"
    "and warning).  At most --max captures (default 10), one per ongoing\n"
    "finding.  DUR: a number with ns, us, ms or s (default s).  It ends\n"
    "when the program has exited and its trace is read, at --for, or on\n"
    "SIGINT, its captures complete.  -o names a directory (default: .).\n"
    "examples:\n"
    "  mprof watch --on 'loop_blocked>50ms' -o captures /tmp/server.ctf\n"
    "  mprof watch --on lost_wakeup --on stalled --pid 4242 -o captures\n";

typedef struct rule_s {
  int kind;         /* mprof_finding_kind_t */
  int64_t least_ns; /* the finding's measure must reach it */
} rule_t;

/* A capture found, waiting for --after to pass. */
typedef struct capture_s {
  json_t *finding;
  uint64_t trigger_ticks;
  int number;
} capture_t;

/* The last end (in ticks) of findings of one kind about one thread. */
typedef struct seen_s {
  int kind;
  uint64_t thread_id;
  uint64_t end_ticks;
} seen_t;

typedef struct cli_watch_s {
  rule_t rules[WATCH_MAX_RULES];
  int rule_count;
  int64_t before_ns, after_ns, for_ns;
  int max, started; /* captures allowed, begun */
  const char *dir, *path;
  int pid;
  struct stat file;     /* the trace file as first opened */
  mprof_trace_t *trace; /* the latest snapshot */
  capture_t *pending;
  size_t pending_count;
  seen_t *seen;
  size_t seen_count;
  char problem[1024];  /* the reader's latest diagnostic */
  uint64_t edge_ticks; /* the newest event the last poll saw */
  int grew;            /* the last poll saw newer events than the one before */
  const char *command; /* "watch", "record": its error lines' */
  int (*exited)(void *context); /* when set, whether the program ended */
  void *exited_context;
} watch_t;

static volatile sig_atomic_t interrupted;

static void on_interrupt(int signal_number) {
  (void)signal_number;
  interrupted = 1;
}

static int64_t monotonic_ns(int clock) {
  struct timespec now;
  clock_gettime(clock, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* --- The command line ----------------------------------------------------- */

/* "250ms", "2s", "1.5" (seconds): ns into *out; -1 if it is no duration. */
static int parse_duration(const char *text, int64_t *out) {
  return cli_parse_duration(text, text + strlen(text), 1e9, out);
}

static int parse_rule(watch_t *w, const char *text) {
  const char *gt = strchr(text, '>');
  size_t name_length = gt ? (size_t)(gt - text) : strlen(text);
  rule_t rule = {-1, 0};
  for (int k = 0; k < MPROF_FINDING_KIND_COUNT; k++) {
    const char *name = mprof_finding_kind_name((mprof_finding_kind_t)k);
    if (strlen(name) == name_length && !strncmp(name, text, name_length))
      rule.kind = k;
  }
  if (rule.kind < 0 || (gt && parse_duration(gt + 1, &rule.least_ns)) ||
      w->rule_count == WATCH_MAX_RULES)
    return -1;
  w->rules[w->rule_count++] = rule;
  return 0;
}

static int bad_option(const char *command, const char *option,
                      const char *value, const char *what) {
  return cli_fail(CLI_USAGE, command, option,
                  "'%s' is %s; see mprof help watch", value, what);
}

int cli_watch_rule(watch_t *w, const char *option, const char *text) {
  return parse_rule(w, text) ? bad_option(w->command, option, text, "no rule")
                             : 0;
}

int cli_watch_limit(watch_t *w, const char *option, const char *value) {
  char *end;
  long number;
  int64_t *duration = !strcmp(option, "--before")  ? &w->before_ns
                      : !strcmp(option, "--after") ? &w->after_ns
                      : !strcmp(option, "--for")   ? &w->for_ns
                                                   : NULL;
  if (duration)
    return parse_duration(value, duration)
               ? bad_option(w->command, option, value, "out of range")
               : 0;
  number = strtol(value, &end, 10);
  if (number < 1 || number > INT32_MAX || *end)
    return bad_option(w->command, option, value, "out of range");
  w->max = (int)number;
  return 0;
}

static int parse_options(watch_t *w, int argc, char **argv) {
  static const struct option options[] = {{"on", required_argument, 0, 'r'},
                                          {"before", required_argument, 0, 'b'},
                                          {"after", required_argument, 0, 'a'},
                                          {"max", required_argument, 0, 'm'},
                                          {"for", required_argument, 0, 'f'},
                                          {"output", required_argument, 0, 'o'},
                                          {"pid", required_argument, 0, 'p'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
  int c;
  char *end;
  long number;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
    if (c == 'r' && cli_watch_rule(w, "--on", optarg)) return CLI_USAGE;
    if (strchr("bafm", c) && cli_watch_limit(w,
                                             c == 'b'   ? "--before"
                                             : c == 'a' ? "--after"
                                             : c == 'f' ? "--for"
                                                        : "--max",
                                             optarg))
      return CLI_USAGE;
    if (c == 'p' &&
        ((number = strtol(optarg, &end, 10)) < 1 || number > INT32_MAX || *end))
      return bad_option("watch", "--pid", optarg, "out of range");
    if (c == 'p') w->pid = (int)number;
    if (c == 'o') w->dir = optarg;
    if (c == 'h') return fputs(help, stdout), -1;
    if (c == '?') return cli_option_error("watch", argv, "o:h");
  }
  if (argc == optind && !w->pid)
    return cli_missing("watch", "TRACE",
                       "--on loop_blocked trace.ctf -o captures");
  if (argc - optind > (w->pid ? 0 : 1))
    return cli_fail(CLI_USAGE, "watch", argv[optind + (w->pid ? 0 : 1)],
                    "one more trace; give one TRACE or --pid PID");
  w->path = w->pid ? NULL : argv[optind];
  return 0;
}

/* --- Times ---------------------------------------------------------------- */

static uint64_t ns_to_ticks(const mprof_trace_info_t *info, int64_t ns) {
  if (ns <= 0) return 0;
  return (uint64_t)((__uint128_t)ns * info->clock_freq_hz / 1000000000u);
}

/* The trace tick of model time ns. */
static uint64_t model_ticks(const mprof_model_view_t *v, int64_t ns) {
  return v->start_ticks + (uint64_t)((__uint128_t)(ns > 0 ? ns : 0) *
                                     v->clock_freq_hz / 1000000000u);
}

/* --- Reading the trace ---------------------------------------------------- */

static void keep_problem(void *context, const char *message) {
  watch_t *w = context;
  snprintf(w->problem, sizeof w->problem, "%s", message);
}

static int tell(const watch_t *w, const char *what, const char *why) {
  return cli_fail(CLI_FAILED, w->command, what, "%s", why);
}

/* Whether the file at w->path is still the one first opened: 0, or an
 * exit code after saying what became of it. */
static int file_still_there(watch_t *w) {
  struct stat now;
  if (stat(w->path, &now) != 0)
    return tell(w, w->path, "the trace disappeared");
  if (now.st_ino != w->file.st_ino || now.st_dev != w->file.st_dev)
    return tell(w, w->path, "the trace was replaced by another file");
  if (now.st_size < w->file.st_size)
    return tell(w, w->path, "the trace was truncated");
  return 0;
}

/* Wait for a trace file that its program has not made yet: for as long
 * as the program runs where w->exited tells, else WATCH_APPEAR_NS.  0,
 * -1 if its program ended without one, or an exit code after saying
 * why. */
static int file_appears(watch_t *w) {
  int64_t give_up = monotonic_ns(CLOCK_MONOTONIC) + WATCH_APPEAR_NS;
  while (stat(w->path, &w->file) != 0) {
    int why = errno;
    if (why == ENOENT && w->exited && w->exited(w->exited_context)) return -1;
    if (why != ENOENT || interrupted ||
        (!w->exited && monotonic_ns(CLOCK_MONOTONIC) > give_up))
      return tell(w, w->path, strerror(why));
    struct timespec pause = {0, WATCH_POLL_NS};
    nanosleep(&pause, NULL);
  }
  return 0;
}

/* Take a new snapshot into w->trace: 0, or an exit code after saying
 * why not. */
static int snapshot(watch_t *w) {
  mprof_trace_t *trace;
  w->problem[0] = 0;
  int err = w->pid ? mprof_trace_open_process(w->pid, keep_problem, w, &trace)
                   : mprof_trace_open(w->path, keep_problem, w, &trace);
  if (!err && mprof_trace_info(trace)->legacy) {
    mprof_trace_close(trace);
    return tell(w, w->path, "a legacy trace: it is not written live");
  }
  if (err) {
    cli_progress_wipe();
    fprintf(stderr, "mprof %s: ", w->command);
    cli_put_name(stderr, w->problem[0] ? w->problem : "cannot read the trace");
    fputc('\n', stderr);
    return CLI_FAILED;
  }
  mprof_trace_close(w->trace);
  w->trace = trace;
  return 0;
}

/* Whether the traced program has ended: w->exited says so where it is
 * set, else its process is gone, or its trace file is stopped or has no
 * writer left (it was killed).  A trace
 * that grew has a writer: the processes' mappings are looked at only
 * when it did not. */
static int program_ended(const watch_t *w) {
  if (w->exited) return w->exited(w->exited_context);
  if (w->pid) return kill(w->pid, 0) != 0 && errno == ESRCH;
  return !mprof_trace_info(w->trace)->recording ||
         (!w->grew && mprof_trace_file_mapped(w->path) == 0);
}

/* The newest packet's start: where the detectors' window ends. */
static uint64_t newest_ticks(const mprof_trace_t *trace) {
  uint64_t newest = 0;
  for (size_t i = 0; i < mprof_trace_packet_count(trace); i++) {
    const mprof_packet_info_t *p = mprof_trace_packet(trace, i);
    if (p->stream_class == 0 && p->timestamp_begin > newest)
      newest = p->timestamp_begin;
  }
  return newest;
}

/* --- Matching findings ---------------------------------------------------- */

/* The finding's measure: value_ns where it has one, else how long it
 * lasted. */
static int64_t measure_ns(const mprof_finding_t *f) {
  return f->value_ns > 0 ? f->value_ns : f->end_ns - f->start_ns;
}

static int rule_matches(const watch_t *w, const mprof_finding_t *f) {
  if (!w->rule_count) return f->severity <= MPROF_SEVERITY_WARNING;
  for (int i = 0; i < w->rule_count; i++)
    if (w->rules[i].kind == (int)f->kind &&
        measure_ns(f) >= w->rules[i].least_ns)
      return 1;
  return 0;
}

/* The shortest loop_blocked threshold the rules ask for (0: default). */
static int64_t loop_blocked_ns(const watch_t *w) {
  int64_t least = 0;
  for (int i = 0; i < w->rule_count; i++)
    if (w->rules[i].kind == MPROF_FINDING_LOOP_BLOCKED &&
        w->rules[i].least_ns && (!least || w->rules[i].least_ns < least))
      least = w->rules[i].least_ns;
  return least;
}

/* Whether the finding is new: not the same kind about the same thread
 * as one seen, unless it began after that one's end.  Either way the
 * end seen is moved to this one's: an ongoing finding grows. */
static int first_seen(watch_t *w, int kind, uint64_t thread_id,
                      uint64_t start_ticks, uint64_t end_ticks) {
  for (size_t i = 0; i < w->seen_count; i++) {
    seen_t *s = &w->seen[i];
    if (s->kind != kind || s->thread_id != thread_id) continue;
    int fresh = start_ticks > s->end_ticks;
    if (end_ticks > s->end_ticks) s->end_ticks = end_ticks;
    return fresh;
  }
  seen_t *grown = realloc(w->seen, (w->seen_count + 1) * sizeof *grown);
  if (!grown) return 0;
  w->seen = grown;
  w->seen[w->seen_count++] = (seen_t){kind, thread_id, end_ticks};
  return 1;
}

static json_t *json_thread(const mprof_model_t *m, uint32_t t) {
  char name[256];
  mprof_model_thread_name(m, t, name, sizeof name);
  return json_pack("{s:I, s:o}", "id",
                   (json_int_t)mprof_model_view(m)->threads[t].id, "name",
                   cli_json_text(name, strlen(name)));
}

/* The finding as capture-N.json holds it: times as trace ticks. */
static json_t *json_finding(const mprof_model_t *m, const mprof_analysis_t *a,
                            const mprof_finding_t *f) {
  const mprof_model_view_t *v = mprof_model_view(m);
  const char *summary = a->text + f->summary;
  json_t *threads = json_array();
  for (uint32_t k = 0; k < f->thread_count; k++)
    json_array_append_new(
        threads, json_thread(m, a->finding_threads[f->first_thread + k]));
  return json_pack(
      "{s:s, s:s, s:o, s:o, s:I, s:I, s:I}", "kind",
      mprof_finding_kind_name((mprof_finding_kind_t)f->kind), "severity",
      mprof_severity_name((mprof_severity_t)f->severity), "summary",
      cli_json_text(summary, strlen(summary)), "threads", threads,
      "start_ticks", (json_int_t)model_ticks(v, f->start_ns), "end_ticks",
      (json_int_t)model_ticks(v, f->end_ns), "value_ns",
      (json_int_t)f->value_ns);
}

/* A capture of finding f, to be saved once --after has passed. */
static void begin_capture(watch_t *w, const mprof_model_t *m,
                          const mprof_analysis_t *a, const mprof_finding_t *f) {
  capture_t *grown =
      realloc(w->pending, (w->pending_count + 1) * sizeof *grown);
  json_t *finding = json_finding(m, a, f);
  if (!grown || !finding) {
    json_decref(finding);
    return;
  }
  w->pending = grown;
  w->pending[w->pending_count++] = (capture_t){
      finding, model_ticks(mprof_model_view(m), f->start_ns), ++w->started};
}

/* Look at one finding: a new capture if it matches and is new. */
static void consider(watch_t *w, const mprof_model_t *m,
                     const mprof_analysis_t *a, const mprof_finding_t *f,
                     int ended) {
  const mprof_model_view_t *v = mprof_model_view(m);
  int still_open = f->end_ns >= v->duration_ns;
  if (!rule_matches(w, f) || f->thread_count == 0 ||
      (!ended && still_open && v->duration_ns - f->start_ns < WATCH_SETTLE_NS))
    return;
  uint32_t at_fault = a->finding_threads[f->first_thread];
  if (first_seen(w, (int)f->kind, v->threads[at_fault].id,
                 model_ticks(v, f->start_ns), model_ticks(v, f->end_ns)) &&
      w->started < w->max)
    begin_capture(w, m, a, f);
}

/* Run the detectors on the trace's last WATCH_LOOKBACK_NS.  Returns the
 * trace tick of its newest event (its live edge), 0 if it has none. */
static uint64_t analyse(watch_t *w, int ended) {
  const mprof_trace_info_t *info = mprof_trace_info(w->trace);
  uint64_t newest = newest_ticks(w->trace);
  uint64_t lookback = ns_to_ticks(info, WATCH_LOOKBACK_NS);
  mprof_trace_t *recent;
  if (mprof_trace_open_window(w->trace,
                              newest > lookback ? newest - lookback : 0,
                              UINT64_MAX, &recent))
    return 0;
  mprof_model_t *m = NULL;
  mprof_analysis_options_t options = {loop_blocked_ns(w), 0, 0};
  mprof_analysis_t a;
  uint64_t edge = 0;
  if (!mprof_model_load(recent, &m) &&
      !mprof_model_analyse_with(m, &options, &a)) {
    const mprof_model_view_t *v = mprof_model_view(m);
    if (v->events) edge = model_ticks(v, v->duration_ns);
    for (size_t i = 0; i < a.finding_count; i++)
      consider(w, m, &a, &a.findings[i], ended);
    mprof_analysis_free(&a);
  }
  mprof_model_free(m);
  mprof_trace_close(recent);
  return edge;
}

/* --- Writing captures ----------------------------------------------------- */

static int write_json(const char *path, json_t *capture) {
  mprof_output_t out;
  if (mprof_output_open_file(&out, path)) return -1;
  int failed =
      json_dumpf(capture, out.f, JSON_INDENT(1)) || fputc('\n', out.f) == EOF;
  return mprof_output_close(&out, !failed) ? -1 : 0;
}

/* The capture's line on stdout: "DIR/capture-N.ctf: KIND: SUMMARY". */
static void announce(const char *ctf, json_t *finding) {
  const char *summary = json_string_value(json_object_get(finding, "summary"));
  cli_put_name(stdout, ctf);
  printf(": %s: ", json_string_value(json_object_get(finding, "kind")));
  cli_put_escaped(stdout, summary, strlen(summary));
  fputc('\n', stdout);
  fflush(stdout);
}

/* Why a capture's file could not be written (errno why): a FIFO or a
 * device in its place is refused, never waited on (mprof_output_open_file
 * says EEXIST). */
static const char *unwritten(int why) {
  return why == EEXIST ? "not a regular file; remove it, or name another -o"
                       : mprof_output_error(why);
}

/* Save capture c from the latest snapshot: 0, or an exit code after
 * saying why not (the output directory is full, gone, ...). */
static int save_capture(watch_t *w, capture_t *c) {
  const mprof_trace_info_t *info = mprof_trace_info(w->trace);
  uint64_t before = ns_to_ticks(info, w->before_ns);
  uint64_t from = c->trigger_ticks > before ? c->trigger_ticks - before : 0;
  uint64_t to = c->trigger_ticks + ns_to_ticks(info, w->after_ns);
  char ctf[4096], json[4096];
  snprintf(ctf, sizeof ctf, "%s/capture-%d.ctf", w->dir, c->number);
  snprintf(json, sizeof json, "%s/capture-%d.json", w->dir, c->number);
  mprof_trace_t *window;
  if (mprof_trace_open_window(w->trace, from, to, &window))
    return tell(w, ctf, "out of memory");
  int saved = mprof_trace_save_file(window, ctf);
  int saved_errno = errno;
  mprof_trace_close(window);
  if (saved) return tell(w, ctf, unwritten(saved_errno));
  json_t *capture = json_pack(
      "{s:i, s:s, s:I, s:I, s:I, s:I, s:I, s:O}", "capture", c->number, "trace",
      strrchr(ctf, '/') + 1, "trigger_ticks", (json_int_t)c->trigger_ticks,
      "from_ticks", (json_int_t)from, "to_ticks", (json_int_t)to,
      "clock_freq_hz", (json_int_t)info->clock_freq_hz, "clock_offset_ns",
      (json_int_t)info->clock_offset_ns, "finding", c->finding);
  int failed = !capture || write_json(json, capture);
  saved_errno = errno;
  json_decref(capture);
  if (failed) {
    unlink(ctf); /* a capture is both files or none */
    return tell(w, json, unwritten(saved_errno));
  }
  announce(ctf, c->finding);
  return 0;
}

/* Save the pending captures whose --after has passed (all of them when
 * the watch ends): 0, or an exit code. */
static int save_due(watch_t *w, uint64_t edge_ticks, int ending) {
  uint64_t after = ns_to_ticks(mprof_trace_info(w->trace), w->after_ns);
  size_t kept = 0;
  int code = 0;
  for (size_t i = 0; i < w->pending_count; i++) {
    capture_t *c = &w->pending[i];
    if (!code && !ending && edge_ticks < c->trigger_ticks + after) {
      w->pending[kept++] = *c;
      continue;
    }
    if (!code) code = save_capture(w, c);
    json_decref(c->finding);
  }
  w->pending_count = kept;
  return code;
}

/* --- The loop ------------------------------------------------------------- */

/* Sleep between polls: WATCH_IDLE_FACTOR times the processor time the
 * poll took, at least WATCH_POLL_NS, never past the deadline. */
static void pause_after(int64_t poll_cpu_ns, int64_t deadline_ns) {
  int64_t sleep_ns = poll_cpu_ns * WATCH_IDLE_FACTOR;
  if (sleep_ns < WATCH_POLL_NS) sleep_ns = WATCH_POLL_NS;
  int64_t left = deadline_ns - monotonic_ns(CLOCK_MONOTONIC);
  if (deadline_ns && left < sleep_ns) sleep_ns = left > 0 ? left : 0;
  struct timespec pause = {sleep_ns / 1000000000, sleep_ns % 1000000000};
  nanosleep(&pause, NULL); /* SIGINT ends it early */
}

/* One poll: a snapshot, the detectors, the captures due.  Sets *ended
 * once the program has ended and the trace is read to its end.  Returns
 * 0 or an exit code. */
static int poll_once(watch_t *w, int *ended) {
  int code = w->path ? file_still_there(w) : 0;
  if (!code && w->pid && program_ended(w) && w->trace) {
    *ended = 1; /* the process's memory is gone: its last snapshot stays */
  } else if (!code) {
    int had_ended = w->path && w->trace && program_ended(w);
    code = snapshot(w);
    *ended = had_ended ||
             (!code && w->path && !mprof_trace_info(w->trace)->recording);
  }
  if (code) return code;
  uint64_t edge = analyse(w, *ended);
  w->grew = edge > w->edge_ticks;
  if (w->grew) w->edge_ticks = edge;
  return save_due(w, edge, *ended);
}

static int watch(watch_t *w) {
  int64_t deadline = w->for_ns ? monotonic_ns(CLOCK_MONOTONIC) + w->for_ns : 0;
  int ended = 0, code = w->path ? file_appears(w) : 0;
  if (code < 0) return 0; /* its program ended before it made one */
  while (!code && !ended && !interrupted &&
         (!deadline || monotonic_ns(CLOCK_MONOTONIC) < deadline)) {
    int64_t cpu = monotonic_ns(CLOCK_PROCESS_CPUTIME_ID);
    code = poll_once(w, &ended);
    if (!code && !ended)
      pause_after(monotonic_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu, deadline);
  }
  int saved = w->trace ? save_due(w, 0, 1) : 0;
  return code ? code : saved;
}

cli_watch_t *cli_watch_new(const char *command) {
  watch_t *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->before_ns = 2000000000;
  w->after_ns = 500000000;
  w->max = 10;
  w->dir = ".";
  w->command = command;
  return w;
}

void cli_watch_free(cli_watch_t *w) {
  if (!w) return;
  mprof_trace_close(w->trace);
  free(w->pending);
  free(w->seen);
  free(w);
}

int cli_watch_dir(cli_watch_t *w, const char *dir) {
  struct stat st;
  w->dir = dir;
  if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
    return tell(w, dir, "not a directory");
  if (stat(dir, &st) != 0 && mkdir(dir, 0700) != 0)
    return tell(w, dir, strerror(errno));
  return 0;
}

int cli_watch_follow(cli_watch_t *w, const char *path,
                     int (*exited)(void *context), void *context) {
  w->path = path;
  w->exited = exited;
  w->exited_context = context;
  return watch(w);
}

int cmd_watch(int argc, char **argv) {
  watch_t *w = cli_watch_new("watch");
  if (!w)
    return cli_fail(CLI_FAILED, "watch", "memory", "%s", strerror(ENOMEM));
  int code = parse_options(w, argc, argv);
  if (!code) code = cli_watch_dir(w, w->dir);
  if (!code) {
    struct sigaction action = {0};
    action.sa_handler = on_interrupt;
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    code = watch(w);
  }
  cli_watch_free(w);
  return code < 0 ? CLI_OK : code;
}
