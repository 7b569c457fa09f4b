/* bench_lttng.c -- mprof against LTTng-UST, in one process.
 *
 * The same loop records the same event (two u32 fields) with
 * mprof_becomes(a, b) and with tracepoint(mprof_bench, becomes, a, b).
 *
 * Lines printed (value is always mprof's figure, baseline LTTng's, both
 * measured in this process, by turns, medians of rounds; ratio = value /
 * baseline_value, lower is better):
 *   lttng_off  ns_per_call   linked in, not started: mprof_becomes() before
 *                            mprof_start() vs the tracepoint with no session
 *                            enabling it.  Target ratio <= 1.
 *   lttng      ns_per_event  recording: mprof started (64 MiB overwrite-mode
 *                            trace file) vs the tracepoint enabled in an
 *                            LTTng session.  The target, "mprof at least
 *                            6x faster than LTTng", is ratio <= 1/6
 *                            (0.167); the speedup is 1 / ratio.
 *
 * The LTTng session is a snapshot (flight recorder) session: its channel is
 * in overwrite mode, per-user buffers of 16 x 4 MiB sub-buffers per CPU, so
 * that, as with mprof's overwrite-mode ring, every event is written and no
 * consumer competes for the CPUs while the loop runs.  A snapshot is
 * recorded into --dir once the loop is done to check that events were
 * there.  lttng-sessiond must already run (bench/run.sh starts it); the
 * session commands are run through the lttng command, their output sent to
 * stderr.  If a command fails, only the lttng_off line is printed.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mprof/unix.h>

#include "../bench_util.h"
#include "bench_tp.h"

static BENCH_NOINLINE uint64_t loop_lttng(uint64_t n) {
  uint64_t t0 = bench_now_ns();
  for (uint64_t i = 0; i < n; i++) {
    uint32_t a = (uint32_t)(i & 1023) + 1;
    tracepoint(mprof_bench, becomes, a, a + 1);
  }
  return bench_now_ns() - t0;
}

static char session[64];
static int session_created;

/* Run an lttng command with its output on stderr. */
static int lttng(const char *format, ...) __attribute__((format(printf, 1, 2)));
static int lttng(const char *format, ...) {
  char args[2048], command[2200];
  va_list ap;
  va_start(ap, format);
  vsnprintf(args, sizeof args, format, ap);
  va_end(ap);
  snprintf(command, sizeof command, "lttng --quiet %s 1>&2", args);
  int status = system(command);
  if (status != 0) bench_note("failed (%d): %s", status, command);
  return status;
}

static void destroy_session(void) {
  if (session_created) lttng("destroy %s", session);
  session_created = 0;
}

static int enabled(void) {
  return tracepoint_enabled(mprof_bench, becomes) != 0;
}

/* Create, configure and start the session; wait until this process sees
 * the tracepoint enabled.  0 on success. */
static int start_session(const char *dir) {
  snprintf(session, sizeof session, "mprof-bench-%ld", (long)getpid());
  if (lttng("create %s --snapshot --output=%s/lttng-%s", session, dir, session))
    return -1;
  session_created = 1;
  atexit(destroy_session);
  if (lttng("enable-channel --userspace --session=%s --overwrite "
            "--subbuf-size=4M --num-subbuf=16 benchchan",
            session) ||
      lttng("enable-event --userspace --session=%s --channel=benchchan "
            "mprof_bench:becomes",
            session) ||
      lttng("start %s", session))
    return -1;
  for (int i = 0; i < 500 && !enabled(); i++) usleep(10000);
  if (!enabled()) {
    bench_note("the tracepoint is still disabled 5 s after lttng start "
               "(is this process registered with lttng-sessiond?)");
    return -1;
  }
  return 0;
}

/* Bytes under path (the snapshot), via du. */
static long long snapshot_bytes(const char *path) {
  char command[4400];
  snprintf(command, sizeof command, "du -sb '%s' 2>/dev/null", path);
  FILE *p = popen(command, "r");
  long long bytes = -1;
  if (!p) return -1;
  if (fscanf(p, "%lld", &bytes) != 1) bytes = -1;
  pclose(p);
  return bytes;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

int main(int argc, char **argv) {
  bench_args_t args;
  bench_parse_args(argc, argv, &args);
  uint64_t n = args.events;
  int rounds = args.rounds;
  double ns_m[BENCH_MAX_ROUNDS], ns_l[BENCH_MAX_ROUNDS];

  /* Linked in, nothing started. */
  if (enabled())
    bench_note("warning: mprof_bench:becomes is already enabled by another "
               "session; the lttng_off line is not an idle tracepoint");
  bench_compare(bench_loop_mprof, loop_lttng, n, rounds, ns_m, ns_l);
  bench_note_rounds("mprof not started", ns_m, rounds);
  bench_note_rounds("lttng no session", ns_l, rounds);
  bench_note_paired("lttng_off", ns_m, ns_l, rounds);
  double off_m = bench_median(ns_m, rounds), off_l = bench_median(ns_l, rounds);
  bench_note("not started: mprof %.3f ns/call, lttng %.3f ns/call", off_m,
             off_l);
  bench_json("lttng_off", "ns_per_call", off_m, "lttng_ust_off", off_l);

  /* Recording. */
  const char *path = bench_start_mprof(args.dir, "mprof-bench-lttng");
  unlink(path);
  if (start_session(args.dir)) {
    bench_note("LTTng session not available: lttng line skipped");
    return 0;
  }
  bench_compare(bench_loop_mprof, loop_lttng, n / 2, rounds, ns_m, ns_l);
  mprof_unix_stop();
  bench_note_rounds("mprof recording", ns_m, rounds);
  bench_note_rounds("lttng recording", ns_l, rounds);
  bench_note_paired("lttng", ns_m, ns_l, rounds);
  lttng("stop %s", session);
  lttng("snapshot record --session=%s", session);
  char out[4200];
  snprintf(out, sizeof out, "%s/lttng-%s", args.dir, session);
  long long bytes = snapshot_bytes(out);
  destroy_session();
  nftw(out, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (bytes < 1024 * 1024) {
    bench_note("the LTTng snapshot in %s holds %lld bytes: events were not "
               "recorded, lttng line skipped",
               out, bytes);
    return 0;
  }
  double on_m = bench_median(ns_m, rounds), on_l = bench_median(ns_l, rounds);
  bench_note("recording: mprof %.3f ns/event, lttng %.3f ns/event "
             "(mprof %.1fx faster; snapshot %lld bytes)",
             on_m, on_l, on_l / on_m, bytes);
  bench_json("lttng", "ns_per_event", on_m, "lttng_ust", on_l);
  return 0;
}
