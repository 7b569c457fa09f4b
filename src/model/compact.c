/* compact.c -- the model's compact records: arrows, running spans, bands,
 * labels and samples, each time kept as its low 32 bits beside a table of
 * the high halves by runs of records (mprof_time_highs_t in mprof/model.h
 * says how they are read).  Records are added at the end while events are
 * fed; a pass that reorders an array (the finish's sorts) writes it out,
 * works on that, and makes it anew; the layout's grouping by row puts the
 * running spans' records straight into their new places. */
#include <stdlib.h>

#include "model_internal.h"

/* --- High halves ---------------------------------------------------------- */

static int by_record(mprof__highs_t *h, size_t count);

/* Runs that pass this many and one in MPROF_TIME_RUNS_MOST records so far
 * give way to each record's high half at once (mprof__highs_index() would
 * at the end), so that the runs never hold more memory than that would. */
#define RUNS_KEPT_LEAST 1024

int mprof__highs_add_run(mprof__highs_t *h, size_t i, uint32_t high) {
  if (!h->by_record && h->run_count >= RUNS_KEPT_LEAST &&
      h->run_count > i / MPROF_TIME_RUNS_MOST && by_record(h, i))
    return MPROF_ENOMEM;
  if (h->by_record) {
    if (mprof__grow(&h->record_high, &h->record_cap, i + 1,
                    sizeof *h->record_high))
      return MPROF_ENOMEM;
    h->record_high[i] = high;
    return 0;
  }
  /* run_first keeps one entry more than run_high: the end mark */
  size_t cap = h->run_cap, first_cap = h->run_cap;
  if (mprof__grow(&h->run_high, &cap, h->run_count + 2, sizeof *h->run_high) ||
      mprof__grow(&h->run_first, &first_cap, h->run_count + 2,
                  sizeof *h->run_first))
    return MPROF_ENOMEM;
  h->run_cap = cap;
  h->run_first[h->run_count] = i;
  h->run_high[h->run_count++] = high;
  h->run_first[h->run_count] = SIZE_MAX;
  h->last_tag = (uint64_t)high + 1;
  return 0;
}

/* Forget the runs (their memory too). */
static void runs_free(mprof__highs_t *h) {
  free(h->run_first);
  free(h->run_high);
  h->run_first = NULL;
  h->run_high = NULL;
  h->run_count = h->run_cap = 0;
  h->last_tag = 0;
}

/* Write each of the first count records' high half out of the runs, which
 * are then freed. */
static int by_record(mprof__highs_t *h, size_t count) {
  if (mprof__grow(&h->record_high, &h->record_cap,
                  count > h->expect ? count : h->expect,
                  sizeof *h->record_high))
    return MPROF_ENOMEM;
  size_t r = 0;
  for (size_t i = 0; i < count; i++) {
    while (h->run_first[r + 1] <= i) r++;
    h->record_high[i] = h->run_high[r];
  }
  runs_free(h);
  h->by_record = 1;
  return 0;
}

int mprof__highs_index(mprof__highs_t *h, size_t count) {
  if (h->by_record || count == 0) return 0;
  if (h->run_count > count / MPROF_TIME_RUNS_MOST) return by_record(h, count);
  size_t blocks = (count + MPROF_TIME_BLOCK - 1) >> MPROF_TIME_BLOCK_SHIFT;
  if (mprof__grow(&h->block_run, &h->block_cap, blocks + 1,
                  sizeof *h->block_run))
    return MPROF_ENOMEM;
  size_t r = 0;
  for (size_t b = 0; b < blocks; b++) {
    while (h->run_first[r + 1] <= b << MPROF_TIME_BLOCK_SHIFT) r++;
    h->block_run[b] = (uint32_t)r;
  }
  h->block_run[blocks] = (uint32_t)(h->run_count - 1);
  return 0;
}

void mprof__highs_clear(mprof__highs_t *h, size_t expect) {
  h->expect = expect;
  h->run_count = 0;
  h->last_tag = 0;
  h->by_record = 0;
  free(h->record_high);
  h->record_high = NULL;
  h->record_cap = 0;
}

void mprof__highs_free(mprof__highs_t *h) {
  free(h->block_run);
  free(h->run_first);
  free(h->run_high);
  free(h->record_high);
  *h = (mprof__highs_t){0};
}

mprof_time_highs_t mprof__highs_view(const mprof__highs_t *h) {
  return (mprof_time_highs_t){h->by_record ? h->record_high : NULL,
                              h->block_run, h->run_first, h->run_high};
}

/* --- The view ------------------------------------------------------------ */

/* Point v at m's compact arrays. */
static void records_into(const mprof_model_t *m, mprof_model_view_t *v) {
  v->arrow_recs = m->arrows;
  v->arrow_times = mprof__highs_view(&m->arrow_times);
  v->label_recs = m->labels;
  v->label_times = mprof__highs_view(&m->label_times);
  v->running_recs = m->running;
  v->running_starts = mprof__highs_view(&m->running_starts);
  v->running_ends = mprof__highs_view(&m->running_ends);
  v->band_recs = m->bands;
  v->band_starts = mprof__highs_view(&m->band_starts);
  v->band_ends = mprof__highs_view(&m->band_ends);
  v->sample_time_lows = m->sample_lows;
  v->sample_values = m->sample_values;
  v->sample_times = mprof__highs_view(&m->sample_times);
}

int mprof__records_publish(mprof_model_t *m) {
  const mprof_model_view_t *v = &m->view;
  if (mprof__highs_index(&m->arrow_times, v->arrow_count) ||
      mprof__highs_index(&m->label_times, v->label_count) ||
      mprof__highs_index(&m->running_starts, v->running_count) ||
      mprof__highs_index(&m->running_ends, v->running_count) ||
      mprof__highs_index(&m->band_starts, v->band_count) ||
      mprof__highs_index(&m->band_ends, v->band_count) ||
      mprof__highs_index(&m->sample_times, v->sample_count))
    return MPROF_ENOMEM;
  records_into(m, &m->view);
  return 0;
}

/* --- Writing out and making anew ------------------------------------------ */

/* One compact array, as a sort or a rewrite handles it: written out as
 * items of `size` bytes (the public structs) and made anew from them. */
typedef struct array_s {
  size_t *count;            /* the view's count of it */
  mprof__highs_t *times[2]; /* its time fields' high halves (or NULL) */
  size_t size;
  void (*get)(const mprof_model_view_t *v, size_t i, void *item);
  int (*push)(mprof_model_t *m, const void *item);
} array_t;

static void get_arrow(const mprof_model_view_t *v, size_t i, void *item) {
  *(mprof_arrow_t *)item = mprof_arrow_at(v, i);
}
static void get_band(const mprof_model_view_t *v, size_t i, void *item) {
  *(mprof_band_t *)item = mprof_band_at(v, i);
}
static void get_label(const mprof_model_view_t *v, size_t i, void *item) {
  *(mprof_label_t *)item = mprof_label_at(v, i);
}
static int push_arrow(mprof_model_t *m, const void *item) {
  return mprof__arrow_push(m, item);
}
static int push_band(mprof_model_t *m, const void *item) {
  return mprof__band_push(m, item);
}
static int push_label(mprof_model_t *m, const void *item) {
  return mprof__label_push(m, item);
}
static int push_sample(mprof_model_t *m, const void *item) {
  return mprof__sample_push(m, item);
}

/* The array written out (malloc'd, one item at least), or NULL when memory
 * runs out. */
static void *written(const mprof_model_t *m, const array_t *a) {
  size_t n = *a->count;
  if (n > SIZE_MAX / a->size) return NULL;
  char *items = malloc((n ? n : 1) * a->size);
  mprof_model_view_t v = m->view;
  records_into(m, &v);
  if (items)
    for (size_t i = 0; i < n; i++) a->get(&v, i, items + i * a->size);
  return items;
}

/* Make the array anew from items[0 .. n), then free them.  Inlined into
 * each caller, where a's push is known: a sort makes millions of records
 * anew. */
static inline __attribute__((always_inline)) int
make_anew(mprof_model_t *m, const array_t *a, void *items, size_t n) {
  int err = 0;
  *a->count = 0;
  for (size_t k = 0; k < 2; k++)
    if (a->times[k]) mprof__highs_clear(a->times[k], n);
  for (size_t i = 0; i < n && !err; i++)
    err = a->push(m, (const char *)items + i * a->size);
  free(items);
  return err ? err : mprof__records_publish(m);
}

/* Sort the array by compare, on its items written out. */
static int sort_array(mprof_model_t *m, const array_t *a,
                      int (*compare)(const void *, const void *)) {
  size_t n = *a->count;
  void *items = written(m, a);
  if (!items) return MPROF_ENOMEM;
  qsort(items, n, a->size, compare);
  return make_anew(m, a, items, n);
}

int mprof__arrows_sort(mprof_model_t *m,
                       int (*compare)(const void *, const void *)) {
  array_t a = {&m->view.arrow_count,
               {&m->arrow_times, NULL},
               sizeof(mprof_arrow_t),
               get_arrow,
               push_arrow};
  return sort_array(m, &a, compare);
}

int mprof__bands_sort(mprof_model_t *m,
                      int (*compare)(const void *, const void *)) {
  array_t a = {&m->view.band_count,
               {&m->band_starts, &m->band_ends},
               sizeof(mprof_band_t),
               get_band,
               push_band};
  return sort_array(m, &a, compare);
}

int mprof__labels_sort(mprof_model_t *m,
                       int (*compare)(const void *, const void *)) {
  array_t a = {&m->view.label_count,
               {&m->label_times, NULL},
               sizeof(mprof_label_t),
               get_label,
               push_label};
  return sort_array(m, &a, compare);
}

int mprof__samples_replace(mprof_model_t *m, mprof_sample_t *items,
                           size_t count) {
  array_t a = {&m->view.sample_count,
               {&m->sample_times, NULL},
               sizeof *items,
               NULL,
               push_sample};
  return make_anew(m, &a, items, count);
}

/* --- Running spans in another order --------------------------------------- */

/* Whether every time h notes has one high half (*high; none noted: any). */
static int one_high(const mprof__highs_t *h, uint32_t *high) {
  if (h->by_record || h->run_count > 1) return 0;
  if (h->run_count) *high = h->run_high[0];
  return 1;
}

int mprof__spans_make(const mprof_model_t *m, mprof__spans_t *b, size_t count) {
  size_t n = count ? count : 1;
  uint32_t start = 0, end = 0;
  int one = one_high(&m->running_starts, &start) &&
            one_high(&m->running_ends, &end) && start == end;
  b->recs = NULL;
  b->highs = NULL;
  b->one_high = start;
  b->count = count;
  /* two high halves take half a record's bytes */
  if (n > SIZE_MAX / sizeof *b->recs) return MPROF_ENOMEM;
  b->recs = mprof__big_alloc(n * sizeof *b->recs);
  if (!one) b->highs = mprof__big_alloc(2 * n * sizeof *b->highs);
  if (b->recs && (one || b->highs)) return 0;
  mprof__spans_free(b);
  return MPROF_ENOMEM;
}

/* Note the high halves of b's spans, in index order. */
static int spans_highs(mprof_model_t *m, const mprof__spans_t *b) {
  if (!b->highs)
    return b->count &&
                   (mprof__highs_add_run(&m->running_starts, 0, b->one_high) ||
                    mprof__highs_add_run(&m->running_ends, 0, b->one_high))
               ? MPROF_ENOMEM
               : 0;
  for (size_t i = 0; i < b->count; i++)
    if (mprof__highs_add(&m->running_starts, i,
                         (int64_t)((uint64_t)b->highs[2 * i] << 32)) ||
        mprof__highs_add(&m->running_ends, i,
                         (int64_t)((uint64_t)b->highs[2 * i + 1] << 32)))
      return MPROF_ENOMEM;
  return 0;
}

int mprof__running_take(mprof_model_t *m, mprof__spans_t *b) {
  free(m->running);
  m->running = b->recs;
  m->running_cap = b->count ? b->count : 1;
  m->view.running_count = b->count;
  b->recs = NULL;
  mprof__highs_clear(&m->running_starts, b->count);
  mprof__highs_clear(&m->running_ends, b->count);
  int err = spans_highs(m, b);
  mprof__spans_free(b);
  return err ? err : mprof__records_publish(m);
}

void mprof__spans_free(mprof__spans_t *b) {
  free(b->recs);
  free(b->highs);
  b->recs = NULL;
  b->highs = NULL;
}

/* --- Freeing ------------------------------------------------------------- */

void mprof__records_free(mprof_model_t *m) {
  free(m->arrows);
  free(m->labels);
  free(m->running);
  free(m->bands);
  free(m->sample_lows);
  free(m->sample_values);
  mprof__highs_t *highs[] = {
      &m->arrow_times, &m->label_times, &m->running_starts, &m->running_ends,
      &m->band_starts, &m->band_ends,   &m->sample_times};
  for (size_t i = 0; i < sizeof highs / sizeof highs[0]; i++)
    mprof__highs_free(highs[i]);
}
