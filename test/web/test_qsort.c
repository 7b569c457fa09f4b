/* test_qsort.c -- the qsort() of the WebAssembly build (web/wasm/qsort.c),
 * linked here in place of the C library's: arrays of every length up to
 * a few runs and merges, and long ones, of 8-byte keys and of 13-byte
 * records (moved byte by byte), with many ties, against an insertion
 * sort, the oracle: the same order, ties kept in their order (stable);
 * and in place, without memory for the merge buffer, the same keys in
 * the same order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* A record of 13 bytes: a key, then its place in the input. */
typedef struct record_s {
  uint8_t key;
  uint32_t place;
  uint8_t pad[8];
} __attribute__((packed)) record_t;

static int by_key(const void *a, const void *b) {
  const record_t *x = a, *y = b;
  return (x->key > y->key) - (x->key < y->key);
}

static int by_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The oracle: a stable insertion sort. */
static void insertion(record_t *r, size_t n) {
  for (size_t i = 1; i < n; i++) {
    record_t v = r[i];
    size_t j = i;
    for (; j > 0 && by_key(&r[j - 1], &v) > 0; j--) r[j] = r[j - 1];
    r[j] = v;
  }
}

static uint32_t next(uint32_t *seed) {
  return *seed = *seed * 1103515245u + 12345u;
}

/* n records of keys below `keys`, sorted by qsort() and by the oracle:
 * the same records in the same order if stable, else the same keys. */
static void check_records(size_t n, uint32_t *seed, unsigned keys, int stable) {
  record_t *mine = malloc((n + 1) * sizeof *mine);
  record_t *oracle = malloc((n + 1) * sizeof *oracle);
  for (size_t i = 0; i < n; i++)
    mine[i] = (record_t){(uint8_t)(next(seed) >> 16) % keys, (uint32_t)i, {0}};
  memcpy(oracle, mine, n * sizeof *mine);
  qsort(mine, n, sizeof *mine, by_key);
  insertion(oracle, n);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(mine[i].key, oracle[i].key);
    if (stable) assert_int_equal(mine[i].place, oracle[i].place);
  }
  free(mine);
  free(oracle);
}

static void sorts_records_stably(void **state) {
  (void)state;
  uint32_t seed = 7;
  for (size_t n = 0; n < 3000; n += n < 100 ? 1 : 997)
    check_records(n, &seed, 16, 1);
}

static void sorts_words(void **state) {
  (void)state;
  uint32_t seed = 11;
  size_t n = 100000;
  uint64_t *v = malloc(n * sizeof *v);
  for (size_t i = 0; i < n; i++)
    v[i] = i % 3 ? (uint64_t)next(&seed) << 20 | (next(&seed) & 255) : i;
  qsort(v, n, sizeof *v, by_u64);
  for (size_t i = 1; i < n; i++) assert_true(v[i - 1] <= v[i]);
  free(v);
}

/* qsort.c's malloc here (test/web/CMakeLists.txt): refused while
 * refuse_buffer is set. */
static int refuse_buffer;

void *qsort_test_malloc(size_t size);
void *qsort_test_malloc(size_t size) {
  return refuse_buffer ? NULL : malloc(size);
}

/* Sorted in place (a heap sort) when the merge buffer cannot be had. */
static void sorts_without_memory(void **state) {
  (void)state;
  uint32_t seed = 3;
  refuse_buffer = 1;
  for (size_t n = 0; n < 2000; n += n < 40 ? 1 : 331)
    check_records(n, &seed, 256, 0);
  refuse_buffer = 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sorts_records_stably),
      cmocka_unit_test(sorts_words),
      cmocka_unit_test(sorts_without_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
