/* test_stream_sketch.c -- the streaming analysis's sketch of request
 * lives (src/model/stream_settle.c): exact while a kind has at most
 * STREAM_EXACT ended requests; past that, each of p50, p90 and p99 within
 * 1/128 below the exact nearest-rank percentile (the model's,
 * mprof__percentiles), and the maximum exact (docs/analysis.md,
 * "Streaming"). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/model/stream_internal.h"

static int failed;

/* Values spread over many powers of two, as lives are: a deterministic
 * generator (xorshift) shifted by a random amount. */
static int64_t next_value(uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return (int64_t)((x >> 20) >> (x % 40));
}

/* n values into a sketch and a plain array; compare. */
static void check(size_t n, uint64_t seed) {
  sketch_t k;
  memset(&k, 0, sizeof k);
  int64_t *all = malloc(n * sizeof *all);
  uint64_t state = seed;
  for (size_t i = 0; i < n; i++) {
    all[i] = next_value(&state);
    if (mprof__sketch_add(&k, all[i])) {
      printf("FAIL: no memory\n");
      exit(1);
    }
  }
  int64_t exact[4], got[4];
  mprof__percentiles(all, n, exact);
  mprof__sketch_percentiles(&k, got);
  for (int q = 0; q < 4; q++) {
    int64_t low =
        q == 3 || n <= STREAM_EXACT ? exact[q] : exact[q] - exact[q] / 128;
    if (got[q] > exact[q] || got[q] < low) {
      printf("FAIL: %zu values, percentile %d: sketch %lld, exact %lld\n", n, q,
             (long long)got[q], (long long)exact[q]);
      failed = 1;
    }
  }
  mprof__sketch_free(&k);
  free(all);
}

int main(void) {
  size_t sizes[] = {1, 100, STREAM_EXACT, STREAM_EXACT + 1, 300000, 1000000};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    for (uint64_t seed = 1; seed <= 3; seed++) check(sizes[i], seed * 7919);
  if (!failed) printf("sketch: within 1/128 below, maximum exact\n");
  return failed;
}
