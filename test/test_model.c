/* test_model.c -- the model, layout, window queries and analysis, fed
 * events by hand (each test tells a small story and checks what the model
 * made of it), plus properties over random traces and net.ctf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mprof/model.h"
#include "census_check.h"

static const char *net_ctf; /* path of test/data/net.ctf */

/* A model at 1 tick = 1 ns, fed events through ev(). */
static mprof_model_t *model;

static void begin(void) {
  assert_int_equal(mprof_model_new(1000000000, 0, &model), 0);
}

/* Feed an event of stream `stream` (threads of `type`, when it creates). */
static void ev_typed(uint32_t stream, mprof_event_kind_t kind, uint64_t time,
                     uint64_t thread, uint64_t a, uint64_t b,
                     mprof_type_t type) {
  mprof_event_t e;
  memset(&e, 0, sizeof e);
  e.kind = kind;
  e.time_ticks = time;
  e.stream = stream;
  e.thread = thread;
  e.a = a;
  e.b = b;
  e.type = type;
  assert_int_equal(mprof_model_add(model, &e), 0);
}

/* Feed an event of stream `stream` (tasks, when it creates). */
static void ev_stream(uint32_t stream, mprof_event_kind_t kind, uint64_t time,
                      uint64_t thread, uint64_t a, uint64_t b) {
  ev_typed(stream, kind, time, thread, a, b, MPROF_TASK);
}

static void ev(mprof_event_kind_t kind, uint64_t time, uint64_t thread,
               uint64_t a, uint64_t b) {
  ev_stream(0, kind, time, thread, a, b);
}

static void ev_text(mprof_event_kind_t kind, uint64_t time, uint64_t a,
                    const char *text) {
  mprof_event_t e;
  memset(&e, 0, sizeof e);
  e.kind = kind;
  e.time_ticks = time;
  e.a = a;
  e.text = text;
  e.text_length = strlen(text);
  assert_int_equal(mprof_model_add(model, &e), 0);
}

static const mprof_model_view_t *finish(void) {
  assert_int_equal(mprof_model_finish(model), 0);
  return mprof_model_view(model);
}

static const mprof_thread_t *thread(uint64_t id) {
  uint32_t i = mprof_model_find(model, id);
  assert_int_not_equal(i, MPROF_NO_THREAD);
  return &mprof_model_view(model)->threads[i];
}

static size_t count_arrows(mprof_arrow_kind_t kind) {
  const mprof_model_view_t *v = mprof_model_view(model);
  size_t n = 0;
  for (size_t i = 0; i < v->arrow_count; i++) n += v->arrows[i].kind == kind;
  return n;
}

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
  assert_string_equal(v->strings + v->labels[t2->first_label].text, "fetch");
  assert_true(thread(3)->flags & MPROF_THREAD_PREEXISTING);
  assert_int_equal(count_arrows(MPROF_ARROW_CREATE), 1);
  assert_int_equal(count_arrows(MPROF_ARROW_TRY_READ), 1);
  assert_int_equal(count_arrows(MPROF_ARROW_RESOLVE), 1);
  assert_int_equal(count_arrows(MPROF_ARROW_READ), 1);
  /* the read arrow leaves the input where it ended */
  for (size_t i = 0; i < v->arrow_count; i++)
    if (v->arrows[i].kind == MPROF_ARROW_READ) {
      int64_t from_ns, to_ns;
      mprof_model_arrow_ends(model, &v->arrows[i], &from_ns, &to_ns);
      assert_int_equal(from_ns, 900);
      assert_int_equal(to_ns, 1100);
    }
  /* running: main 0-300 and 1000-1200, thread 3 800-1000 (clipped to
   * nothing for 2, which never ran) */
  int64_t main_ns = 0, three_ns = 0;
  for (size_t i = 0; i < v->running_count; i++) {
    int64_t d = v->running[i].end_ns - v->running[i].start_ns;
    if (v->running[i].thread == mprof_model_find(model, 1)) main_ns += d;
    if (v->running[i].thread == mprof_model_find(model, 3)) three_ns += d;
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
  const mprof_sample_t *s = v->samples + v->counters[0].first_sample;
  int64_t expect[] = {3, 7, 5, 15, 1};
  for (int i = 0; i < 5; i++) assert_int_equal(s[i].value, expect[i]);
  assert_int_equal(v->counters[0].max_value, 15);
  assert_int_equal(v->band_count, 1);
  assert_int_equal(v->bands[0].span.start_ns, 700);
  assert_int_equal(v->bands[0].span.end_ns, 900);
  assert_int_equal(v->bands[0].kind, MPROF_BAND_IDLE);
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

/* The running spans of thread id's row, as the view holds them. */
static const mprof_span_t *row_spans(uint64_t id, size_t *count) {
  const mprof_model_view_t *v = mprof_model_view(model);
  uint32_t row = thread(id)->row;
  size_t first = v->running_count;
  *count = 0;
  for (size_t i = 0; i < v->running_count; i++)
    if (v->threads[v->running[i].thread].row == row) {
      if (first == v->running_count) first = i;
      assert_int_equal(i, first + (*count)++); /* grouped by row */
    }
  return v->running + first;
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
  size_t n;
  const mprof_span_t *s = row_spans(7, &n);
  assert_int_equal(n, 2);
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
  size_t n;
  const mprof_span_t *s = row_spans(7, &n);
  assert_int_equal(n, 2);
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
      assert_int_equal(v->arrows[i].time_ns, 10 * (i + 1));
      assert_int_equal(v->threads[v->arrows[i].to].id, to_ids[i]);
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
        int64_t value = v->samples[c->first_sample + i].value;
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
  const mprof_sample_t *s = v->samples;
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
      if (s[i].time_ns < a) carried = s[i].value;
      if (s[i].time_ns >= a && s[i].time_ns < b) {
        if (s[i].value < lo) lo = s[i].value;
        if (s[i].value > hi) hi = s[i].value;
      }
    }
    if (carried < lo) lo = carried;
    if (carried > hi) hi = carried;
    assert_int_equal(min[col], lo);
    assert_int_equal(max[col], hi);
  }
  mprof_model_free(model);
}

/* --- Analysis ------------------------------------------------------------- */

/* The lost wake-up: the producer notifies the condition before anyone
 * waits; the consumer then waits, and nothing ever wakes it. */
static void test_lost_wakeup_and_stall(void **state) {
  (void)state;
  begin();
  ev(MPROF_EVENT_CREATE, 0, 0, 10, 0); /* condition "ready" */
  ev_text(MPROF_EVENT_LABEL, 0, 10, "ready");
  ev(MPROF_EVENT_CREATE, 0, 0, 20, 0); /* producer */
  ev(MPROF_EVENT_CREATE, 0, 0, 30, 0); /* consumer */
  ev(MPROF_EVENT_SWITCH, 100, 0, 20, 0);
  ev(MPROF_EVENT_SIGNAL, 110, 20, 10, 0); /* nobody waits yet */
  ev(MPROF_EVENT_SWITCH, 200, 0, 30, 0);
  ev(MPROF_EVENT_CREATE_BY, 210, 30, 40, 10); /* wait created by cond */
  ev_text(MPROF_EVENT_LABEL, 210, 40, "consumer wait");
  ev(MPROF_EVENT_SHOULD_RESOLVE, 210, 30, 40, 0);
  ev(MPROF_EVENT_TRY_READ, 220, 30, 40, 0);
  ev(MPROF_EVENT_SUSPEND, 230, 30, 0, 0);
  ev(MPROF_EVENT_SWITCH, 5000, 0, 20, 0); /* time passes */
  ev(MPROF_EVENT_SWITCH, 5100, 0, 0, 0);
  const mprof_model_view_t *v = finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  assert_int_equal(a.stall_count, 1);
  assert_int_equal(a.stalls[0].thread, mprof_model_find(model, 40));
  assert_true(a.stalls[0].arrow_count >= 2); /* created, waited on */
  const mprof_arrow_t *last =
      &v->arrows[a.arrow_refs[a.stalls[0].first_arrow +
                              a.stalls[0].arrow_count - 1]];
  assert_int_equal(last->kind, MPROF_ARROW_TRY_READ);
  assert_int_equal(a.lost_wakeup_count, 1);
  assert_int_equal(a.lost_wakeups[0].condition, mprof_model_find(model, 10));
  assert_int_equal(a.lost_wakeups[0].waiter, mprof_model_find(model, 40));
  assert_int_equal(v->arrows[a.lost_wakeups[0].signal_arrow].time_ns, 110);
  /* the consumer waited on its wait from 220 to the end */
  const mprof_thread_time_t *consumer = &a.times[mprof_model_find(model, 30)];
  assert_int_equal(consumer->waiting_ns, 5100 - 220);
  assert_int_equal(consumer->wait_count, 1);
  assert_int_equal(a.waits[consumer->first_wait].on,
                   mprof_model_find(model, 40));
  assert_int_equal(consumer->running_ns, 30);
  mprof_analysis_free(&a);
  mprof_model_free(model);
}

/* A signal heard by a waiter is not a lost wake-up. */
static void test_heard_signal_is_fine(void **state) {
  (void)state;
  begin();
  ev(MPROF_EVENT_CREATE, 0, 0, 10, 0);
  ev(MPROF_EVENT_CREATE_BY, 10, 30, 40, 10);
  ev(MPROF_EVENT_SHOULD_RESOLVE, 10, 30, 40, 0);
  ev(MPROF_EVENT_SIGNAL, 20, 20, 10, 0);
  ev(MPROF_EVENT_RESOLVE, 20, 20, 40, 0);
  ev(MPROF_EVENT_CREATE_BY, 30, 30, 41, 10); /* waits again: pending */
  ev(MPROF_EVENT_SWITCH, 100, 0, 0, 0);
  finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  assert_int_equal(a.stall_count, 0);
  assert_int_equal(a.lost_wakeup_count, 0);
  mprof_analysis_free(&a);
  mprof_model_free(model);
}

/* 1 waits on 2, which waits on 3, which waits on 4: one chain of three
 * links; and the critical path of a request back through a read. */
static void test_chain_and_critical_path(void **state) {
  (void)state;
  begin();
  for (uint64_t i = 1; i <= 4; i++) ev(MPROF_EVENT_CREATE, i, 0, i, 0);
  ev(MPROF_EVENT_TRY_READ, 10, 1, 2, 0);
  ev(MPROF_EVENT_TRY_READ, 20, 2, 3, 0);
  ev(MPROF_EVENT_TRY_READ, 30, 3, 4, 0);
  ev(MPROF_EVENT_CREATE, 110, 5, 9, 0); /* 5 makes request 9 */
  ev(MPROF_EVENT_RESOLVE, 150, 4, 4, 0);
  ev(MPROF_EVENT_READ, 200, 6, 4, 0);    /* 6 reads 4... */
  ev(MPROF_EVENT_RESOLVE, 300, 6, 9, 0); /* ...and answers 9 */
  finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  assert_true(a.chain_count >= 1);
  assert_int_equal(a.chains[0].length, 4);
  for (uint32_t k = 0; k < 4; k++)
    assert_int_equal(a.chain_threads[a.chains[0].first + k],
                     mprof_model_find(model, k + 1));
  /* the longest resolved thread is 9 (110..300) -- 4 lived 4..150 */
  assert_int_equal(a.path_target, mprof_model_find(model, 9));
  assert_true(a.path_count >= 2);
  assert_int_equal(a.path[0].thread, mprof_model_find(model, 6));
  assert_int_equal(a.path[0].via, MPROF_ARROW_RESOLVE);
  assert_int_equal(a.path[0].start_ns, 199); /* since its read (t0 = 1) */
  assert_int_equal(a.path[1].thread, mprof_model_find(model, 4));
  assert_int_equal(a.path[1].via, MPROF_ARROW_READ);
  assert_int_equal(a.path[1].start_ns, 109); /* not before 9 began */
  assert_int_equal(a.path[1].end_ns, 149);
  mprof_analysis_free(&a);
  mprof_model_free(model);
}

/* --- Findings ------------------------------------------------------------- */

/* Create `child` of `type`, made by `creator` (0: none), on stream 0. */
static void create(uint64_t time, uint64_t creator, uint64_t child,
                   mprof_type_t type, const char *label) {
  ev_typed(0, MPROF_EVENT_CREATE, time, creator, child, 0, type);
  if (label) ev_text(MPROF_EVENT_LABEL, time, child, label);
}

/* The first finding of a kind, or NULL. */
static const mprof_finding_t *first_finding(const mprof_analysis_t *a,
                                            mprof_finding_kind_t kind) {
  for (size_t i = 0; i < a->finding_count; i++)
    if (a->findings[i].kind == kind) return &a->findings[i];
  return NULL;
}

static size_t findings_of(const mprof_analysis_t *a,
                          mprof_finding_kind_t kind) {
  size_t n = 0;
  for (size_t i = 0; i < a->finding_count; i++)
    n += a->findings[i].kind == kind;
  return n;
}

/* Fail request `id` at `time` with `error`. */
static void fail_request(uint64_t time, uint64_t id, const char *error) {
  mprof_event_t e;
  memset(&e, 0, sizeof e);
  e.kind = MPROF_EVENT_FAIL;
  e.time_ticks = time;
  e.thread = id;
  e.a = id;
  e.text = error;
  e.text_length = strlen(error);
  assert_int_equal(mprof_model_add(model, &e), 0);
}

/* A loop (1) whose timer 2 runs 19.999 ms, then 25 ms, while timer 3
 * waits for its turn; in poll 10..100 and 20.1..20.2 ms. */
static void loop_story(void) {
  begin();
  create(0, 0, 1, MPROF_LOOP, "default loop");
  create(1, 0, 2, MPROF_TIMER, "timer");
  create(2, 0, 3, MPROF_TIMER, "timer");
  ev(MPROF_EVENT_SWITCH, 5, 0, 1, 0);
  ev(MPROF_EVENT_SUSPEND, 10, 1, 0, 0);
  ev(MPROF_EVENT_SWITCH, 100, 0, 2, 0);
  ev(MPROF_EVENT_SWITCH, 100 + 19999999, 2, 1, 0);
  ev(MPROF_EVENT_SUSPEND, 20100000, 1, 0, 0);
  ev(MPROF_EVENT_SWITCH, 20200000, 0, 2, 0);
  ev(MPROF_EVENT_SWITCH, 45200000, 2, 1, 0);
  ev(MPROF_EVENT_SWITCH, 45200100, 1, 3, 0);
  ev(MPROF_EVENT_SWITCH, 45200200, 3, 1, 0);
  ev(MPROF_EVENT_SWITCH, 45300000, 1, 0, 0);
}

/* A callback that holds the loop 20 ms or more is found, with the loop and
 * the callback that waited; the threshold is the caller's. */
static void test_loop_blocked(void **state) {
  (void)state;
  loop_story();
  const mprof_model_view_t *v = finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  assert_int_equal(findings_of(&a, MPROF_FINDING_LOOP_BLOCKED), 1);
  const mprof_finding_t *f = first_finding(&a, MPROF_FINDING_LOOP_BLOCKED);
  assert_int_equal(f->severity, MPROF_SEVERITY_WARNING);
  assert_int_equal(f->value_ns, 25000000);
  assert_int_equal(f->start_ns, 20200000);
  assert_int_equal(f->thread_count, 3);
  assert_int_equal(a.finding_threads[f->first_thread],
                   mprof_model_find(model, 2));
  assert_int_equal(a.finding_threads[f->first_thread + 1],
                   mprof_model_find(model, 1));
  assert_int_equal(a.finding_threads[f->first_thread + 2],
                   mprof_model_find(model, 3));
  const mprof_evidence_t *e = &a.evidence[f->first_evidence];
  assert_int_equal(e[0].kind, MPROF_EVIDENCE_RAN);
  assert_int_equal(e[1].kind, MPROF_EVIDENCE_PENDING);
  assert_int_equal(e[1].end_ns, 45200100);
  assert_string_equal(
      a.text + f->summary,
      "a callback of \"timer\" (timer#2) held \"default loop\" "
      "(loop#1) for 25.0 ms at 20.2 ms without returning to it; "
      "1 callback waited");
  /* the loop's life: in poll 10..100 and 20.1..20.2 ms, running 5..10 and
   * between its callbacks, not running while they ran */
  const mprof_thread_time_t *loop = &a.times[mprof_model_find(model, 1)];
  assert_int_equal(loop->in_poll_ns, 90 + 100000);
  assert_int_equal(loop->not_running_ns,
                   loop->life_ns - loop->running_ns - loop->in_poll_ns);
  assert_true(loop->not_running_ns >= 19999999 + 25000000);
  assert_int_equal(v->threads[mprof_model_find(model, 2)].type, MPROF_TIMER);
  mprof_analysis_free(&a);
  mprof_analysis_options_t options = {15000000, 0, 0};
  assert_int_equal(mprof_model_analyse_with(model, &options, &a), 0);
  assert_int_equal(findings_of(&a, MPROF_FINDING_LOOP_BLOCKED), 2);
  /* the first block delayed no callback: only an info */
  assert_int_equal(a.findings[a.finding_count - 1].kind,
                   MPROF_FINDING_LOOP_BLOCKED);
  assert_int_equal(a.findings[a.finding_count - 1].severity,
                   MPROF_SEVERITY_INFO);
  assert_int_equal(a.findings[a.finding_count - 1].value_ns, 19999999);
  mprof_analysis_free(&a);
  options.loop_blocked_ns = 30000000;
  assert_int_equal(mprof_model_analyse_with(model, &options, &a), 0);
  assert_int_equal(findings_of(&a, MPROF_FINDING_LOOP_BLOCKED), 0);
  mprof_analysis_free(&a);
  options.loop_blocked_ns = -1;
  assert_int_equal(mprof_model_analyse_with(model, &options, &a), MPROF_EINVAL);
  mprof_model_free(model);
}

/* A timer created inside an async handle's callback, after a signal to the
 * handle, does not wait on the handle: no lost wake-up (Node.js does this
 * in every run).  A wait on a condition that missed its signal is one,
 * and comes before its stall. */
static void test_lost_wakeup_only_on_waits(void **state) {
  (void)state;
  begin();
  create(1, 0, 1, MPROF_HANDLE, "async");
  create(2, 0, 5, MPROF_CONDITION, "ready");
  ev(MPROF_EVENT_SIGNAL, 10, 0, 1, 0);
  ev(MPROF_EVENT_SWITCH, 20, 0, 1, 0);
  create(21, 1, 2, MPROF_TIMER, "timer"); /* never closed: pending */
  ev(MPROF_EVENT_SIGNAL, 30, 1, 5, 0);    /* nobody waits on "ready" */
  ev(MPROF_EVENT_SWITCH, 40, 1, 0, 0);
  ev(MPROF_EVENT_CREATE_BY, 50, 0, 6, 5); /* a wait made by the condition */
  ev_text(MPROF_EVENT_LABEL, 50, 6, "wait for ready");
  ev(MPROF_EVENT_SHOULD_RESOLVE, 50, 0, 6, 0);
  ev(MPROF_EVENT_SWITCH, 1000, 0, 0, 0);
  finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  assert_int_equal(a.lost_wakeup_count, 1);
  assert_int_equal(a.lost_wakeups[0].waiter, mprof_model_find(model, 6));
  assert_true(a.finding_count >= 2);
  assert_int_equal(a.findings[0].kind, MPROF_FINDING_LOST_WAKEUP);
  assert_int_equal(a.findings[1].kind, MPROF_FINDING_STALLED);
  assert_int_equal(a.finding_threads[a.findings[0].first_thread],
                   mprof_model_find(model, 6));
  const mprof_evidence_t *e = &a.evidence[a.findings[0].first_evidence];
  assert_int_equal(e->kind, MPROF_EVIDENCE_ARROW);
  assert_int_equal(mprof_model_view(model)->arrows[e->arrow].time_ns, 30 - 1);
  mprof_analysis_free(&a);
  mprof_model_free(model);
}

/* Requests are grouped by kind (numbers, paths and addresses left out),
 * with percentiles of their lives and their failures by error; one left
 * pending is leaked. */
static void test_requests_and_leaks(void **state) {
  (void)state;
  begin();
  static const char *const opens[] = {"fs open /tmp/x/f3", "fs open /tmp/y",
                                      "fs open /tmp/x/f10"};
  for (uint64_t i = 0; i < 3; i++) create(10 + i, 0, 1 + i, MPROF_FS, opens[i]);
  for (uint64_t i = 0; i < 3; i++) /* lives of 10, 20 and 30 ns */
    ev(MPROF_EVENT_RESOLVE, 10 + i + 10 * (i + 1), 1 + i, 1 + i, 0);
  for (uint64_t i = 0; i < 3; i++)
    create(100 + i, 0, 10 + i, MPROF_CONNECT, "connect 127.0.0.1:9");
  for (uint64_t i = 0; i < 3; i++)
    fail_request(110 + i, 10 + i, i < 2 ? "ECONNREFUSED" : "ETIMEDOUT");
  create(200, 0, 20, MPROF_WRITE, "write"); /* never ends */
  ev(MPROF_EVENT_SWITCH, 1000, 0, 0, 0);
  const mprof_model_view_t *v = finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  assert_int_equal(a.request_count, 3);
  const mprof_request_group_t *open = NULL, *connect = NULL;
  for (size_t i = 0; i < a.request_count; i++) {
    if (!strcmp(a.text + a.requests[i].name, "fs open")) open = &a.requests[i];
    if (!strcmp(a.text + a.requests[i].name, "connect"))
      connect = &a.requests[i];
  }
  assert_non_null(open);
  assert_int_equal(open->count, 3);
  assert_int_equal(open->p50_ns, 20);
  assert_int_equal(open->max_ns, 30);
  assert_int_equal(open->queue_p50_ns, -1);
  assert_non_null(connect);
  assert_int_equal(connect->failed, 3);
  assert_int_equal(connect->failure_count, 2);
  const mprof_failure_count_t *refused = &a.failures[connect->first_failure];
  assert_string_equal(v->strings + refused->error, "ECONNREFUSED");
  assert_int_equal(refused->count, 2);
  assert_int_equal(a.failures[connect->first_failure + 1].count, 1);
  assert_int_equal(findings_of(&a, MPROF_FINDING_LEAKED), 1);
  const mprof_finding_t *leak = first_finding(&a, MPROF_FINDING_LEAKED);
  assert_int_equal(a.finding_threads[leak->first_thread],
                   mprof_model_find(model, 20));
  assert_int_equal(leak->severity, MPROF_SEVERITY_WARNING);
  mprof_analysis_free(&a);
  mprof_model_free(model);
}

/* A connect refused and made again from its own callback, 6 times, is a
 * retry storm; 4 are not, nor are failures all made at once. */
static void test_retry_storm(void **state) {
  (void)state;
  for (uint64_t tries = 4; tries <= 6; tries += 2) {
    begin();
    for (uint64_t i = 1; i <= tries;
         i++) { /* each made in the last one's callback */
      create(100 * i, i - 1, i, MPROF_CONNECT, "connect 127.0.0.1:9");
      fail_request(100 * i + 50, i, "ECONNREFUSED");
    }
    for (uint64_t i = 0; i < 8; i++)
      create(1000 + i, 0, 100 + i, MPROF_WRITE, "write");
    for (uint64_t i = 0; i < 8; i++)
      fail_request(2000 + i, 100 + i, "ECANCELED");
    finish();
    mprof_analysis_t a;
    assert_int_equal(mprof_model_analyse(model, &a), 0);
    assert_int_equal(findings_of(&a, MPROF_FINDING_RETRY_STORM), tries == 6);
    const mprof_finding_t *f = first_finding(&a, MPROF_FINDING_RETRY_STORM);
    if (f) {
      assert_int_equal(a.finding_threads[f->first_thread],
                       mprof_model_find(model, 1));
      assert_int_equal(a.evidence[f->first_evidence].count, 6);
      assert_non_null(
          strstr(a.text + f->summary,
                 "6 \"connect\" requests failed in a row with ECONNREFUSED"));
    }
    mprof_analysis_free(&a);
    mprof_model_free(model);
  }
}

/* 64 writes pending at once for 100 ms or more is a backlog; the same
 * burst drained in 99 ms is not. */
static void test_write_backlog(void **state) {
  (void)state;
  for (uint64_t drain = 99000000; drain <= 100000000; drain += 1000000) {
    begin();
    create(10, 0, 1, MPROF_HANDLE, "tcp");
    for (uint64_t i = 0; i < 64; i++)
      create(100 + i, 1, 10 + i, MPROF_WRITE, "write");
    for (uint64_t i = 0; i < 64; i++)
      ev(MPROF_EVENT_RESOLVE, 100 + drain + i, 10 + i, 10 + i, 0);
    finish();
    mprof_analysis_t a;
    assert_int_equal(mprof_model_analyse(model, &a), 0);
    assert_int_equal(findings_of(&a, MPROF_FINDING_WRITE_BACKLOG),
                     drain >= 100000000);
    const mprof_finding_t *f = first_finding(&a, MPROF_FINDING_WRITE_BACKLOG);
    if (f) {
      assert_int_equal(a.finding_threads[f->first_thread],
                       mprof_model_find(model, 10));
      assert_int_equal(a.finding_threads[f->first_thread + 1],
                       mprof_model_find(model, 1));
      assert_int_equal(f->value_ns, 100000000);
    }
    mprof_analysis_free(&a);
    mprof_model_free(model);
  }
}

/* 1 waits on 2, 2 on 3 and 3 on 1, to the end: a wait cycle, closed when
 * 3 began to wait; 4 waits on 5, which ends: none. */
static void test_wait_cycle(void **state) {
  (void)state;
  begin();
  for (uint64_t i = 1; i <= 5; i++) ev(MPROF_EVENT_CREATE, i, 0, i, 0);
  ev(MPROF_EVENT_TRY_READ, 10, 1, 2, 0);
  ev(MPROF_EVENT_TRY_READ, 20, 2, 3, 0);
  ev(MPROF_EVENT_TRY_READ, 30, 3, 1, 0);
  ev(MPROF_EVENT_TRY_READ, 40, 4, 5, 0);
  ev(MPROF_EVENT_RESOLVE, 50, 5, 5, 0);
  ev(MPROF_EVENT_SWITCH, 1000, 0, 0, 0);
  finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  assert_int_equal(a.cycle_count, 1);
  assert_int_equal(findings_of(&a, MPROF_FINDING_WAIT_CYCLE), 1);
  const mprof_finding_t *f = first_finding(&a, MPROF_FINDING_WAIT_CYCLE);
  assert_int_equal(f->severity, MPROF_SEVERITY_ERROR);
  assert_int_equal(f->thread_count, 3);
  for (uint32_t k = 0; k < 3; k++)
    assert_int_equal(a.finding_threads[f->first_thread + k],
                     mprof_model_find(model, k + 1));
  assert_int_equal(f->start_ns, 30 - 1);
  assert_string_equal(
      a.text + f->summary,
      "task#1 waits on task#2, which waits on task#3, which waits on "
      "task#1: a cycle of 3 waits, closed at 29 ns, still open when "
      "the trace ends");
  assert_int_equal(a.findings[0].kind, MPROF_FINDING_WAIT_CYCLE);
  mprof_analysis_free(&a);
  mprof_model_free(model);
}

/* --- A real trace --------------------------------------------------------- */

static void test_net_ctf(void **state) {
  (void)state;
  mprof_trace_t *trace;
  assert_int_equal(mprof_trace_open(net_ctf, NULL, NULL, &trace), 0);
  assert_int_equal(mprof_model_load(trace, &model), 0);
  const mprof_model_view_t *v = mprof_model_view(model);
  assert_int_equal(v->events, 10078);
  /* 1816 creates + the main thread, which predates the trace, + root */
  assert_int_equal(v->thread_count, 1818);
  assert_int_equal(v->label_count, 2185);
  assert_int_equal(v->counter_count, 4);
  assert_string_equal(v->strings + v->counters[0].name, "gntref");
  assert_int_equal(count_arrows(MPROF_ARROW_BECOMES), 215);
  assert_true(v->row_count > 1 && v->row_count < 1818);
  size_t gc = 0, idle = 0;
  for (size_t i = 0; i < v->band_count; i++) {
    gc += v->bands[i].kind == MPROF_BAND_GC;
    idle += v->bands[i].kind == MPROF_BAND_IDLE;
  }
  assert_int_equal(gc, 1);
  assert_true(idle > 10);
  mprof_model_free(model);
  mprof_trace_close(trace);
}

/* A label that repeats is kept once; a buffer reused for another text
 * (same address, other bytes, or a prefix) still gives each its own. */
static void test_labels_interned_once(void **state) {
  (void)state;
  begin();
  static const char get[] = "GET /";
  char buf[16];
  for (uint64_t id = 1; id <= 4; id++) ev(MPROF_EVENT_CREATE, id, 0, id, 0);
  ev_text(MPROF_EVENT_LABEL, 10, 1, get);
  ev_text(MPROF_EVENT_LABEL, 11, 2, get);
  strcpy(buf, "POST /api");
  ev_text(MPROF_EVENT_LABEL, 12, 3, buf);
  strcpy(buf, "POST");
  ev_text(MPROF_EVENT_LABEL, 13, 4, buf);
  const mprof_model_view_t *v = finish();
  assert_int_equal(v->label_count, 4);
  const mprof_label_t *l = v->labels;
  assert_int_equal(l[0].text, l[1].text);
  assert_string_equal(v->strings + l[0].text, "GET /");
  assert_string_equal(v->strings + l[2].text, "POST /api");
  assert_string_equal(v->strings + l[3].text, "POST");
  mprof_model_free(model);
}

/* A model fed from a trace holds nothing of the trace's bytes: freed
 * before mprof_model_finish() (ASan would see a later read), it still
 * finishes into what mprof_model_load() makes. */
static void test_feed_then_free_trace(void **state) {
  (void)state;
  FILE *f = fopen(net_ctf, "rb");
  assert_non_null(f);
  static uint8_t copy[4 << 20];
  size_t size = fread(copy, 1, sizeof copy, f);
  fclose(f);
  uint8_t *bytes = malloc(size);
  assert_non_null(bytes);
  memcpy(bytes, copy, size);
  mprof_trace_t *trace;
  assert_int_equal(
      mprof_trace_open_memory(bytes, size, "net", NULL, NULL, &trace), 0);
  const mprof_trace_t *traces[] = {trace};
  mprof_model_sizes_t sizes;
  assert_int_equal(mprof_model_count(traces, 1, &sizes), 0);
  assert_true(sizes.threads >= 1818 && sizes.threads < 2 * 1818);
  assert_true(sizes.labels >= 2185 && sizes.labels < 2 * 2185);
  assert_int_equal(mprof_model_feed_many(traces, 1, NULL, &sizes, &model), 0);
  mprof_trace_close(trace);
  memset(bytes, 0xff, size);
  free(bytes);
  const mprof_model_view_t *v = finish();
  assert_int_equal(v->events, 10078);
  assert_int_equal(v->thread_count, 1818);
  assert_int_equal(v->label_count, 2185);
  assert_string_equal(v->strings + v->counters[0].name, "gntref");
  size_t named = 0;
  for (size_t i = 0; i < v->label_count; i++)
    named += v->strings[v->labels[i].text] != 0;
  assert_int_equal(named, v->label_count);
  mprof_model_free(model);
}

/* Events gathered by mprof_trace_packet_events. */
typedef struct gathered_s {
  mprof_event_t *events;
  size_t count, capacity;
} gathered_t;

static int gather(void *context, const mprof_event_t *event) {
  gathered_t *g = context;
  assert_true(g->count < g->capacity);
  g->events[g->count++] = *event;
  return 0;
}

static void quiet(void *context, const char *line) {
  (void)context;
  (void)line;
}

/* mprof_trace_packet_decode_copy() gives the same events as the decoding
 * in place (events[0 .. n), `damaged` or not), texts equal byte for byte;
 * it reads the packets of an mprof trace opened from a file, and a scratch
 * of packet_size bytes is enough. */
static void check_decode_copy(const mprof_trace_t *trace, size_t packet,
                              const mprof_event_t *events, size_t n,
                              int damaged) {
  const mprof_trace_info_t *info = mprof_trace_info(trace);
  assert_int_equal(mprof_trace_copies_packets(trace), !info->legacy);
  size_t most = mprof_trace_packet_max_events(trace, packet);
  mprof_event_t *copied = calloc(most + 1, sizeof *copied);
  void *scratch = malloc(info->packet_size);
  assert_non_null(copied);
  assert_non_null(scratch);
  int copy_damaged = -1;
  assert_int_equal(mprof_trace_packet_decode_copy(trace, packet, scratch,
                                                  copied, most, &copy_damaged),
                   n);
  assert_int_equal(copy_damaged, damaged);
  for (size_t k = 0; k < n; k++) {
    mprof_event_t a = events[k], b = copied[k];
    assert_int_equal(a.text_length, b.text_length);
    if (a.text_length) assert_memory_equal(a.text, b.text, a.text_length);
    a.text = b.text = NULL;
    assert_memory_equal(&a, &b, sizeof a);
  }
  free(copied);
  free(scratch);
}

/* mprof_trace_packet_decode gives, packet by packet, exactly what
 * mprof_trace_packet_events delivers, stops at its capacity, and says
 * when damage ended a packet (and the census counts what it delivered);
 * returns how many packets were damaged. */
static size_t check_packet_decode(const char *path) {
  mprof_trace_t *trace;
  assert_int_equal(mprof_trace_open(path, quiet, NULL, &trace), 0);
  size_t damaged_packets = 0;
  for (size_t i = 0; i < mprof_trace_packet_count(trace); i++) {
    size_t most = mprof_trace_packet_max_events(trace, i);
    gathered_t g = {calloc(most + 1, sizeof *g.events), 0, most};
    mprof_event_t *events = calloc(most + 1, sizeof *events);
    assert_non_null(g.events);
    assert_non_null(events);
    long delivered = mprof_trace_packet_events(trace, i, gather, &g);
    int damaged = -1;
    size_t n = mprof_trace_packet_decode(trace, i, events, most, &damaged);
    assert_int_equal(n, g.count);
    assert_int_equal(damaged, delivered < 0);
    assert_memory_equal(events, g.events, n * sizeof *events);
    check_census(trace, i, events, n);
    check_decode_copy(trace, i, events, n, damaged);
    damaged_packets += (size_t)damaged;
    if (n > 2) {
      assert_int_equal(mprof_trace_packet_decode(trace, i, events, 2, NULL), 2);
      assert_memory_equal(events, g.events, 2 * sizeof *events);
    }
    free(g.events);
    free(events);
  }
  mprof_trace_close(trace);
  return damaged_packets;
}

static const char *damaged_ctf; /* an mprof trace with a bad event id */

static void test_packet_decode(void **state) {
  (void)state;
  assert_int_equal(check_packet_decode(net_ctf), 0);
  assert_int_equal(check_packet_decode(damaged_ctf), 1);
}

/* mprof_model_count() bounds what the load makes, on a legacy trace and on
 * an mprof one (damaged: the count stops where the load does). */
static void check_sizes(const char *path) {
  mprof_trace_t *trace;
  assert_int_equal(mprof_trace_open(path, quiet, NULL, &trace), 0);
  const mprof_trace_t *traces[] = {trace};
  mprof_model_sizes_t sizes;
  assert_int_equal(mprof_model_count(traces, 1, &sizes), 0);
  assert_int_equal(mprof_model_load(trace, &model), 0);
  const mprof_model_view_t *v = mprof_model_view(model);
  assert_true(v->thread_count <= sizes.threads);
  assert_true(v->arrow_count <= sizes.arrows);
  assert_true(v->label_count <= sizes.labels);
  assert_true(v->running_count <= sizes.spans);
  assert_true(v->sample_count <= sizes.samples);
  assert_true(sizes.arrows < 2 * v->arrow_count + 16);
  mprof_model_free(model);
  mprof_trace_close(trace);
}

static void test_sizes_bound_the_load(void **state) {
  (void)state;
  check_sizes(net_ctf);
  check_sizes(damaged_ctf);
}

int main(int argc, char **argv) {
  net_ctf = argc > 1 ? argv[1] : "test/data/net.ctf";
  damaged_ctf =
      argc > 2 ? argv[2] : "test/data/damaged/event-id-out-of-range.ctf";
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
      cmocka_unit_test(test_lost_wakeup_and_stall),
      cmocka_unit_test(test_heard_signal_is_fine),
      cmocka_unit_test(test_chain_and_critical_path),
      cmocka_unit_test(test_loop_blocked),
      cmocka_unit_test(test_lost_wakeup_only_on_waits),
      cmocka_unit_test(test_requests_and_leaks),
      cmocka_unit_test(test_retry_storm),
      cmocka_unit_test(test_write_backlog),
      cmocka_unit_test(test_wait_cycle),
      cmocka_unit_test(test_net_ctf),
      cmocka_unit_test(test_packet_decode),
      cmocka_unit_test(test_labels_interned_once),
      cmocka_unit_test(test_feed_then_free_trace),
      cmocka_unit_test(test_sizes_bound_the_load),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
