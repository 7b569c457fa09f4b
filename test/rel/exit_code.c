/* exit_code.c -- a program traced only through MPROF_TRACE (no tracing
 * code but a few events), for the faults-at-start test: prints whether it
 * is traced and exits with code 7, traced or not. */
#include <stdio.h>

#include "mprof.h"

int main(void) {
  uint64_t task = mprof_create(MPROF_TASK);
  mprof_label(task, "exit_code");
  mprof_resolve(task);
  printf("ran, %s\n", mprof_is_started() ? "traced" : "untraced");
  return 7;
}
