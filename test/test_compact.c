/* test_compact.c -- the model's compact records (src/model/compact.c):
 * times kept as their low 32 bits with the high halves by runs.  The
 * encoding against the times it was given, in every order a model makes
 * (time order, rows that each restart, a named model's any order, whole
 * int64 range), then a model fed by hand over 40 s of trace, so that its
 * times cross many 2^32 ns boundaries: every arrow, label, sample and
 * running span read back holds the time it was fed at; and the running
 * spans regrouped by row against the same spans read before. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../src/model/model_internal.h"

#define SECOND 1000000000LL

static uint64_t next_random(uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return x;
}

/* Encode times[0 .. n) and check each one reads back, twice: the second
 * time after a clear, as a sort's rewrite does.  Returns whether the high
 * halves were kept by record (too many runs). */
static int check_encoding(const int64_t *times, size_t n) {
  mprof__highs_t h = {0};
  int by_record = 0;
  for (int round = 0; round < 2; round++) {
    mprof__highs_clear(&h, n);
    for (size_t i = 0; i < n; i++)
      assert_int_equal(mprof__highs_add(&h, i, times[i]), 0);
    assert_int_equal(mprof__highs_index(&h, n), 0);
    mprof_time_highs_t v = mprof__highs_view(&h);
    by_record = v.record_high != NULL;
    for (size_t i = 0; i < n; i++) {
      int64_t got = mprof_time_at(&v, i, (uint32_t)(uint64_t)times[i]);
      if (got != times[i])
        fail_msg("record %zu of %zu: %lld read back as %lld", i, n,
                 (long long)times[i], (long long)got);
    }
  }
  mprof__highs_free(&h);
  return by_record;
}

static void test_encoding_orders(void **state) {
  (void)state;
  enum { N = 20000 };
  int64_t *t = malloc(N * sizeof *t);
  assert_non_null(t);
  uint64_t seed = 0x9e3779b97f4a7c15u;
  size_t sizes[] = {1, 255, 256, 257, 513, N};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t n = sizes[s];
    /* time order, steps of up to 2 s: a boundary every few records */
    for (size_t i = 0; i < n; i++)
      t[i] = (i ? t[i - 1] : 0) + (int64_t)(next_random(&seed) % (2 * SECOND));
    check_encoding(t, n);
    /* rows: ascending stretches that each start again near 0 */
    for (size_t i = 0; i < n; i++)
      t[i] = i % 37 == 0 ? (int64_t)(next_random(&seed) % SECOND)
                         : t[i - 1] + (int64_t)(next_random(&seed) % SECOND);
    check_encoding(t, n);
    /* any order over the whole int64 range, negatives too */
    for (size_t i = 0; i < n; i++) t[i] = (int64_t)next_random(&seed);
    check_encoding(t, n);
    /* every record on the other side of a boundary from the one before:
     * kept by record */
    for (size_t i = 0; i < n; i++) t[i] = ((int64_t)1 << 32) + (i % 2 ? -1 : 0);
    assert_true(check_encoding(t, n));
    /* bursts: a block of boundaries in every 4096 records, few runs in
     * all, so that a block's runs are searched */
    for (size_t i = 0; i < n; i++)
      t[i] = ((int64_t)(i / 4096) << 32) +
             (i % 4096 < 200 && i % 2 ? (int64_t)1 << 32 : 0);
    if (n == N) assert_false(check_encoding(t, n));
    /* one value throughout: one run */
    for (size_t i = 0; i < n; i++) t[i] = 5 * SECOND;
    check_encoding(t, n);
  }
  free(t);
}

/* --- A model fed by hand ----------------------------------------------------
 */

static void feed(mprof_model_t *m, mprof_event_kind_t kind, int64_t ns,
                 uint32_t stream, uint64_t thread, uint64_t a) {
  mprof_event_t e;
  memset(&e, 0, sizeof e);
  e.kind = kind;
  e.time_ticks = (uint64_t)ns;
  e.stream = stream;
  e.thread = thread;
  e.a = a;
  e.counter = 1;
  e.value = ns / 3;
  if (kind == MPROF_EVENT_LABEL) {
    e.text = "label";
    e.text_length = 5;
  }
  assert_int_equal(mprof_model_add(m, &e), 0);
}

static int compare_ns(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return a < b ? -1 : a > b;
}

/* Threads 1 and 2 take turns on stream 0 for 40 s, switching at irregular
 * times; at each turn the one running signals the other, labels it and
 * sets counter 1.  A second stream's signals come late (times before the
 * first stream's last), so that the model sorts its arrows. */
static void test_model_times(void **state) {
  (void)state;
  enum { TURNS = 4000, LATE = 50 };
  int64_t switches[TURNS], late[LATE];
  mprof_model_t *m;
  assert_int_equal(mprof_model_new(SECOND, 0, &m), 0);
  uint64_t seed = 12345;
  int64_t t = 0;
  feed(m, MPROF_EVENT_CREATE, 0, 0, 0, 1);
  feed(m, MPROF_EVENT_CREATE, 0, 0, 0, 2);
  for (size_t k = 0; k < TURNS; k++) {
    t += 1 + (int64_t)(next_random(&seed) % (20 * SECOND / TURNS));
    switches[k] = t;
    uint64_t running = 1 + k % 2, other = 2 - k % 2;
    feed(m, MPROF_EVENT_SWITCH, t, 0, running, running);
    feed(m, MPROF_EVENT_SIGNAL, t, 0, running, other);
    feed(m, MPROF_EVENT_LABEL, t, 0, running, other);
    feed(m, MPROF_EVENT_COUNTER_VALUE, t, 0, running, 0);
  }
  for (size_t k = 0; k < LATE; k++) {
    late[k] = (int64_t)(k * (size_t)t / LATE);
    feed(m, MPROF_EVENT_SIGNAL, late[k], 1, 1, 2);
  }
  feed(m, MPROF_EVENT_RESOLVE, t + SECOND, 0, 0, 1);
  feed(m, MPROF_EVENT_RESOLVE, t + SECOND, 0, 0, 2);
  assert_int_equal(mprof_model_finish(m), 0);
  const mprof_model_view_t *v = mprof_model_view(m);

  /* arrows: the signals, in time order */
  int64_t want[TURNS + LATE];
  memcpy(want, switches, sizeof switches);
  memcpy(want + TURNS, late, sizeof late);
  qsort(want, TURNS + LATE, sizeof *want, compare_ns);
  assert_int_equal(v->arrow_count, TURNS + LATE);
  for (size_t i = 0; i < v->arrow_count; i++) {
    mprof_arrow_t a = mprof_arrow_at(v, i);
    assert_int_equal(a.time_ns, want[i]);
    assert_int_equal(a.kind, MPROF_ARROW_SIGNAL);
  }
  /* samples: one a turn, value a third of its time */
  assert_int_equal(v->sample_count, TURNS);
  for (size_t i = 0; i < TURNS; i++) {
    mprof_sample_t s = mprof_sample_at(v, i);
    assert_int_equal(s.time_ns, switches[i]);
    assert_int_equal(s.value, switches[i] / 3);
  }
  /* labels: grouped by thread, each thread's at the other's turns */
  assert_int_equal(v->label_count, TURNS);
  size_t next[2] = {1, 0}; /* thread 1 is labelled at odd turns */
  for (size_t i = 0; i < v->label_count; i++) {
    mprof_label_t l = mprof_label_at(v, i);
    size_t th = v->threads[l.thread].id - 1;
    assert_int_equal(l.time_ns, switches[next[th]]);
    next[th] += 2;
  }
  /* running spans: each turn on stream 0 runs from its switch to the
   * next (stream 1 runs thread 1 too, from its first late signal) */
  int64_t starts[TURNS];
  size_t turns = 0;
  for (size_t i = 0; i < v->running_count; i++) {
    mprof_span_t s = mprof_running_at(v, i);
    if (mprof_model_stream_id(m, s.stream) != 0) continue;
    size_t k = 0;
    while (k < TURNS && switches[k] != s.start_ns) k++;
    assert_true(k < TURNS);
    int64_t end = k + 1 < TURNS ? switches[k + 1] : v->duration_ns;
    assert_int_equal(s.end_ns, end);
    assert_int_equal(v->threads[s.thread].id, 1 + k % 2);
    assert_true(turns < TURNS);
    starts[turns++] = s.start_ns;
  }
  assert_int_equal(turns, TURNS);
  qsort(starts, TURNS, sizeof *starts, compare_ns);
  assert_memory_equal(starts, switches, sizeof starts);
  mprof_model_free(m);
}

/* A running span as it was before the layout, and its place then. */
typedef struct placed_span_s {
  mprof_span_t span;
  uint32_t row;
  size_t index;
} placed_span_t;

static int compare_placed(const void *pa, const void *pb) {
  const placed_span_t *a = pa, *b = pb;
  if (a->row != b->row) return a->row < b->row ? -1 : 1;
  if (a->span.start_ns != b->span.start_ns)
    return a->span.start_ns < b->span.start_ns ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* Each row's window over the whole trace (mprof_model_row_running()),
 * whose items end at the latest end of the row's spans so far: the
 * layout's prefix maxima, against those of want[0 .. n), the spans grouped
 * by row. */
static void check_reach(const mprof_model_t *m, const placed_span_t *want,
                        size_t n) {
  mprof_lod_item_t *items = malloc((n + 1) * sizeof *items);
  assert_non_null(items);
  for (size_t lo = 0; lo < n;) {
    size_t hi = lo;
    while (hi < n && want[hi].row == want[lo].row) hi++;
    size_t got = mprof_model_row_running(m, want[lo].row, INT64_MIN, INT64_MAX,
                                         1, items, n + 1);
    size_t at = lo;
    int64_t reach = INT64_MIN;
    for (size_t k = 0; k < got; k++) {
      assert_int_equal(items[k].first, at);
      for (size_t i = 0; i < items[k].count; i++, at++)
        if (want[at].span.end_ns > reach) reach = want[at].span.end_ns;
      assert_int_equal(items[k].end_ns, reach);
    }
    assert_int_equal(at, hi);
    lo = hi;
  }
  free(items);
}

/* Two streams switch among `threads` threads from `from` ns on, every
 * `step` ns or less (16000 switches), so that a thread runs on both at
 * once (a row's spans, recorded as they end, come out of start order);
 * thread 3 and 4 resolve midway and thread 6 is created late, after it ran
 * (their spans are cut to their lines, or dropped).  The layout's grouping
 * by row, which puts the compact records in their new places, is checked
 * against the spans read before it, cut and sorted here: by row, then
 * start, then their order before.  Returns the runs of the grouped spans'
 * starts' high halves, SIZE_MAX where they are kept by record (each row's
 * spans cross the 2^32 ns boundaries anew: many rows make too many). */
static size_t check_regrouped(uint64_t threads, int64_t from, int64_t step) {
  enum { SWITCHES = 16000 };
  mprof_model_t *m;
  assert_int_equal(mprof_model_new(SECOND, 0, &m), 0);
  uint64_t seed = 777;
  for (uint64_t id = 1; id <= threads; id++)
    if (id != 6) feed(m, MPROF_EVENT_CREATE, 0, 0, 0, id);
  int64_t t = from;
  for (size_t k = 0; k < SWITCHES; k++) {
    t += 1 + (int64_t)(next_random(&seed) % (uint64_t)step);
    uint32_t stream = (uint32_t)(next_random(&seed) % 2);
    feed(m, MPROF_EVENT_SWITCH, t, stream, 0, 1 + next_random(&seed) % threads);
    if (k == SWITCHES / 4) feed(m, MPROF_EVENT_CREATE, t, 0, 0, 6);
    if (k == SWITCHES / 3) feed(m, MPROF_EVENT_RESOLVE, t, 0, 0, 3);
    if (k == SWITCHES / 2) feed(m, MPROF_EVENT_RESOLVE, t, 1, 0, 4);
  }
  /* the spans as the events left them (the finish's own close and
   * publish then find nothing more to do) */
  assert_int_equal(mprof__streams_close(m), 0);
  assert_int_equal(mprof__records_publish(m), 0);
  const mprof_model_view_t *v = mprof_model_view(m);
  size_t n = v->running_count;
  placed_span_t *before = malloc(n * sizeof *before);
  assert_non_null(before);
  for (size_t i = 0; i < n; i++)
    before[i] = (placed_span_t){mprof_running_at(v, i), 0, i};
  assert_int_equal(mprof_model_finish(m), 0);

  size_t kept = 0, cut = 0, rows_unsorted = 0;
  for (size_t i = 0; i < n; i++) {
    mprof_span_t s = before[i].span;
    const mprof_thread_t *th = &v->threads[s.thread];
    if (s.start_ns < th->start_ns) s.start_ns = th->start_ns;
    if (s.end_ns > th->end_ns) s.end_ns = th->end_ns;
    if (s.end_ns <= s.start_ns) continue;
    cut += s.start_ns != before[i].span.start_ns ||
           s.end_ns != before[i].span.end_ns;
    if (kept && before[kept - 1].row == th->row &&
        before[kept - 1].span.start_ns > s.start_ns)
      rows_unsorted++;
    before[kept++] = (placed_span_t){s, th->row, i};
  }
  assert_true(cut > 0 && kept < n && rows_unsorted > 0);
  qsort(before, kept, sizeof *before, compare_placed);
  assert_int_equal(v->running_count, kept);
  for (size_t i = 0; i < kept; i++) {
    mprof_span_t got = mprof_running_at(v, i), want = before[i].span;
    if (got.start_ns != want.start_ns || got.end_ns != want.end_ns ||
        got.thread != want.thread || got.stream != want.stream)
      fail_msg("span %zu: %lld-%lld thread %u stream %u, want %lld-%lld "
               "thread %u stream %u",
               i, (long long)got.start_ns, (long long)got.end_ns, got.thread,
               got.stream, (long long)want.start_ns, (long long)want.end_ns,
               want.thread, want.stream);
  }
  check_reach(m, before, kept);
  size_t runs = 0;
  if (v->running_starts.record_high)
    runs = SIZE_MAX;
  else
    while (v->running_starts.run_first[runs] != SIZE_MAX) runs++;
  free(before);
  mprof_model_free(m);
  return runs;
}

static void test_running_regrouped(void **state) {
  (void)state;
  /* 40 s: each row's spans cross boundaries, by runs or by record */
  size_t runs = check_regrouped(6, 0, 5 * SECOND / 1000);
  assert_true(runs > 1 && runs != SIZE_MAX);
  assert_int_equal(check_regrouped(300, 0, 5 * SECOND / 1000), SIZE_MAX);
  /* under a second within one 2^32 ns stretch (its high half 3): one */
  assert_int_equal(check_regrouped(6, (int64_t)3 << 32, SECOND / 10000), 1);
}

/* Every running span crosses one 2^32 ns boundary (4.29 s), sixteen of
 * them (a run each for their starts and their ends, not highs by
 * record): the starts share a high half and the ends the next one, so the
 * grouped spans keep both (with one for all, their ends would read 2^32 ns
 * early). */
static void test_spans_across_one_boundary(void **state) {
  (void)state;
  enum { SPANS = 16 };
  mprof_model_t *m;
  assert_int_equal(mprof_model_new(SECOND, 0, &m), 0);
  int64_t start[SPANS], end[SPANS];
  for (uint32_t k = 0; k < SPANS; k++) {
    start[k] = 4 * SECOND + k * 1000;
    end[k] = 4 * SECOND + SECOND / 2 + k * 1000;
    feed(m, MPROF_EVENT_CREATE, k, k, 0, k + 1);
    feed(m, MPROF_EVENT_SWITCH, start[k], k, 0, k + 1);
  }
  for (uint32_t k = 0; k < SPANS; k++)
    feed(m, MPROF_EVENT_SWITCH, end[k], k, k + 1, MPROF_NONE);
  feed(m, MPROF_EVENT_SWITCH, 5 * SECOND, 0, 0, MPROF_NONE);
  assert_int_equal(mprof_model_finish(m), 0);
  const mprof_model_view_t *v = mprof_model_view(m);
  assert_int_equal(v->running_count, SPANS);
  for (size_t i = 0; i < SPANS; i++) {
    mprof_span_t s = mprof_running_at(v, i);
    assert_true(s.thread >= 1 && s.thread <= SPANS);
    assert_int_equal(s.start_ns, start[s.thread - 1]);
    assert_int_equal(s.end_ns, end[s.thread - 1]);
  }
  mprof_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_encoding_orders),
      cmocka_unit_test(test_model_times),
      cmocka_unit_test(test_running_regrouped),
      cmocka_unit_test(test_spans_across_one_boundary),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
