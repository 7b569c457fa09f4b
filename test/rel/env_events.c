/* env_events.c -- a program traced only through the environment
 * (MPROF_TRACE, MPROF_MODE, MPROF_SIZE, ...), for env_mode.sh: records
 * counter "n" = 0, 1, ... COUNT - 1, far more than a small ring holds,
 * then gives a task LABELS labels of their own text (new strings, for the
 * names area: in discard mode, after the drops).
 *
 *   MPROF_TRACE=T env_events COUNT [LABELS] */
#include <stdio.h>
#include <stdlib.h>

#include "mprof.h"

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3)
    return fputs("usage: env_events COUNT [LABELS]\n", stderr), 2;
  long count = atol(argv[1]), labels = argc > 2 ? atol(argv[2]) : 0;
  mprof_counter_t n = mprof_counter_make("n");
  for (long i = 0; i < count; i++) mprof_counter_value(n, i);
  uint64_t task = mprof_create(MPROF_TASK);
  for (long i = 0; i < labels; i++) {
    char text[32];
    snprintf(text, sizeof text, "label %ld", i);
    mprof_label(task, text);
  }
  return 0;
}
