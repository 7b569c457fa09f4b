/* test_model.c -- the model, its layout and window queries, fed events by
 * hand (each test tells a small story, model_story.h, and checks what the
 * model made of it), plus properties over random traces.  The analysis:
 * test_model_analysis.c; real traces: test_model_trace.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model_story.h"

/* --- Threads -------------------------------------------------------------- */

static void test_lifetimes_and_arrows(void **state) {
  (void)state;
  begin();
  ev(MPROF_EVENT_SWITCH, 100, 0, 1, 0); /* main runs */
  ev(MPROF_EVENT_CREATE, 200, 1, 2, 0); /* main creates 2 */
  ev_text(MPROF_EVENT_LABEL, 210, 2, "fetch");
  ev(MPROF_EVENT_TRY_READ, 300, 1, 2, 0); /* main waits for 2 */
  ev(MPROF_EVENT_SWITCH, 400, 0, 0, 0);
  ev(MPROF_EVENT_SWITCH, 900, 0, 3, 0);   /* 3 (pre-existing) runs */
  ev(MPROF_EVENT_RESOLVE, 1000, 3, 2, 0); /* and resolves 2 */
  ev(MPROF_EVENT_SWITCH, 1100, 0, 1, 0);
  ev(MPROF_EVENT_READ, 1200, 1, 2, 0); /* main reads it */
  ev(MPROF_EVENT_SWITCH, 1300, 0, 0, 0);
  const mprof_model_view_t *v = finish();
  assert_int_equal(v->thread_count, 4); /* root, 1, 2, 3 */
  assert_int_equal(v->duration_ns, 1200);
  const mprof_thread_t *t2 = thread(2);
  assert_int_equal(t2->start_ns, 100); /* times count from the first event */
  assert_int_equal(t2->end_ns, 900);
  assert_int_equal(t2->ending, MPROF_ENDING_RESOLVED);
  assert_int_equal(t2->creator, mprof_model_find(model, 1));
  assert_int_equal(t2->label_count, 1);
  assert_string_equal(v->strings + mprof_label_at(v, t2->first_label).text,
                      "fetch");
  assert_true(thread(3)->flags & MPROF_THREAD_PREEXISTING);
  assert_int_equal(count_arrows(MPROF_ARROW_CREATE), 1);
  assert_int_equal(count_arrows(MPROF_ARROW_TRY_READ), 1);
  assert_int_equal(count_arrows(MPROF_ARROW_RESOLVE), 1);
  assert_int_equal(count_arrows(MPROF_ARROW_READ), 1);
  /* the read arrow leaves the input where it ended */
  for (size_t i = 0; i < v->arrow_count; i++) {
    mprof_arrow_t a = mprof_arrow_at(v, i);
    if (a.kind == MPROF_ARROW_READ) {
      int64_t from_ns, to_ns;
      mprof_model_arrow_ends(model, &a, &from_ns, &to_ns);
      assert_int_equal(from_ns, 900);
      assert_int_equal(to_ns, 1100);
    }
  }
  /* running: main 0-300 and 1000-1200, thread 3 800-1000 (clipped to
   * nothing for 2, which never ran) */
  int64_t main_ns = 0, three_ns = 0;
  for (size_t i = 0; i < v->running_count; i++) {
    mprof_span_t s = mprof_running_at(v, i);
    int64_t d = s.end_ns - s.start_ns;
    if (s.thread == mprof_model_find(model, 1)) main_ns += d;
    if (s.thread == mprof_model_find(model, 3)) three_ns += d;
  }
  assert_int_equal(main_ns, 300 + 200);
  assert_int_equal(three_ns, 200);
  mprof_model_free(model);
}

static void test_becomes_and_bad_input(void **state) {
  (void)state;
  begin();
  ev(MPROF_EVENT_CREATE, 10, 0, 5, 0);
  ev(MPROF_EVENT_CREATE, 20, 0, 6, 0);
  ev(MPROF_EVENT_BECOMES, 30, 0, 5, 6); /* 5 merges into 6 */
  ev(MPROF_EVENT_BECOMES, 35, 0, 6, 5); /* a cycle: ignored */
  ev(MPROF_EVENT_RESOLVE, 40, 0, 5, 0); /* resolving 5 resolves 6 */
  ev(MPROF_EVENT_CREATE, 30, 0, 7, 0);  /* time went backwards */
  ev(MPROF_EVENT_CREATE, 50, 0, 7, 0);  /* a duplicate id */
  const mprof_model_view_t *v = finish();
  uint32_t five = 0;
  for (uint32_t i = 0; i < v->thread_count; i++)
    if (v->threads[i].id == 5) five = i;
  assert_int_equal(v->threads[five].ending, MPROF_ENDING_MERGED);
  assert_int_equal(v->threads[five].becomes, mprof_model_find(model, 6));
  assert_int_equal(thread(6)->ending, MPROF_ENDING_RESOLVED);
  assert_int_equal(thread(6)->end_ns, 30);
  assert_int_equal(count_arrows(MPROF_ARROW_BECOMES), 1);
  int64_t sevens = 0; /* at 30 (clamped from 20) and at 40 */
  for (uint32_t i = 0; i < v->thread_count; i++)
    if (v->threads[i].id == 7) sevens += v->threads[i].start_ns;
  assert_int_equal(sevens, 30 + 40);
  mprof_model_free(model);
}

/* Small dense ids index a plain array, others a hash table; an id that
 * went to the table moves to the array when the array grows over it.
 * Every id must be found, before and after, merges included. */
static void test_sparse_and_dense_ids(void **state) {
  (void)state;
  enum { DENSE = 30000 };
  static const uint64_t sparse[] = {200000, 1ull << 40, (1ull << 40) + 1,
                                    UINT64_MAX - 1};
  begin();
  uint64_t t = 1;
  for (size_t k = 0; k < sizeof sparse / sizeof *sparse; k++)
    ev(MPROF_EVENT_CREATE, t++, 0, sparse[k], 0);
  for (uint64_t id = 1; id <= DENSE; id++)
    ev(MPROF_EVENT_CREATE, t++, 0, id, 0);
  ev(MPROF_EVENT_CREATE, t++, 0, 250000, 0); /* the array grows over 200000 */
  ev(MPROF_EVENT_BECOMES, t++, 0, 200000, 7);
  ev(MPROF_EVENT_BECOMES, t++, 0, 1ull << 40, 8);
  ev(MPROF_EVENT_RESOLVE, t++, 0, 200000, 0); /* resolves 7 */
  ev(MPROF_EVENT_READ, t++, 9, (1ull << 40) + 1, 0);
  const mprof_model_view_t *v = finish();
  assert_int_equal(v->thread_count, 1 + 4 + DENSE + 1);
  for (uint64_t id = 1; id <= DENSE; id++) assert_int_equal(thread(id)->id, id);
  assert_int_equal(thread(250000)->id, 250000);
  assert_int_equal(thread(UINT64_MAX - 1)->id, UINT64_MAX - 1);
  assert_int_equal(thread((1ull << 40) + 1)->id, (1ull << 40) + 1);
  assert_int_equal(mprof_model_find(model, 200000), mprof_model_find(model, 7));
  assert_int_equal(mprof_model_find(model, 1ull << 40),
                   mprof_model_find(model, 8));
  assert_int_equal(thread(7)->ending, MPROF_ENDING_RESOLVED);
  assert_int_equal(mprof_model_find(model, 123456), MPROF_NO_THREAD);
  assert_int_equal(mprof_model_find(model, DENSE + 1), MPROF_NO_THREAD);
  assert_int_equal(count_arrows(MPROF_ARROW_BECOMES), 2);
  assert_int_equal(count_arrows(MPROF_ARROW_READ), 1);
  mprof_model_free(model);
}

static void test_should_resolve_and_pending(void **state) {
  (void)state;
  begin();
  ev(MPROF_EVENT_CREATE, 0, 0, 1, 0);
  ev(MPROF_EVENT_SHOULD_RESOLVE, 5, 0, 1, 0);
  ev(MPROF_EVENT_CREATE, 10, 0, 2, 0); /* never resolved, no hint */
  ev(MPROF_EVENT_CREATE, 100000, 0, 3, 0);
  const mprof_model_view_t *v = finish();
  assert_int_equal(thread(1)->ending, MPROF_ENDING_FAILED);
  assert_true(thread(1)->flags & MPROF_THREAD_STALLED);
  assert_int_equal(thread(1)->end_ns, v->duration_ns); /* to the end */
  assert_string_equal(v->strings + thread(1)->failure,
                      "should_resolve thread never resolved");
  assert_int_equal(thread(2)->ending, MPROF_ENDING_PENDING);
  assert_int_equal(thread(2)->end_ns, 10 + 1000); /* fades after last seen */
  mprof_model_free(model);
}

static void test_counters_and_bands(void **state) {
  (void)state;
  begin();
  mprof_event_t e;
  memset(&e, 0, sizeof e);
  e.kind = MPROF_EVENT_COUNTER_NAME;
  e.counter = 4;
  e.text = "queue";
  e.text_length = 5;
  assert_int_equal(mprof_model_add(model, &e), 0);
  e.text = NULL;
  e.text_length = 0;
  int64_t deltas[] = {3, 4, -2, 10};
  for (int i = 0; i < 4; i++) {
    e.kind = MPROF_EVENT_COUNTER_INCREASE;
    e.time_ticks = (uint64_t)(i + 1) * 100;
    e.value = deltas[i];
    assert_int_equal(mprof_model_add(model, &e), 0);
  }
  e.kind = MPROF_EVENT_COUNTER_VALUE;
  e.time_ticks = 500;
  e.value = 1;
  assert_int_equal(mprof_model_add(model, &e), 0);
  ev(MPROF_EVENT_SWITCH, 600, 0, 9, 0);
  ev(MPROF_EVENT_SUSPEND, 700, 9, 0, 0);
  ev(MPROF_EVENT_SWITCH, 900, 0, 9, 0);
  const mprof_model_view_t *v = finish();
  assert_int_equal(v->counter_count, 1);
  assert_string_equal(v->strings + v->counters[0].name, "queue");
  assert_int_equal(v->counters[0].sample_count, 5);
  int64_t expect[] = {3, 7, 5, 15, 1};
  for (uint32_t i = 0; i < 5; i++)
    assert_int_equal(mprof_sample_at(v, v->counters[0].first_sample + i).value,
                     expect[i]);
  assert_int_equal(v->counters[0].max_value, 15);
  assert_int_equal(v->band_count, 1);
  mprof_band_t band = mprof_band_at(v, 0);
  assert_int_equal(band.span.start_ns, 700);
  assert_int_equal(band.span.end_ns, 900);
  assert_int_equal(band.kind, MPROF_BAND_IDLE);
  int64_t min[2], max[2];
  assert_int_equal(mprof_model_counter_range(model, 0, 0, 600, 2, min, max), 0);
  assert_int_equal(min[0], 0); /* columns [0,300) and [300,600) */
  assert_int_equal(max[0], 7);
  assert_int_equal(min[1], 1);
  assert_int_equal(max[1], 15);
  mprof_model_free(model);
}

/* --- Layout and windows --------------------------------------------------- */

/* Random stories: every thread gets a row; no two threads of a row
 * overlap; a child is below its creator's row, or on it if the creator
 * had ended. */
static void test_layout_properties(void **state) {
  (void)state;
  srand(7);
  for (int round = 0; round < 20; round++) {
    begin();
    uint64_t next_id = 1, time = 0;
    for (int i = 0; i < 2000; i++) {
      time += (uint64_t)(rand() % 50);
      uint64_t actor = next_id > 1 ? 1 + (uint64_t)rand() % (next_id - 1) : 0;
      if (rand() % 3 == 0 || next_id < 3)
        ev(MPROF_EVENT_CREATE, time, actor, next_id++, 0);
      else
        ev(MPROF_EVENT_RESOLVE, time, actor,
           1 + (uint64_t)rand() % (next_id - 1), 0);
    }
    const mprof_model_view_t *v = finish();
    const mprof_thread_t *th = v->threads;
    for (uint32_t i = 1; i < v->thread_count; i++) {
      assert_true(th[i].row < v->row_count);
      assert_true(th[i].end_ns >= th[i].start_ns);
      const mprof_thread_t *creator = &th[th[i].creator];
      if (th[i].creator != MPROF_ROOT_THREAD)
        assert_true(
            th[i].row > creator->row ||
            (th[i].row == creator->row && creator->end_ns <= th[i].start_ns));
    }
    /* no overlap in a row: the window query sees each row's threads in
     * order, each starting after the previous ended */
    mprof_lod_item_t items[4096];
    size_t seen = 0;
    for (uint32_t r = 0; r < v->row_count; r++) {
      size_t n = mprof_model_row_threads(model, r, 0, v->duration_ns + 1, 1,
                                         items, 4096);
      for (size_t k = 0; k < n; k++) {
        seen += items[k].count;
        assert_int_equal(th[items[k].first].row, r);
        if (k > 0) assert_true(items[k].start_ns > items[k - 1].end_ns);
      }
    }
    assert_int_equal(seen, v->thread_count - 1);
    mprof_model_free(model);
  }
}

/* ev() on OS-thread stream `stream`. */
static void ev_on(uint32_t stream, mprof_event_kind_t kind, uint64_t time,
                  uint64_t thread, uint64_t a) {
  ev_stream(stream, kind, time, thread, a, 0);
}

/* The running spans of thread id's row, as the view holds them, into out
 * (room for max); returns how many the row has. */
static size_t row_spans(uint64_t id, mprof_span_t *out, size_t max) {
  const mprof_model_view_t *v = mprof_model_view(model);
  uint32_t row = thread(id)->row;
  size_t first = v->running_count, count = 0;
  for (size_t i = 0; i < v->running_count; i++) {
    mprof_span_t s = mprof_running_at(v, i);
    if (v->threads[s.thread].row != row) continue;
    if (first == v->running_count) first = i;
    assert_int_equal(i, first + count); /* grouped by row */
    if (count < max) out[count] = s;
    count++;
  }
  return count;
}

/* A row's spans recorded out of start order (a span is recorded when it
 * ends: 7 ran on stream 1 from 100 until 500, clipped at its end at 150;
 * 8, in the same row, ran on stream 0 from 200 to 300): sorted by start,
 * and the window sees both. */
static void test_row_spans_out_of_order(void **state) {
  (void)state;
  begin();
  ev_on(0, MPROF_EVENT_CREATE, 0, 1, 7);
  ev_on(1, MPROF_EVENT_SWITCH, 100, 0, 7);
  ev_on(0, MPROF_EVENT_RESOLVE, 150, 1, 7);
  ev_on(0, MPROF_EVENT_CREATE, 160, 1, 8);
  ev_on(0, MPROF_EVENT_SWITCH, 200, 0, 8);
  ev_on(0, MPROF_EVENT_SWITCH, 300, 0, 0);
  ev_on(1, MPROF_EVENT_SWITCH, 500, 0, 0);
  ev_on(0, MPROF_EVENT_RESOLVE, 600, 1, 8);
  const mprof_model_view_t *v = finish();
  assert_int_equal(thread(7)->row, thread(8)->row);
  mprof_span_t s[4];
  assert_int_equal(row_spans(7, s, 4), 2);
  assert_int_equal(s[0].thread, mprof_model_find(model, 7));
  assert_int_equal(s[0].start_ns, 100);
  assert_int_equal(s[0].end_ns, 150);
  assert_int_equal(s[1].thread, mprof_model_find(model, 8));
  assert_int_equal(s[1].start_ns, 200);
  assert_int_equal(s[1].end_ns, 300);
  mprof_lod_item_t items[8];
  assert_int_equal(mprof_model_row_running(model, thread(7)->row, 0,
                                           v->duration_ns + 1, 1, items, 8),
                   2);
  assert_int_equal(items[0].start_ns, 100);
  assert_int_equal(items[0].end_ns, 150);
  assert_int_equal(items[1].start_ns, 200);
  assert_int_equal(items[1].end_ns, 300);
  assert_int_equal(
      mprof_model_row_running(model, thread(7)->row, 160, 170, 1, items, 8), 0);
  mprof_model_free(model);
}

/* One thread running on two streams at once (events fed by hand, not in
 * time order): its row's spans are in start order but the second ends
 * before the first, so a window after the second's end still finds the
 * first (the prefix maximum of ends, not the ends, is searched). */
static void test_row_spans_overlap(void **state) {
  (void)state;
  begin();
  ev_on(0, MPROF_EVENT_CREATE, 0, 1, 7);
  ev_on(0, MPROF_EVENT_SWITCH, 100, 0, 7);
  ev_on(0, MPROF_EVENT_SWITCH, 300, 0, 0);
  ev_on(1, MPROF_EVENT_SWITCH, 150, 0, 7);
  ev_on(1, MPROF_EVENT_SWITCH, 200, 0, 0);
  ev_on(0, MPROF_EVENT_RESOLVE, 1000, 1, 7);
  finish();
  mprof_span_t s[4];
  assert_int_equal(row_spans(7, s, 4), 2);
  assert_int_equal(s[0].start_ns, 100);
  assert_int_equal(s[0].end_ns, 300);
  assert_int_equal(s[1].start_ns, 150);
  assert_int_equal(s[1].end_ns, 200);
  mprof_lod_item_t items[8];
  assert_int_equal(
      mprof_model_row_running(model, thread(7)->row, 250, 400, 1, items, 8), 1);
  assert_int_equal(items[0].start_ns, 100);
  assert_int_equal(items[0].end_ns, 300);
  assert_int_equal(items[0].count, 2);
  assert_int_equal(
      mprof_model_row_running(model, thread(7)->row, 310, 400, 1, items, 8), 0);
  mprof_model_free(model);
}

/* Threads 1..count created by the root 10 ns apart from 100, each
 * resolved 25 ns later (so they need a few rows), and thread 9000
 * created at 105 on stream 1: fed in time order, or after the others
 * (then it is numbered last but starts among the first). */
static void late_thread_story(int late, uint64_t count) {
  begin();
  for (uint64_t k = 0; k < count; k++) {
    ev_on(0, MPROF_EVENT_CREATE, 100 + 10 * k, 0, k + 1);
    if (k == (late ? count - 1 : 0)) {
      ev_on(1, MPROF_EVENT_CREATE, 105, 0, 9000);
      ev_on(1, MPROF_EVENT_RESOLVE, 130, 0, 9000);
    }
    ev_on(0, MPROF_EVENT_RESOLVE, 125 + 10 * k, 0, k + 1);
  }
  finish();
}

/* Threads are placed block by block while their endings are settled; a
 * thread out of start order found after some blocks were placed sends
 * the layout back to place every thread in start order: the rows are
 * those of the same story fed in time order. */
static void test_late_thread_placed_again(void **state) {
  (void)state;
  const uint64_t count = 5000;
  uint32_t *rows = malloc((count + 1) * sizeof *rows);
  assert_non_null(rows);
  late_thread_story(0, count);
  for (uint64_t id = 1; id <= count; id++) rows[id - 1] = thread(id)->row;
  rows[count] = thread(9000)->row;
  uint32_t row_count = mprof_model_view(model)->row_count;
  mprof_model_free(model);
  late_thread_story(1, count);
  assert_int_equal(mprof_model_find(model, 9000),
                   mprof_model_view(model)->thread_count - 1);
  for (uint64_t id = 1; id <= count; id++)
    assert_int_equal(thread(id)->row, rows[id - 1]);
  assert_int_equal(thread(9000)->row, rows[count]);
  assert_int_equal(mprof_model_view(model)->row_count, row_count);
  assert_true(row_count >= 3);
  mprof_model_free(model);
  free(rows);
}

/* Events fed by hand out of time order (stream 1's creation at 30 after
 * stream 0's at 40): the arrows still come out sorted by time, as when
 * they are fed in order. */
static void test_arrows_fed_out_of_order(void **state) {
  (void)state;
  for (int late = 0; late <= 1; late++) {
    begin();
    ev_on(0, MPROF_EVENT_CREATE, 10, 0, 1);
    ev_on(0, MPROF_EVENT_CREATE, 20, 1, 2);
    if (!late) ev_on(1, MPROF_EVENT_CREATE, 30, 1, 4);
    ev_on(0, MPROF_EVENT_CREATE, 40, 1, 3);
    if (late) ev_on(1, MPROF_EVENT_CREATE, 30, 1, 4);
    const mprof_model_view_t *v = finish();
    static const uint64_t to_ids[] = {2, 4, 3};
    assert_int_equal(v->arrow_count, 3);
    for (size_t i = 0; i < 3; i++) {
      mprof_arrow_t a = mprof_arrow_at(v, i);
      assert_int_equal(a.time_ns, 10 * (i + 1));
      assert_int_equal(v->threads[a.to].id, to_ids[i]);
    }
    mprof_model_free(model);
  }
}

/* A hinted thread (numbered after thousands of others) that became
 * thread 1 and never resolved ends thread 1's line at the end of the
 * trace, after thread 1 was placed with its pending end: placed again,
 * thread 1 keeps row 0 to the end, and a thread created later takes
 * another row. */
static void test_stall_ends_a_placed_thread(void **state) {
  (void)state;
  begin();
  ev(MPROF_EVENT_CREATE, 0, 0, 1, 0);
  for (uint64_t k = 0; k < 3000; k++) {
    ev(MPROF_EVENT_CREATE, 10 + 2 * k, 0, 10 + k, 0);
    ev(MPROF_EVENT_RESOLVE, 11 + 2 * k, 0, 10 + k, 0);
  }
  ev(MPROF_EVENT_CREATE, 30000, 0, 5000, 0);
  ev(MPROF_EVENT_SHOULD_RESOLVE, 30001, 0, 5000, 0);
  ev(MPROF_EVENT_BECOMES, 30002, 0, 5000, 1);
  ev(MPROF_EVENT_CREATE, 40000, 0, 6000, 0);
  ev(MPROF_EVENT_CREATE, 50000, 0, 7000, 0);
  const mprof_model_view_t *v = finish();
  assert_int_equal(thread(1)->ending, MPROF_ENDING_FAILED);
  assert_int_equal(thread(1)->end_ns, v->duration_ns);
  assert_int_equal(thread(1)->row, 0);
  assert_int_not_equal(thread(6000)->row, 0);
  mprof_model_free(model);
}

/* A million tiny threads in one row: any window costs a bounded number of
 * items, and the items account for every thread. */
static void test_window_is_bounded(void **state) {
  (void)state;
  begin();
  for (uint64_t i = 1; i <= 1000000; i++) {
    ev(MPROF_EVENT_CREATE, i * 10, 0, i, 0);
    ev(MPROF_EVENT_RESOLVE, i * 10 + 5, 0, i, 0);
  }
  const mprof_model_view_t *v = finish();
  assert_int_equal(v->row_count, 1);
  mprof_lod_item_t items[2000];
  int64_t span = v->duration_ns + 1;
  size_t n =
      mprof_model_row_threads(model, 0, 0, span, span / 1000, items, 2000);
  assert_true(n <= 1001);
  size_t total = 0;
  for (size_t k = 0; k < n; k++) total += items[k].count;
  assert_int_equal(total, 1000000);
  /* zoomed in to 100 ns, one item per thread */
  n = mprof_model_row_threads(model, 0, 5000000, 5000100, 1, items, 2000);
  assert_int_equal(n, 10);
  for (size_t k = 0; k < n; k++) assert_int_equal(items[k].count, 1);
  /* arrows merge the same way */
  n = mprof_model_arrows(model, 0, span, span / 500, items, 2000);
  assert_true(n <= 501);
  total = 0;
  for (size_t k = 0; k < n; k++) total += items[k].count;
  assert_int_equal(total, v->arrow_count);
  mprof_model_free(model);
}

/* Counter ranges from the pyramid equal a brute-force scan. */
/* Each counter's value range (with 0) is what a scan of its samples
 * gives: counters of 10, 5000 and 300000 samples (no pyramid, one level,
 * several), one all above 0 and one all below, their samples fed
 * interleaved (grouped by a copy) or one counter after another. */
/* A clock 2^63 ticks or more past the first event is still converted, not
 * taken as past the model's limit: at 8 GHz that is 1.15e18 ns, below it. */
static void test_clock_past_2_63_ticks(void **state) {
  (void)state;
  assert_int_equal(mprof_model_new(8000000000u, 0, &model), 0);
  ev(MPROF_EVENT_CREATE, 100, 0, 1, 0);
  uint64_t far = (1ull << 63) + 4096;
  ev(MPROF_EVENT_RESOLVE, 100 + far, 0, 1, 0);
  const mprof_model_view_t *v = finish();
  assert_int_equal(v->duration_ns, (int64_t)((double)far * 0.125));
  assert_int_equal(thread(1)->end_ns, v->duration_ns);
  mprof_model_free(model);
}

static void test_counter_ranges(void **state) {
  (void)state;
  static const int counts[3] = {10, 5000, 300000};
  static const int64_t offsets[3] = {-500, 1000, -200000};
  for (int interleaved = 0; interleaved < 2; interleaved++) {
    begin();
    srand(5);
    mprof_event_t e;
    memset(&e, 0, sizeof e);
    e.kind = MPROF_EVENT_COUNTER_VALUE;
    int fed[3] = {0, 0, 0};
    for (int i = 0; i < counts[0] + counts[1] + counts[2]; i++) {
      int c = 0;
      while (fed[c] == counts[c] ||
             (interleaved && c < 2 && fed[c + 1] < counts[c + 1] && rand() % 2))
        c++;
      fed[c]++;
      e.counter = (uint32_t)c + 1;
      e.time_ticks = (uint64_t)i;
      e.value = rand() % 100000 + offsets[c];
      assert_int_equal(mprof_model_add(model, &e), 0);
    }
    const mprof_model_view_t *v = finish();
    assert_int_equal(v->counter_count, 3);
    for (size_t k = 0; k < v->counter_count; k++) {
      const mprof_counter_series_t *c = &v->counters[k];
      assert_int_equal(c->sample_count, counts[c->id - 1]);
      int64_t lo = 0, hi = 0;
      for (uint32_t i = 0; i < c->sample_count; i++) {
        int64_t value = mprof_sample_at(v, c->first_sample + i).value;
        if (value < lo) lo = value;
        if (value > hi) hi = value;
      }
      assert_int_equal(c->min_value, lo);
      assert_int_equal(c->max_value, hi);
    }
    mprof_model_free(model);
  }
}

static void test_counter_range_matches_scan(void **state) {
  (void)state;
  begin();
  srand(3);
  mprof_event_t e;
  memset(&e, 0, sizeof e);
  e.counter = 1;
  for (int i = 0; i < 300000; i++) {
    e.kind = MPROF_EVENT_COUNTER_VALUE;
    e.time_ticks = (uint64_t)i * 3 + (uint64_t)(rand() % 3);
    e.value = rand() % 100000 - 50000;
    assert_int_equal(mprof_model_add(model, &e), 0);
  }
  const mprof_model_view_t *v = finish();
  int64_t min[97], max[97];
  int64_t t0 = 12345, t1 = 850000;
  assert_int_equal(mprof_model_counter_range(model, 0, t0, t1, 97, min, max),
                   0);
  double width = (double)(t1 - t0) / 97;
  for (int col = 0; col < 97; col++) {
    int64_t a = t0 + (int64_t)(width * col);
    int64_t b = col == 96 ? t1 : t0 + (int64_t)(width * (col + 1));
    int64_t lo = INT64_MAX, hi = INT64_MIN, carried = 0;
    for (size_t i = 0; i < v->sample_count; i++) {
      mprof_sample_t s = mprof_sample_at(v, i);
      if (s.time_ns < a) carried = s.value;
      if (s.time_ns >= a && s.time_ns < b) {
        if (s.value < lo) lo = s.value;
        if (s.value > hi) hi = s.value;
      }
    }
    if (carried < lo) lo = carried;
    if (carried > hi) hi = carried;
    assert_int_equal(min[col], lo);
    assert_int_equal(max[col], hi);
  }
  mprof_model_free(model);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lifetimes_and_arrows),
      cmocka_unit_test(test_becomes_and_bad_input),
      cmocka_unit_test(test_sparse_and_dense_ids),
      cmocka_unit_test(test_should_resolve_and_pending),
      cmocka_unit_test(test_counters_and_bands),
      cmocka_unit_test(test_layout_properties),
      cmocka_unit_test(test_row_spans_out_of_order),
      cmocka_unit_test(test_row_spans_overlap),
      cmocka_unit_test(test_late_thread_placed_again),
      cmocka_unit_test(test_arrows_fed_out_of_order),
      cmocka_unit_test(test_stall_ends_a_placed_thread),
      cmocka_unit_test(test_window_is_bounded),
      cmocka_unit_test(test_counter_range_matches_scan),
      cmocka_unit_test(test_counter_ranges),
      cmocka_unit_test(test_clock_past_2_63_ticks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
