/* bench_record.c -- the recorder's cost per event against its floor.
 *
 * Lines printed (ratio = value / baseline_value, lower is better):
 *   idle        ns_per_iter   median empty-loop iteration vs the best round:
 *                             a ratio well above 1 says the machine was
 *                             noisy during this run.
 *   record      ns_per_event  mprof_becomes(a, b), started, one OS thread,
 *                             64 MiB overwrite-mode trace file, vs the floor
 *                             "rdtsc_store": read the TSC and store 24 bytes
 *                             into a 64 MiB buffer of the same kind (advance
 *                             a pointer, wrap at the end).  Target <= 1.1.
 *   record_off  ns_per_call   mprof_becomes() linked in but not started vs a
 *                             call to an empty out-of-line function.
 *
 * The rounds of candidate and baseline are interleaved (their order flips
 * every round) and the medians reported.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <mprof/unix.h>

#include "bench_util.h"

/* The floor: a ring of 24-byte records in a buffer like mprof's. */
static uint64_t *floor_begin, *floor_end, *floor_pos;

static BENCH_NOINLINE uint64_t loop_floor(uint64_t n) {
  uint64_t *p = floor_pos, *begin = floor_begin, *end = floor_end;
  uint64_t t0 = bench_now_ns();
  for (uint64_t i = 0; i < n; i++) {
    uint32_t a = (uint32_t)(i & 1023) + 1;
    p[0] = bench_ticks();
    p[1] = a;
    p[2] = a + 1;
    p += 3;
    if (BENCH_UNLIKELY(p >= end)) p = begin;
  }
  uint64_t elapsed = bench_now_ns() - t0;
  floor_pos = p;
  return elapsed;
}

typedef uint64_t (*loop_fn)(uint64_t n);

/* Run rounds of a and b interleaved (order flipping each round) after one
 * untimed warm-up of each; store ns per iteration of each round. */
static void compare(loop_fn a, loop_fn b, uint64_t n, int rounds, double *ns_a,
                    double *ns_b) {
  a(n / 4);
  b(n / 4);
  for (int r = 0; r < rounds; r++) {
    if (r % 2 == 0) {
      ns_a[r] = (double)a(n) / (double)n;
      ns_b[r] = (double)b(n) / (double)n;
    } else {
      ns_b[r] = (double)b(n) / (double)n;
      ns_a[r] = (double)a(n) / (double)n;
    }
  }
}

static void print_rounds(const char *what, const double *ns, int rounds) {
  char line[1024];
  int at = snprintf(line, sizeof line, "%-22s", what);
  for (int r = 0; r < rounds && at < (int)sizeof line - 16; r++)
    at += snprintf(line + at, sizeof line - (size_t)at, " %7.3f", ns[r]);
  bench_note("%s", line);
}

int main(int argc, char **argv) {
  bench_args_t args;
  bench_parse_args(argc, argv, &args);
  uint64_t n = args.events;
  int rounds = args.rounds;
  double ns_a[100], ns_b[100], idle[100];

  /* Not started: the "compiled in" cost.  The recorder is idle here. */
  compare(bench_loop_mprof, bench_loop_empty_call, n, rounds, ns_a, ns_b);
  print_rounds("mprof not started", ns_a, rounds);
  print_rounds("empty call", ns_b, rounds);
  double off = bench_median(ns_a, rounds), call = bench_median(ns_b, rounds);

  /* Started: mprof vs the rdtsc + store floor, with an idle round in each
   * round so that the noise line covers the same stretch of time. */
  size_t floor_words = BENCH_BUFFER_SIZE / 8 / 3 * 3;
  floor_begin = bench_map_buffer(args.dir, "mprof-bench-floor", BENCH_BUFFER_SIZE);
  floor_end = floor_begin + floor_words;
  floor_pos = floor_begin;
  const char *path = bench_start_mprof(args.dir, "mprof-bench-record");
  unlink(path); /* the mapping stays until exit */
  bench_loop_idle(n);
  loop_floor(n / 4);
  bench_loop_mprof(n / 4);
  for (int r = 0; r < rounds; r++) {
    idle[r] = (double)bench_loop_idle(n) / (double)n;
    if (r % 2 == 0) {
      ns_a[r] = (double)bench_loop_mprof(n) / (double)n;
      ns_b[r] = (double)loop_floor(n) / (double)n;
    } else {
      ns_b[r] = (double)loop_floor(n) / (double)n;
      ns_a[r] = (double)bench_loop_mprof(n) / (double)n;
    }
  }
  uint64_t discarded = mprof_discarded();
  mprof_unix_stop();
  print_rounds("idle loop", idle, rounds);
  print_rounds("mprof_becomes", ns_a, rounds);
  print_rounds("rdtsc + 24-byte store", ns_b, rounds);
  if (discarded)
    bench_note("warning: %llu events discarded", (unsigned long long)discarded);

  double idle_best = bench_min(idle, rounds);
  double idle_median = bench_median(idle, rounds);
  bench_json("idle", "ns_per_iter", idle_median, "idle_best", idle_best);
  bench_json("record", "ns_per_event", bench_median(ns_a, rounds),
             "rdtsc_store", bench_median(ns_b, rounds));
  bench_json("record_off", "ns_per_call", off, "empty_call", call);
  return 0;
}
