/* static_hello.c -- a program linked statically: no LD_PRELOAD reaches
 * it, so `mprof record` must say so and run it untraced. */
#include <stdio.h>

int main(void) {
  printf("hello from a static program\n");
  return 3;
}
