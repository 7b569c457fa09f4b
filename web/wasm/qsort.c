/* qsort.c -- the C library's qsort() for the WebAssembly build: a merge
 * sort, stable as glibc's is (the native build's) where it has the memory.
 * wasi-libc's is a smoothsort, which took about 40 % of a window's model
 * in the page (its ids and arrows sorted: docs/web.md): linked first,
 * this one is the one the model calls.
 *
 * Runs of RUN elements are sorted by insertion, then merged in passes
 * between the array and a buffer of its size.  Without memory for the
 * buffer, a heap sort in place (not stable, but never quadratic).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int (*compare_fn)(const void *, const void *);

#define RUN 12

/* Elements of `size` bytes, moved in 8-byte words where both ends allow. */
typedef struct sort_s {
  size_t size;
  int words;
  compare_fn compare;
} sort_t;

static inline void move(const sort_t *s, char *to, const char *from) {
  if (s->size == 8 && s->words) {
    *(uint64_t *)(void *)to = *(const uint64_t *)(const void *)from;
  } else if (s->words) {
    uint64_t *t = (uint64_t *)(void *)to;
    const uint64_t *f = (const uint64_t *)(const void *)from;
    for (size_t i = 0; i < s->size / 8; i++) t[i] = f[i];
  } else {
    memcpy(to, from, s->size);
  }
}

static inline void swap(const sort_t *s, char *a, char *b) {
  if (s->words) {
    uint64_t *x = (uint64_t *)(void *)a, *y = (uint64_t *)(void *)b;
    for (size_t i = 0; i < s->size / 8; i++) {
      uint64_t t = x[i];
      x[i] = y[i];
      y[i] = t;
    }
    return;
  }
  for (size_t i = 0; i < s->size; i++) {
    char t = a[i];
    a[i] = b[i];
    b[i] = t;
  }
}

/* Sort base[0 .. n) by insertion, a run at a time. */
static void sort_runs(const sort_t *s, char *base, size_t n) {
  for (size_t from = 0; from < n; from += RUN) {
    size_t to = n - from < RUN ? n : from + RUN;
    for (size_t i = from + 1; i < to; i++)
      for (size_t j = i; j > from; j--) {
        char *a = base + (j - 1) * s->size, *b = a + s->size;
        if (s->compare(a, b) <= 0) break;
        swap(s, a, b);
      }
  }
}

/* Merge the sorted from[lo .. mid) and from[mid .. hi) into to[lo .. hi),
 * the left one's first where they tie. */
static void merge(const sort_t *s, const char *from, char *to, size_t lo,
                  size_t mid, size_t hi) {
  size_t l = lo, r = mid, size = s->size;
  /* already in order (ids and times mostly come so): one compare, a copy */
  if (mid == hi ||
      s->compare(from + (mid - 1) * size, from + mid * size) <= 0) {
    memcpy(to + lo * size, from + lo * size, (hi - lo) * size);
    return;
  }
  for (size_t o = lo; o < hi; o++) {
    int left = r >= hi ||
               (l < mid && s->compare(from + l * size, from + r * size) <= 0);
    move(s, to + o * size, from + (left ? l++ : r++) * size);
  }
}

/* Sift element at down the heap base[0 .. n). */
static void sift(const sort_t *s, char *base, size_t at, size_t n) {
  for (size_t child; (child = 2 * at + 1) < n; at = child) {
    char *c = base + child * s->size;
    if (child + 1 < n && s->compare(c, c + s->size) < 0) c += s->size, child++;
    if (s->compare(base + at * s->size, c) >= 0) return;
    swap(s, base + at * s->size, c);
  }
}

static void heap_sort(const sort_t *s, char *base, size_t n) {
  for (size_t i = n / 2; i-- > 0;) sift(s, base, i, n);
  for (size_t end = n; end-- > 1;) {
    swap(s, base, base + end * s->size);
    sift(s, base, 0, end);
  }
}

void qsort(void *array, size_t n, size_t size, compare_fn compare) {
  char *base = array;
  if (n < 2 || !size) return;
  char *buffer = n > RUN ? malloc(n * size) : NULL;
  sort_t s = {size, size % 8 == 0 && (uintptr_t)base % 8 == 0, compare};
  if (n > RUN && !buffer) {
    heap_sort(&s, base, n);
    return;
  }
  sort_runs(&s, base, n);
  char *from = base, *to = buffer;
  for (size_t width = RUN; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = n - lo < width ? n : lo + width;
      size_t hi = n - mid < width ? n : mid + width;
      merge(&s, from, to, lo, mid, hi);
    }
    char *t = from;
    from = to;
    to = t;
  }
  if (from != base) memcpy(base, from, n * size);
  free(buffer);
}
