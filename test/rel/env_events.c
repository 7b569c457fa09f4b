/* env_events.c -- a program traced only through the environment
 * (MPROF_TRACE, MPROF_MODE, MPROF_SIZE, ...), for env_mode.sh: records
 * counter "n" = 0, 1, ... COUNT - 1, far more than a small ring holds.
 *
 *   MPROF_TRACE=T env_events COUNT */
#include <stdio.h>
#include <stdlib.h>

#include "mprof.h"

int main(int argc, char **argv) {
  if (argc != 2) return fputs("usage: env_events COUNT\n", stderr), 2;
  long count = atol(argv[1]);
  mprof_counter_t n = mprof_counter_make("n");
  for (long i = 0; i < count; i++) mprof_counter_value(n, i);
  return 0;
}
