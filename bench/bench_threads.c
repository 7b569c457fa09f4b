/* bench_threads.c -- aggregate recording rate of N OS threads, each
 * recording into its own stream of one shared trace.
 *
 * Lines printed, for N = 1, 2 and the number of online CPUs (each N once;
 * ratio = value / baseline_value, higher is better):
 *   threads        events_per_s_nN  aggregate events/s of N threads, each
 *                                   recording the same number of events with
 *                                   mprof_becomes() from a common start
 *                                   barrier, timed from the first thread's
 *                                   start to the last thread's end, vs
 *                                   "Nx_one_thread": N times the rate of one
 *                                   recording thread in the same rounds.
 *                                   Target >= 0.9.
 *   threads_floor  events_per_s_nN  the same for the rdtsc + 24-byte store
 *                                   floor (each thread its own part of one
 *                                   64 MiB buffer): how far the machine
 *                                   itself scales.  A "threads" ratio as low
 *                                   as this one is the machine's limit, not
 *                                   mprof's (a VM whose vCPUs share a core,
 *                                   or whose TSC reads do not scale).
 * Only N <= CPUs is meaningful: with more threads than CPUs the ratio is
 * about CPUs / N by construction.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mprof/unix.h>

#include "bench_util.h"

#define MAX_THREADS 64

static uint8_t *floor_buffer;

typedef struct run_s {
  pthread_barrier_t start;
  uint64_t events;
  int use_floor;
  int threads;
} run_t;

typedef struct worker_s {
  run_t *run;
  int index;
  uint64_t begin, end; /* CLOCK_MONOTONIC ns around the timed loop */
} worker_t;

static void *worker(void *arg) {
  worker_t *w = arg;
  run_t *run = w->run;
  bench_floor_t ring;
  size_t share = BENCH_BUFFER_SIZE / (size_t)run->threads / 4096 * 4096;
  bench_floor_init(&ring, floor_buffer + share * (size_t)w->index, share);
  /* Take a stream (mprof) and warm up. */
  if (run->use_floor)
    bench_loop_floor(&ring, run->events / 64);
  else
    bench_loop_mprof(run->events / 64);
  pthread_barrier_wait(&run->start);
  w->begin = bench_now_ns();
  if (run->use_floor)
    bench_loop_floor(&ring, run->events);
  else
    bench_loop_mprof(run->events);
  w->end = bench_now_ns();
  return NULL;
}

/* Aggregate events per second of n threads recording `events` each: from
 * the first thread's start to the last one's end, each read by the workers
 * themselves (the main thread may be scheduled out at any point). */
static double run_threads(int n, uint64_t events, int use_floor) {
  run_t run;
  pthread_t threads[MAX_THREADS];
  worker_t workers[MAX_THREADS];
  run.events = events;
  run.use_floor = use_floor;
  run.threads = n;
  pthread_barrier_init(&run.start, NULL, (unsigned)n);
  for (int i = 0; i < n; i++) {
    workers[i].run = &run;
    workers[i].index = i;
    int err = pthread_create(&threads[i], NULL, worker, &workers[i]);
    if (err) {
      bench_note("pthread_create: %s", strerror(err));
      exit(1);
    }
  }
  uint64_t begin = UINT64_MAX, end = 0;
  for (int i = 0; i < n; i++) {
    pthread_join(threads[i], NULL);
    if (workers[i].begin < begin) begin = workers[i].begin;
    if (workers[i].end > end) end = workers[i].end;
  }
  pthread_barrier_destroy(&run.start);
  return (double)n * (double)events * 1e9 / (double)(end - begin);
}

static void report(const char *bench, const char *what, int threads,
                   double *rates, double one, int rounds, long cpus) {
  char metric[64], baseline[64];
  double value = bench_median(rates, rounds);
  bench_note("%s, %d threads: %6.1f M events/s aggregate, %.2f x one "
             "thread%s",
             what, threads, value / 1e6, value / one,
             threads > cpus ? " (more threads than CPUs)" : "");
  snprintf(metric, sizeof metric, "events_per_s_n%d", threads);
  snprintf(baseline, sizeof baseline, "%dx_one_thread", threads);
  bench_json(bench, metric, value, baseline, one * threads);
}

int main(int argc, char **argv) {
  bench_args_t args;
  bench_parse_args(argc, argv, &args);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int counts[3], k = 0;
  int wanted[3] = {1, 2, args.threads > 0 ? args.threads : (int)cpus};
  for (int i = 0; i < 3; i++) {
    int dup = wanted[i] < 1 || wanted[i] > MAX_THREADS;
    for (int j = 0; j < k; j++) dup |= counts[j] == wanted[i];
    if (!dup) counts[k++] = wanted[i];
  }
  if (cpus < 2)
    bench_note("only %ld CPU online: the multi-thread lines say nothing", cpus);

  floor_buffer =
      bench_map_buffer(args.dir, "mprof-bench-threads", BENCH_BUFFER_SIZE);
  const char *path = bench_start_mprof(args.dir, "mprof-bench-threads");
  unlink(path);
  int rounds = args.rounds;
  double one[2][BENCH_MAX_ROUNDS], rate[2][3][BENCH_MAX_ROUNDS];
  run_threads(1, args.events / 4, 0);
  run_threads(1, args.events / 4, 1);
  for (int r = 0; r < rounds; r++) {
    /* mprof then floor, or floor then mprof; within each, the one-thread
     * baseline first or last, alternately. */
    for (int m = 0; m < 2; m++) {
      int use_floor = r % 2 ? 1 - m : m;
      if (r % 2 == 0)
        one[use_floor][r] = run_threads(1, args.events, use_floor);
      for (int i = 0; i < k; i++) {
        int c = r % 2 ? k - 1 - i : i;
        rate[use_floor][c][r] = run_threads(counts[c], args.events, use_floor);
      }
      if (r % 2 == 1)
        one[use_floor][r] = run_threads(1, args.events, use_floor);
    }
  }
  mprof_unix_stop();

  double one_mprof = bench_median(one[0], rounds);
  double one_floor = bench_median(one[1], rounds);
  bench_note("one thread: mprof %.1f M events/s, floor %.1f M events/s",
             one_mprof / 1e6, one_floor / 1e6);
  for (int i = 0; i < k; i++)
    report("threads", "mprof", counts[i], rate[0][i], one_mprof, rounds, cpus);
  for (int i = 0; i < k; i++)
    report("threads_floor", "floor", counts[i], rate[1][i], one_floor, rounds,
           cpus);
  return 0;
}
