/* trace_gen.c -- record a known pattern into a trace file, for the tests
 * that read traces back with other tools (babeltrace2, mprof, install).
 *
 *   trace_gen OUT MODE SIZE ROUNDS THREADS
 *
 * MODE is overwrite or discard.  Each OS thread runs ROUNDS rounds of a
 * small async story of 15 events (create, label, switch, try_read, signal,
 * resolve, read, counters, becomes, fail, suspend).  Prints "events N" (all
 * events attempted) and "discarded N" on stdout.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mprof.h"
#include "mprof/unix.h"

static long rounds;
static mprof_counter_t bytes_counter;
static uint64_t discarded_total;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* One round: 15 events. */
static void one_round(long i) {
  uint64_t task = mprof_create(MPROF_TASK);
  mprof_label(task, i % 2 ? "odd \"request\"" : "even\trequest");
  mprof_switch(task);
  uint64_t wait = mprof_create(MPROF_WAIT);
  mprof_try_read(wait);
  mprof_signal(wait);
  mprof_resolve(wait);
  mprof_read(wait);
  mprof_counter_increase(bytes_counter, i);
  mprof_counter_value(bytes_counter, (int64_t)i << 33);
  uint64_t bind = mprof_create(MPROF_BIND);
  mprof_becomes(bind, wait);
  mprof_fail(task, "failed");
  mprof_should_resolve(task);
  mprof_suspend();
}

static void *run(void *arg) {
  (void)arg;
  for (long i = 0; i < rounds; i++) one_round(i);
  pthread_mutex_lock(&lock);
  discarded_total += mprof_discarded();
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: trace_gen OUT MODE SIZE ROUNDS THREADS\n");
    return 2;
  }
  mprof_unix_options_t options;
  memset(&options, 0, sizeof options);
  options.path = argv[1];
  options.ring_mode =
      strcmp(argv[2], "discard") == 0 ? MPROF_RING_DISCARD : MPROF_RING_OVERWRITE;
  options.size = strtoul(argv[3], NULL, 0);
  rounds = strtol(argv[4], NULL, 0);
  int threads = atoi(argv[5]);
  int err = mprof_unix_start(&options);
  if (err) {
    fprintf(stderr, "trace_gen: %s: %s\n", argv[1], mprof_strerror(err));
    return 1;
  }
  bytes_counter = mprof_counter_make("bytes");
  pthread_t ids[64];
  for (int t = 0; t < threads && t < 64; t++) pthread_create(&ids[t], NULL, run, NULL);
  for (int t = 0; t < threads && t < 64; t++) pthread_join(ids[t], NULL);
  mprof_unix_stop();
  printf("events %ld\ndiscarded %llu\n", 15 * rounds * threads + 1,
         (unsigned long long)discarded_total);
  return 0;
}
