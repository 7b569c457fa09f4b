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
 * Within each round the loops run by turns in short chunks
 * (bench_interleave()); the medians of the rounds are reported.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mprof/unix.h>

#include "bench_util.h"

static bench_floor_t floor_ring;

static uint64_t loop_floor(uint64_t n) {
  return bench_loop_floor(&floor_ring, n);
}

int main(int argc, char **argv) {
  bench_args_t args;
  bench_parse_args(argc, argv, &args);
  uint64_t n = args.events;
  int rounds = args.rounds;
  double ns_a[BENCH_MAX_ROUNDS], ns_b[BENCH_MAX_ROUNDS], idle[BENCH_MAX_ROUNDS];

  /* Not started: the "compiled in" cost.  The recorder is idle here. */
  bench_compare(bench_loop_mprof, bench_loop_empty_call, n, rounds, ns_a, ns_b);
  bench_note_rounds("mprof not started", ns_a, rounds);
  bench_note_rounds("empty call", ns_b, rounds);
  bench_note_paired("record_off", ns_a, ns_b, rounds);
  double off = bench_median(ns_a, rounds), call = bench_median(ns_b, rounds);

  /* Started: mprof vs the rdtsc + store floor, with the idle loop in the
   * same turns, so that the noise line covers the same stretch of time. */
  bench_floor_init(
      &floor_ring,
      bench_map_buffer(args.dir, "mprof-bench-floor", BENCH_BUFFER_SIZE),
      BENCH_BUFFER_SIZE);
  const char *path = bench_start_mprof(args.dir, "mprof-bench-record");
  unlink(path); /* the mapping stays until exit */
  bench_loop_fn loops[3] = {bench_loop_idle, bench_loop_mprof, loop_floor};
  double ns[3][BENCH_MAX_ROUNDS];
  bench_interleave(loops, 3, n, rounds, ns);
  memcpy(idle, ns[0], sizeof idle);
  memcpy(ns_a, ns[1], sizeof ns_a);
  memcpy(ns_b, ns[2], sizeof ns_b);
  uint64_t discarded = mprof_discarded();
  mprof_unix_stop();
  bench_note_rounds("idle loop", idle, rounds);
  bench_note_rounds("mprof_becomes", ns_a, rounds);
  bench_note_rounds("rdtsc + 24-byte store", ns_b, rounds);
  bench_note_paired("record", ns_a, ns_b, rounds);
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
