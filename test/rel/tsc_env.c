/* tsc_env.c -- prints the MPROF_TSC_HZ it was given ("unset" if none), for
 * clock.sh to learn what `mprof record` passes on to its programs.  It
 * links nothing of mprof's: a program linked with libmprof must not run
 * under the shim, which records too. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  const char *hz = getenv("MPROF_TSC_HZ");
  printf("%s\n", hz ? hz : "unset");
  return 0;
}
