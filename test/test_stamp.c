/* test_stamp.c -- the streamed analysis's stamps (src/model/stream_stamp.c)
 * against a plain recomputation: each event's time is ns since the first
 * event, never before the latest of its own stream (a stream whose clock
 * steps back is held there, another is not), its stream is the place of
 * that stream in the order streams came, and the duration is the latest
 * time.  Streams are numbered as one trace's (0, 300) and as merged
 * traces' (trace << 24 | stream), two of them remembered in the same
 * slot, in puts of every size; stamping copies gives what stamping in
 * place does, the events given untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../src/model/stream_internal.h"

#define EVENTS 5000

/* Stream numbers: 5 and (1 << 24 | 32) share a slot of the stamper's. */
static const uint32_t streams[] = {0, 300, 1u << 24 | 32,
                                   5, 17,  2u << 24 | 300};
#define STREAMS (sizeof streams / sizeof *streams)

/* Event i: a stream chosen by a shuffle, a clock that goes forward by
 * steps of 1 to 9 ticks, except on stream 300 where it steps back now
 * and then. */
static void make_events(mprof_event_t *events, uint64_t base) {
  uint64_t clock = base;
  for (size_t i = 0; i < EVENTS; i++) {
    memset(&events[i], 0, sizeof events[i]);
    uint32_t stream = streams[(i * 7 + i / 13) % STREAMS];
    clock += 1 + i % 9;
    events[i].time_ticks = stream == 300 && i % 5 == 0 ? clock - 40 : clock;
    events[i].stream = stream;
    events[i].kind = MPROF_EVENT_SWITCH;
    events[i].a = i;
  }
}

/* What the stamps should be, worked out plainly (a clock of 1 GHz). */
static void expect(const mprof_event_t *events, mprof_event_t *want,
                   int64_t *duration) {
  uint32_t seen[STREAMS];
  int64_t latest[STREAMS];
  size_t places = 0;
  *duration = 0;
  for (size_t i = 0; i < EVENTS; i++) {
    size_t p = 0;
    while (p < places && seen[p] != events[i].stream) p++;
    int64_t t = events[i].time_ticks > events[0].time_ticks
                    ? (int64_t)(events[i].time_ticks - events[0].time_ticks)
                    : 0;
    if (p == places) {
      seen[places++] = events[i].stream;
      latest[p] = t;
    }
    if (t < latest[p]) t = latest[p];
    latest[p] = t;
    if (t > *duration) *duration = t;
    want[i] = events[i];
    want[i].time_ticks = (uint64_t)t;
    want[i].stream = (uint32_t)p;
  }
  assert_int_equal(places, STREAMS);
}

static void assert_stamped(const mprof_event_t *got, const mprof_event_t *want,
                           size_t count) {
  for (size_t i = 0; i < count; i++) {
    assert_int_equal(got[i].time_ticks, want[i].time_ticks);
    assert_int_equal(got[i].stream, want[i].stream);
    assert_int_equal(got[i].a, want[i].a);
    assert_int_equal(got[i].kind, want[i].kind);
  }
}

static void test_in_place_in_puts_of_every_size(void **state) {
  (void)state;
  static mprof_event_t events[EVENTS], want[EVENTS];
  make_events(events, 1000000);
  int64_t duration;
  expect(events, want, &duration);
  for (size_t size = 1; size <= 64; size *= 4) {
    static mprof_event_t copies[EVENTS];
    memcpy(copies, events, sizeof events);
    stamper_t st;
    memset(&st, 0, sizeof st);
    mprof__stamper_begin(&st, 1000000000);
    for (size_t at = 0; at < EVENTS; at += size) {
      size_t n = EVENTS - at < size ? EVENTS - at : size;
      assert_int_equal(mprof__stamp_in_place(&st, copies + at, n), 0);
    }
    assert_stamped(copies, want, EVENTS);
    assert_int_equal(st.start_ticks, events[0].time_ticks);
    assert_int_equal(st.duration_ns, duration);
    mprof__stamper_free(&st);
  }
}

static void test_copies_leave_the_events(void **state) {
  (void)state;
  static mprof_event_t events[EVENTS], before[EVENTS], want[EVENTS];
  make_events(events, 77);
  memcpy(before, events, sizeof events);
  int64_t duration;
  expect(events, want, &duration);
  stamper_t st;
  memset(&st, 0, sizeof st);
  mprof__stamper_begin(&st, 1000000000);
  for (size_t at = 0; at < EVENTS; at += 1000) {
    const mprof_event_t *stamped;
    assert_int_equal(mprof__stamp(&st, events + at, 1000, &stamped), 0);
    assert_stamped(stamped, want + at, 1000);
  }
  assert_memory_equal(events, before, sizeof events);
  assert_int_equal(st.duration_ns, duration);
  mprof__stamper_free(&st);
}

/* A clock of 3 GHz: ns as the model's event loop converts them. */
static void test_clock_converted(void **state) {
  (void)state;
  mprof_event_t events[3];
  memset(events, 0, sizeof events);
  uint64_t ticks[3] = {3000, 3000 + 3000000000u, 3000 + 7u};
  for (int i = 0; i < 3; i++) events[i].time_ticks = ticks[i];
  stamper_t st;
  memset(&st, 0, sizeof st);
  mprof__stamper_begin(&st, 3000000000u);
  assert_int_equal(mprof__stamp_in_place(&st, events, 3), 0);
  assert_int_equal(events[0].time_ticks, 0);
  assert_int_equal(events[1].time_ticks, 1000000000);
  /* one stream: held at its latest, not 2 ns */
  assert_int_equal(events[2].time_ticks, 1000000000);
  assert_int_equal(st.duration_ns, 1000000000);
  mprof__stamper_free(&st);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_in_place_in_puts_of_every_size),
      cmocka_unit_test(test_copies_leave_the_events),
      cmocka_unit_test(test_clock_converted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
