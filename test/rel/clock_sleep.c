/* clock_sleep.c -- a traced program that sleeps a known time between two
 * events and measures, by CLOCK_MONOTONIC, how long that took: the oracle
 * clock.sh holds the trace's clock to.
 *
 *   MPROF_TRACE=T clock_sleep MS
 *
 * Records counter "slept" = 1, sleeps MS ms, records "slept" = 2, and
 * prints "inner_ns A outer_ns B": the time between the two events is at
 * least A (from after the first call returned to before the second began)
 * and at most B (from before the first began to after the second
 * returned). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mprof.h"

static int64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 2) return fputs("usage: clock_sleep MS\n", stderr), 2;
  long ms = atol(argv[1]);
  struct timespec sleep = {ms / 1000, ms % 1000 * 1000000};
  mprof_counter_t slept = mprof_counter_make("slept");
  int64_t before_first = monotonic_ns();
  mprof_counter_value(slept, 1);
  int64_t after_first = monotonic_ns();
  while (nanosleep(&sleep, &sleep)) continue; /* EINTR: sleep the rest */
  int64_t before_second = monotonic_ns();
  mprof_counter_value(slept, 2);
  int64_t after_second = monotonic_ns();
  printf("inner_ns %" PRId64 " outer_ns %" PRId64 "\n",
         before_second - after_first, after_second - before_first);
  return 0;
}
