/* fork_env.c -- a program with no tracing code but labels, started under
 * MPROF_TRACE by test_env_fork.sh: it forks, and parent and child each
 * label a thread.  Prints the child's pid. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mprof.h"

int main(void) {
  mprof_label(mprof_create(MPROF_TASK), "parent before fork");
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    mprof_label(mprof_create(MPROF_TASK), "child after fork");
    _exit(0);
  }
  int status;
  waitpid(child, &status, 0);
  mprof_label(mprof_create(MPROF_TASK), "parent after fork");
  printf("child %ld\n", (long)child);
  return 0;
}
