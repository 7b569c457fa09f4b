/* bench_threads.c -- aggregate recording rate of N OS threads, each
 * recording into its own stream of one shared trace.
 *
 * Lines printed, for N = 1, 2 and the number of online CPUs (each N once):
 *   threads  events_per_s_nN  aggregate events/s of N threads, each recording
 *                             the same number of events, timed from a common
 *                             start barrier to the last thread's end, vs
 *                             "Nx_one_thread": N times the rate of one
 *                             recording thread measured in the same rounds.
 *                             ratio = value / baseline_value, higher is
 *                             better; target >= 0.9.  Only N <= cores is
 *                             meaningful: with more threads than cores the
 *                             ratio is about cores / N by construction.
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

#define MAX_THREADS 256

typedef struct run_s {
  pthread_barrier_t start, done;
  uint64_t events;
} run_t;

static void *worker(void *arg) {
  run_t *run = arg;
  bench_loop_mprof(run->events / 64); /* take a stream, warm up */
  pthread_barrier_wait(&run->start);
  bench_loop_mprof(run->events);
  pthread_barrier_wait(&run->done);
  return NULL;
}

/* Aggregate events per second of n threads recording `events` each. */
static double run_threads(int n, uint64_t events) {
  run_t run;
  pthread_t threads[MAX_THREADS];
  run.events = events;
  pthread_barrier_init(&run.start, NULL, (unsigned)n + 1);
  pthread_barrier_init(&run.done, NULL, (unsigned)n + 1);
  for (int i = 0; i < n; i++) {
    int err = pthread_create(&threads[i], NULL, worker, &run);
    if (err) {
      bench_note("pthread_create: %s", strerror(err));
      exit(1);
    }
  }
  pthread_barrier_wait(&run.start);
  uint64_t t0 = bench_now_ns();
  pthread_barrier_wait(&run.done);
  uint64_t elapsed = bench_now_ns() - t0;
  for (int i = 0; i < n; i++) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&run.start);
  pthread_barrier_destroy(&run.done);
  return (double)n * (double)events * 1e9 / (double)elapsed;
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
    bench_note("only %ld CPU online: the multi-thread lines say nothing",
               cpus);

  const char *path = bench_start_mprof(args.dir, "mprof-bench-threads");
  unlink(path);
  int rounds = args.rounds;
  double one[100], rate[3][100];
  run_threads(1, args.events / 4);
  for (int r = 0; r < rounds; r++) {
    /* The one-thread baseline first or last, alternately. */
    if (r % 2 == 0) one[r] = run_threads(1, args.events);
    for (int i = 0; i < k; i++) {
      int c = r % 2 ? k - 1 - i : i;
      rate[c][r] = run_threads(counts[c], args.events);
    }
    if (r % 2 == 1) one[r] = run_threads(1, args.events);
  }
  mprof_unix_stop();

  double base = bench_median(one, rounds);
  bench_note("one thread: %.1f M events/s (median of %d)", base / 1e6, rounds);
  for (int i = 0; i < k; i++) {
    char metric[64], baseline[64];
    double value = bench_median(rate[i], rounds);
    bench_note("%d threads: %.1f M events/s aggregate%s", counts[i],
               value / 1e6, counts[i] > cpus ? " (more threads than CPUs)" : "");
    snprintf(metric, sizeof metric, "events_per_s_n%d", counts[i]);
    snprintf(baseline, sizeof baseline, "%dx_one_thread", counts[i]);
    bench_json("threads", metric, value, baseline, base * counts[i]);
  }
  return 0;
}
