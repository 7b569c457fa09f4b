/* uv_inside.c -- a program with a uv_run of its own, exported as a
 * program that has libuv linked into it exports libuv's (Debian's node):
 * its calls never reach the shim, so `mprof record` must say so and run
 * it untraced. */
#include <stdio.h>

int uv_run(void *loop, int mode);

int uv_run(void *loop, int mode) {
  (void)loop;
  return mode;
}

int main(void) {
  printf("uv_run says %d\n", uv_run(NULL, 4));
  return 0;
}
