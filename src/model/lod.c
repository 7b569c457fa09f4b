/* lod.c -- level of detail: what to draw in a time window, in work bounded
 * by the number of pixels, not the number of events.
 *
 * Threads and running spans of a row, and arrows, are arrays sorted by
 * start with a prefix maximum of their ends.  A window query binary-searches
 * the first item that reaches into the window, emits it, and jumps past
 * everything that starts within the same pixel or under the item itself,
 * searching forward in steps that double: each emitted item costs O(log d)
 * for d items passed over, and the caller bounds how many it takes.
 * Counters keep a pyramid of block minima and maxima, so a pixel column's
 * range costs O(64 * levels) whatever the samples.
 */
#include "model_internal.h"

/* --- Sorted-array windows ------------------------------------------------- */

/* Where a column of int64 times comes from: a plain array, or one time of
 * the model's records, read through the accessors. */
typedef enum column_kind_e {
  COLUMN_PLAIN,
  COLUMN_RUNNING_START,
  COLUMN_ARROW_TIME,
  COLUMN_SAMPLE_TIME
} column_kind_t;

/* A column of int64 times: element i is plain[i], or the time of record
 * first + i of the view. */
typedef struct column_s {
  column_kind_t kind;
  const int64_t *plain;
  const mprof_model_view_t *view;
  size_t first;
} column_t;

static int64_t at(column_t c, size_t i) {
  switch (c.kind) {
  case COLUMN_RUNNING_START:
    return mprof_running_at(c.view, c.first + i).start_ns;
  case COLUMN_ARROW_TIME: return mprof_arrow_at(c.view, c.first + i).time_ns;
  case COLUMN_SAMPLE_TIME: return mprof_sample_at(c.view, c.first + i).time_ns;
  case COLUMN_PLAIN: break;
  }
  return c.plain[i];
}

/* First index in [lo, hi) whose value (nondecreasing) is at least t. */
static size_t first_at_least(column_t c, size_t lo, size_t hi, int64_t t) {
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (at(c, mid) < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The same, searching forward from lo in steps that double: O(log d) for
 * an answer d items on, and those items are near each other in memory
 * (the next item of a window is usually close, the row is long). */
static size_t gallop(column_t c, size_t lo, size_t hi, int64_t t) {
  size_t b = lo, step = 1;
  while (b < hi && at(c, b) < t) {
    lo = b + 1;
    b = hi - lo > step ? lo + step : hi;
    step *= 2;
  }
  return first_at_least(c, lo, b, t);
}

static column_t plain(const int64_t *array) {
  return (column_t){COLUMN_PLAIN, array, NULL, 0};
}

/* The times of the view's records of one kind, from record first on. */
static column_t records(column_kind_t kind, const mprof_model_view_t *view,
                        size_t first) {
  return (column_t){kind, NULL, view, first};
}

/* Items [lo, hi) of a start-sorted array that meet [t0, t1), merged so no
 * two begin within one pixel (or under an earlier item).  maxend holds the
 * prefix maximum of ends.  ids maps array positions to the indexes
 * reported (NULL: the position itself).  Inlined into each query, where
 * its columns' kinds are constants: a read then costs no switch, in the
 * loops that pass over a row's spans. */
static inline __attribute__((always_inline)) size_t
window(column_t start, column_t maxend, const uint32_t *ids, size_t lo,
       size_t hi, int64_t t0, int64_t t1, int64_t ns_per_pixel,
       mprof_lod_item_t *items, size_t max) {
  if (ns_per_pixel < 1) ns_per_pixel = 1;
  size_t n = 0;
  size_t i = first_at_least(maxend, lo, hi, t0);
  while (i < hi && n < max) {
    int64_t begin = at(start, i);
    if (begin >= t1) break;
    int64_t pixel_end =
        begin > INT64_MAX - ns_per_pixel ? INT64_MAX : begin + ns_per_pixel;
    int64_t reach = at(maxend, i);
    int64_t covered = reach > pixel_end ? reach : pixel_end;
    size_t next = gallop(start, i + 1, hi, covered);
    items[n].start_ns = begin;
    items[n].end_ns = at(maxend, next - 1);
    items[n].first = ids ? ids[i] : (uint32_t)i;
    items[n].count = (uint32_t)(next - i);
    n++;
    i = next;
  }
  return n;
}

size_t mprof_model_row_threads(const mprof_model_t *m, uint32_t row, int64_t t0,
                               int64_t t1, int64_t ns_per_pixel,
                               mprof_lod_item_t *items, size_t max) {
  if (!m->finished || row >= m->view.row_count) return 0;
  return window(plain(m->row_thread_start), plain(m->row_thread_maxend),
                m->row_threads, m->row_first[row], m->row_first[row + 1], t0,
                t1, ns_per_pixel, items, max);
}

size_t mprof_model_row_running(const mprof_model_t *m, uint32_t row, int64_t t0,
                               int64_t t1, int64_t ns_per_pixel,
                               mprof_lod_item_t *items, size_t max) {
  if (!m->finished || row >= m->view.row_count) return 0;
  return window(records(COLUMN_RUNNING_START, &m->view, 0),
                plain(m->running_maxend), NULL, m->row_running_first[row],
                m->row_running_first[row + 1], t0, t1, ns_per_pixel, items,
                max);
}

size_t mprof_model_arrows(const mprof_model_t *m, int64_t t0, int64_t t1,
                          int64_t ns_per_pixel, mprof_lod_item_t *items,
                          size_t max) {
  if (!m->finished || m->view.arrow_count == 0) return 0;
  column_t time = records(COLUMN_ARROW_TIME, &m->view, 0);
  return window(time, time, NULL, 0, m->view.arrow_count, t0, t1, ns_per_pixel,
                items, max);
}

/* --- Counter pyramids ----------------------------------------------------- */

/* A counter's samples: the view's samples from first on. */
typedef struct samples_s {
  const mprof_model_view_t *view;
  size_t first;
} samples_t;

static int64_t sample_value(samples_t s, size_t x) {
  return mprof_sample_at(s.view, s.first + x).value;
}

/* Level `level` (-1: the samples themselves) entry x's min and max. */
static void entry(const pyramid_t *p, samples_t s, int level, size_t x,
                  int64_t *min, int64_t *max) {
  int64_t lo, hi;
  if (level < 0) {
    lo = hi = sample_value(s, x);
  } else {
    lo = p->min[level][x];
    hi = p->max[level][x];
  }
  if (lo < *min) *min = lo;
  if (hi > *max) *max = hi;
}

/* Min and max of entries [i, j) of a level, using coarser levels for the
 * whole blocks inside. */
static void range_minmax(const pyramid_t *p, samples_t s, int level, size_t i,
                         size_t j, int64_t *min, int64_t *max) {
  const size_t f = MODEL_PYRAMID_FANOUT;
  if (level + 1 < MODEL_PYRAMID_LEVELS && p->min[level + 1]) {
    size_t bi = (i + f - 1) / f, bj = j / f;
    if (bi < bj) {
      for (size_t x = i; x < bi * f; x++) entry(p, s, level, x, min, max);
      for (size_t x = bj * f; x < j; x++) entry(p, s, level, x, min, max);
      range_minmax(p, s, level + 1, bi, bj, min, max);
      return;
    }
  }
  for (size_t x = i; x < j; x++) entry(p, s, level, x, min, max);
}

/* Build the pyramid over a counter's samples, and give the counter the
 * range of its values and 0 (from the pyramid's top level: one pass over
 * the samples for both). */
static int pyramid_build(pyramid_t *p, samples_t s, size_t n,
                         mprof_counter_series_t *counter) {
  const size_t f = MODEL_PYRAMID_FANOUT;
  size_t below = n;
  int top = -1;
  for (int level = 0; level < MODEL_PYRAMID_LEVELS && below > f; level++) {
    size_t count = (below + f - 1) / f;
    p->min[level] = malloc(count * sizeof *p->min[level]);
    p->max[level] = malloc(count * sizeof *p->max[level]);
    if (!p->min[level] || !p->max[level]) return MPROF_ENOMEM;
    p->count[level] = count;
    for (size_t b = 0; b < count; b++) {
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      size_t end = (b + 1) * f < below ? (b + 1) * f : below;
      for (size_t x = b * f; x < end; x++) entry(p, s, level - 1, x, &lo, &hi);
      p->min[level][b] = lo;
      p->max[level][b] = hi;
    }
    below = count;
    top = level;
  }
  counter->min_value = counter->max_value = 0;
  for (size_t x = 0; x < below; x++)
    entry(p, s, top, x, &counter->min_value, &counter->max_value);
  return 0;
}

int mprof_model_counter_range(const mprof_model_t *m, uint32_t counter,
                              int64_t t0, int64_t t1, uint32_t columns,
                              int64_t *min, int64_t *max) {
  if (!m->finished || counter >= m->view.counter_count || columns == 0 ||
      columns > 65536 || t1 <= t0)
    return MPROF_EINVAL;
  const mprof_counter_series_t *c = &m->counters[counter];
  samples_t s = {&m->view, c->first_sample};
  const pyramid_t *p = &m->pyramids[counter];
  size_t n = c->sample_count;
  column_t time = records(COLUMN_SAMPLE_TIME, &m->view, c->first_sample);
  double width = (double)(t1 - t0) / columns;
  size_t i = first_at_least(time, 0, n, t0);
  for (uint32_t col = 0; col < columns; col++) {
    int64_t b = col + 1 == columns ? t1 : t0 + (int64_t)(width * (col + 1));
    /* samples [i, j) fall in the column; the one before i carries in */
    size_t j = gallop(time, i, n, b);
    min[col] = max[col] = i > 0 ? sample_value(s, i - 1) : 0;
    range_minmax(p, s, -1, i, j, &min[col], &max[col]);
    i = j;
  }
  return 0;
}

/* --- Building and freeing the indexes ------------------------------------- */

int mprof__lod_index(mprof_model_t *m) {
  m->pyramids = calloc(m->view.counter_count ? m->view.counter_count : 1,
                       sizeof *m->pyramids);
  if (!m->pyramids) return MPROF_ENOMEM;
  for (size_t c = 0; c < m->view.counter_count; c++) {
    samples_t s = {&m->view, m->counters[c].first_sample};
    if (pyramid_build(&m->pyramids[c], s, m->counters[c].sample_count,
                      &m->counters[c]))
      return MPROF_ENOMEM;
  }
  return 0;
}

void mprof__lod_free(mprof_model_t *m) {
  if (m->pyramids)
    for (size_t c = 0; c < m->view.counter_count; c++)
      for (int level = 0; level < MODEL_PYRAMID_LEVELS; level++) {
        free(m->pyramids[c].min[level]);
        free(m->pyramids[c].max[level]);
      }
  free(m->pyramids);
}
