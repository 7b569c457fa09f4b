/* uv_check.h -- what the libuv test programs (uv_prog.c, uv_more.c,
 * uv_stress.c) share: CHECK(call) exits 1 with libuv's message if call
 * returns an error. */
#ifndef UV_CHECK_H
#define UV_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    int check_result = (call);                                                 \
    if (check_result < 0) {                                                    \
      fprintf(stderr, "uv test: %s: %s\n", #call, uv_strerror(check_result));  \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#endif /* UV_CHECK_H */
