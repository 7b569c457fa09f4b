/* consumer.c -- a program built against the installed mprof package, with
 * no tracing code of its own: MPROF_TRACE starts recording. */
#include <stdio.h>

#include <mprof.h>

int main(void) {
  uint64_t task = mprof_named_task("installed consumer");
  mprof_switch(task);
  mprof_resolve(task);
  printf("consumer ran, tracing %s\n", mprof_is_started() ? "on" : "off");
  return 0;
}
