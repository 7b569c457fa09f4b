/* exit_code.c -- a program traced only through MPROF_TRACE (no tracing
 * code but a few events), for the faults-at-start test: prints whether it
 * is traced and exits with code 7, traced or not.  With an argument, it
 * is the task's label and failure reason (for the escaping test). */
#include <stdio.h>

#include "mprof.h"

int main(int argc, char **argv) {
  uint64_t task = mprof_create(MPROF_TASK);
  mprof_label(task, argc > 1 ? argv[1] : "exit_code");
  if (argc > 1) mprof_fail(task, argv[1]);
  mprof_resolve(task);
  printf("ran, %s\n", mprof_is_started() ? "traced" : "untraced");
  return 7;
}
