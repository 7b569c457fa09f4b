/* zoo_spin.h -- what the zoo's programs that block their loop share: a
 * busy wait, the callback that computes on the loop instead of handing
 * the work to the thread pool. */
#ifndef ZOO_SPIN_H
#define ZOO_SPIN_H

#include <time.h>

/* Compute (spin) for ms milliseconds without returning. */
static inline void zoo_spin_ms(int ms) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do clock_gettime(CLOCK_MONOTONIC, &now);
  while ((now.tv_sec - start.tv_sec) * 1000 +
             (now.tv_nsec - start.tv_nsec) / 1000000 <
         ms);
}

#endif
