/* test_merge_sort.c -- the load's merge of streams (src/model/load.c,
 * mprof__merge_traces) hands its sink every event once, in the order of a
 * plain sort of all streams' events: by clock, then by stream (in packet
 * order), then by place in the stream.  The traces are recorded by OS
 * threads that take turns an event or two at a time (runs of one or two
 * events, as two busy threads make), with a clock that ticks every few
 * readings (many equal clocks across streams), labels on the names
 * streams, and small packets (runs cross many packet ends); and by OS
 * threads that take long turns without labels (runs of hundreds of
 * events, across the ends of packets and of the merge's batches).  The
 * model's load, which merges streams in pairs of its own, makes the model
 * that the sorted events fed one by one make.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, in rel/in_memory.h */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../src/model/model_internal.h"
#include "mprof.h"
#include "mprof/read.h"
#include "rel/in_memory.h"
#include "same_model.h"

#define ROUNDS 2000

/* The clock: one tick every `per_tick` readings. */
static atomic_ulong readings;
static unsigned per_tick;

static uint64_t coarse_clock(void) {
  return 1000 + atomic_fetch_add(&readings, 1) / per_tick;
}

/* Whose turn it is, of `threads` OS threads; how many rounds a turn has;
 * whether requests are labelled. */
static atomic_uint turn;
static unsigned threads, turn_rounds, labelled;

/* OS thread `me`: each round a request made, now and then labelled (to
 * the names stream) or made twice. */
static void *take_turns(void *me) {
  uint64_t loop = mprof_create(MPROF_LOOP);
  for (unsigned i = 0; i < ROUNDS; i++) {
    while (atomic_load(&turn) / turn_rounds % threads !=
           (unsigned)(uintptr_t)me)
      sched_yield(); /* more threads than cores: let the one whose turn
                        it is run */
    uint64_t request = mprof_create(MPROF_REQUEST);
    if (labelled && i % 3 == 0) mprof_label(request, "GET /");
    if (i % 4 == 1) mprof_switch(loop);
    atomic_fetch_add(&turn, 1);
  }
  return NULL;
}

/* A trace recorded by n OS threads taking turns, in memory. */
static uint8_t *record(unsigned n, size_t size) {
  atomic_store(&readings, 0);
  atomic_store(&turn, 0);
  threads = n;
  uint8_t *buffer = in_memory_start_with((mprof_config_t){
      .size = size,
      .packet_size = 4096,
      .ring_mode = MPROF_RING_DISCARD,
      .clock = coarse_clock,
      .clock_freq_hz = 1000000000u,
  });
  assert_non_null(buffer);
  pthread_t os_threads[4];
  for (unsigned i = 0; i < n; i++)
    assert_int_equal(
        pthread_create(&os_threads[i], NULL, take_turns, (void *)(uintptr_t)i),
        0);
  for (unsigned i = 0; i < n; i++)
    assert_int_equal(pthread_join(os_threads[i], NULL), 0);
  mprof_stop();
  return buffer;
}

/* An event with the keys of the plain sort. */
typedef struct keyed_s {
  mprof_event_t ev;
  size_t stream, place;
} keyed_t;

static int by_keys(const void *a, const void *b) {
  const keyed_t *x = a, *y = b;
  if (x->ev.time_ticks != y->ev.time_ticks)
    return x->ev.time_ticks < y->ev.time_ticks ? -1 : 1;
  if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
  return x->place < y->place ? -1 : x->place > y->place;
}

/* Every event of the trace, sorted.  Streams are runs of packets of one
 * (class, instance), numbered in packet order, as the merge finds them. */
static keyed_t *sorted_events(const mprof_trace_t *trace, size_t *count) {
  size_t packets = mprof_trace_packet_count(trace), n = 0, most = 0;
  for (size_t i = 0; i < packets; i++)
    most += mprof_trace_packet_max_events(trace, i);
  keyed_t *all = calloc(most + 1, sizeof *all);
  mprof_event_t *events = calloc(most + 1, sizeof *events);
  assert_non_null(all);
  assert_non_null(events);
  size_t stream = 0, place = 0;
  for (size_t i = 0; i < packets; i++) {
    const mprof_packet_info_t *p = mprof_trace_packet(trace, i);
    if (i > 0 &&
        (p->stream_class != mprof_trace_packet(trace, i - 1)->stream_class ||
         p->stream_instance !=
             mprof_trace_packet(trace, i - 1)->stream_instance)) {
      stream++;
      place = 0;
    }
    size_t got = mprof_trace_packet_decode(trace, i, events, most, NULL);
    for (size_t k = 0; k < got; k++)
      all[n++] = (keyed_t){events[k], stream, place++};
  }
  free(events);
  qsort(all, n, sizeof *all, by_keys);
  *count = n;
  return all;
}

/* The sink: each event checked against the sorted ones as it comes. */
typedef struct check_s {
  const keyed_t *expected;
  size_t count, at, stream_changes;
  uint32_t last_stream;
} check_t;

static int check_begin(void *sink, uint64_t clock_freq_hz, int legacy) {
  (void)sink;
  assert_int_equal(clock_freq_hz, 1000000000u);
  assert_false(legacy);
  return 0;
}

static void check_run(check_t *c, mprof__run_t *r) {
  for (; r->at < r->count; r->at++) {
    const mprof_event_t *got = &r->events[r->at];
    assert_true(c->at < c->count);
    const mprof_event_t *want = &c->expected[c->at++].ev;
    assert_int_equal(got->time_ticks, want->time_ticks);
    assert_int_equal(got->kind, want->kind);
    assert_int_equal(got->stream, want->stream);
    assert_int_equal(got->thread, want->thread);
    assert_int_equal(got->a, want->a);
    assert_int_equal(got->b, want->b);
    assert_int_equal(got->text_length, want->text_length);
    if (got->text_length)
      assert_memory_equal(got->text, want->text, got->text_length);
    c->stream_changes += got->stream != c->last_stream;
    c->last_stream = got->stream;
  }
}

static int check_pair(void *sink, mprof__run_t *x, mprof__run_t *y) {
  check_run(sink, x);
  check_run(sink, y);
  return 0;
}

/* The model's load merges streams two at a time in its own event loop
 * (mprof_model_load): it must make the model that the events fed one by
 * one, in the plain sort's order, make. */
static void check_model(const mprof_trace_t *trace, const keyed_t *sorted,
                        size_t count) {
  mprof_model_t *loaded, *fed;
  assert_int_equal(mprof_model_load(trace, &loaded), 0);
  assert_int_equal(mprof_model_new(1000000000u, 0, &fed), 0);
  for (size_t i = 0; i < count; i++)
    assert_int_equal(mprof_model_add(fed, &sorted[i].ev), 0);
  assert_int_equal(mprof_model_finish(fed), 0);
  assert_int_equal(mprof_model_view(loaded)->events, count);
  assert_same_model(loaded, fed);
  mprof_model_free(loaded);
  mprof_model_free(fed);
}

/* Record with n OS threads taking turns of `rounds` rounds, labelled or
 * not, and a clock ticking every `ticks_every` readings, merge, and check;
 * returns the runs per event (how finely the streams interleave). */
static double check_merge(unsigned n, unsigned rounds, unsigned labels,
                          unsigned ticks_every) {
  turn_rounds = rounds;
  labelled = labels;
  per_tick = ticks_every;
  size_t size = 2u << 20;
  uint8_t *bytes = record(n, size);
  mprof_trace_t *trace;
  assert_int_equal(
      mprof_trace_open_memory(bytes, size, "merge", NULL, NULL, &trace), 0);
  check_t check = {0};
  keyed_t *expected = sorted_events(trace, &check.count);
  check.expected = expected;
  assert_true(check.count > ROUNDS * n);
  mprof__merge_t merge = {check_begin, check_pair, &check, NULL, NULL,
                          0,           0,          0,      0};
  const mprof_trace_t *traces[] = {trace};
  assert_int_equal(mprof__merge_traces(traces, 1, NULL, &merge), 0);
  assert_int_equal(check.at, check.count);
  check_model(trace, expected, check.count);
  free(expected);
  mprof_trace_close(trace);
  free(bytes);
  return (double)check.stream_changes / (double)check.count;
}

static void test_two_os_threads_taking_turns(void **state) {
  (void)state;
  assert_true(check_merge(2, 1, 1, 1) > 0.3);
  assert_true(check_merge(2, 1, 1, 3) > 0.3);
}

static void test_three_os_threads_taking_turns(void **state) {
  (void)state;
  assert_true(check_merge(3, 1, 1, 2) > 0.3);
}

static void test_long_turns(void **state) {
  (void)state;
  assert_true(check_merge(2, 500, 0, 2) < 0.01);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_two_os_threads_taking_turns),
      cmocka_unit_test(test_three_os_threads_taking_turns),
      cmocka_unit_test(test_long_turns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
