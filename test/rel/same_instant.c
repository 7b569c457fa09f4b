/* same_instant.c -- a signal heard by a wait that began at its very
 * instant is not a lost wake-up.  With a clock that stands still (every
 * event at one tick), a waiter starts waiting on condition "c", "c" is
 * notified and the waiter resolved; then a second waiter starts waiting
 * and is never resolved.  Writes the trace to PATH, for test_report.sh:
 * the second wait is stalled, and no wake-up was lost.
 *
 *   same_instant PATH */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "in_memory.h"
#include "mprof/read.h"

static uint64_t still_clock(void) { return 1000; }

int main(int argc, char **argv) {
  if (argc != 2) return fputs("usage: same_instant PATH\n", stderr), 2;
  mprof_config_t settings;
  memset(&settings, 0, sizeof settings);
  settings.size = 1u << 16;
  settings.clock = still_clock;
  settings.clock_freq_hz = 1000000000u;
  void *buffer = in_memory_start_with(settings);
  if (!buffer) return fputs("same_instant: start failed\n", stderr), 1;
  uint64_t c = mprof_named_condition("c");
  uint64_t heard = mprof_condition_wait(c, "heard");
  mprof_condition_notify(c);
  mprof_resolve(heard);
  mprof_condition_wait(c, "never woken");
  mprof_stop();
  mprof_trace_t *trace;
  int failed = mprof_trace_open_memory(buffer, settings.size, argv[1], NULL,
                                       NULL, &trace) ||
               mprof_trace_save(trace, argv[1]);
  if (!failed) mprof_trace_close(trace);
  free(buffer);
  if (failed)
    fprintf(stderr, "same_instant: %s: cannot write the trace\n", argv[1]);
  return failed;
}
