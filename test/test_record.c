/* test_record.c -- the recorder, checked by reading back what it wrote:
 * every event kind with its fields and times, compact and extended headers,
 * wide ids, ring overwrite and discard with exact discarded counts, names
 * surviving the ring, strings, OS-thread streams, start errors.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mprof.h"
#include "census_check.h"
#include "mprof/read.h"

/* A deterministic clock: each reading advances by clock_step ticks. */
static uint64_t clock_ticks;
static uint64_t clock_step = 10;
static uint64_t fake_clock(void) { return clock_ticks += clock_step; }

/* Events read back from a buffer, with their strings copied. */
typedef struct readback_s {
  mprof_event_t events[200000];
  char text[200000][48];
  size_t count;
  uint64_t packets;
  uint64_t discarded; /* largest events_discarded of any packet */
} readback_t;

static readback_t rb;

static int collect(void *context, const mprof_event_t *ev) {
  (void)context;
  if (rb.count == sizeof rb.events / sizeof *rb.events) return 1;
  rb.events[rb.count] = *ev;
  size_t n = ev->text_length < 47 ? ev->text_length : 47;
  if (ev->text) memcpy(rb.text[rb.count], ev->text, n);
  rb.text[rb.count][n] = 0;
  rb.count++;
  return 0;
}

static int diag_count;
static void count_diag(void *context, const char *message) {
  (void)context;
  print_error("%s\n", message);
  diag_count++;
}

/* Read buffer back into rb; fails the test on any diagnostic, or where
 * the census of a packet counts other events than it delivered. */
static void read_back(const void *buffer, size_t size) {
  mprof_trace_t *trace;
  memset(&rb, 0, sizeof rb);
  diag_count = 0;
  assert_int_equal(
      mprof_trace_open_memory(buffer, size, "test", count_diag, NULL, &trace),
      0);
  rb.packets = mprof_trace_packet_count(trace);
  for (size_t i = 0; i < rb.packets; i++) {
    const mprof_packet_info_t *p = mprof_trace_packet(trace, i);
    if (p->events_discarded > rb.discarded) rb.discarded = p->events_discarded;
    size_t before = rb.count;
    assert_true(mprof_trace_packet_events(trace, i, collect, NULL) >= 0);
    check_census(trace, i, &rb.events[before], rb.count - before);
  }
  mprof_trace_close(trace);
  assert_int_equal(diag_count, 0);
}

static void *buffer_new(size_t size) {
  void *b = aligned_alloc(4096, size);
  assert_non_null(b);
  memset(b, 0xAB, size); /* garbage, as in a reused buffer */
  return b;
}

static mprof_config_t config_for(void *buffer, size_t size) {
  mprof_config_t config;
  memset(&config, 0, sizeof config);
  config.buffer = buffer;
  config.size = size;
  config.clock = fake_clock;
  config.clock_freq_hz = 1000000000u;
  config.name = "test_record";
  return config;
}

static const mprof_event_t *find(mprof_event_kind_t kind, size_t nth) {
  for (size_t i = 0; i < rb.count; i++)
    if (rb.events[i].kind == kind && nth-- == 0) return &rb.events[i];
  return NULL;
}

static size_t count_kind(mprof_event_kind_t kind) {
  size_t n = 0;
  for (size_t i = 0; i < rb.count; i++) n += rb.events[i].kind == kind;
  return n;
}

static void every_event_round_trips(void **state) {
  (void)state;
  size_t size = 1 << 20;
  void *b = buffer_new(size);
  mprof_config_t config = config_for(b, size);
  clock_ticks = 1000;
  assert_int_equal(mprof_start(&config), 0);
  uint64_t main_thread = mprof_create(MPROF_TASK);
  mprof_switch(main_thread);
  uint64_t wait = mprof_named_wait("reply");
  mprof_try_read(wait);
  mprof_signal(wait);
  mprof_resolve(wait);
  mprof_read(wait);
  uint64_t bind = mprof_create(MPROF_BIND);
  mprof_becomes(bind, wait);
  mprof_fail(bind, "timeout\n\x1b[31m");
  mprof_should_resolve(wait);
  mprof_counter_t c = mprof_counter_make("bytes");
  mprof_counter_increase(c, -7);
  mprof_counter_value(c, (int64_t)1 << 40);
  uint64_t cond = mprof_named_condition("ready");
  uint64_t waiter = mprof_condition_wait(cond, "waiter");
  mprof_suspend();
  assert_int_equal(mprof_current(), MPROF_NONE);
  mprof_stop();
  read_back(b, size);

  const mprof_event_t *e = find(MPROF_EVENT_CREATE, 0);
  assert_non_null(e);
  assert_int_equal(e->a, main_thread);
  assert_int_equal(e->type, MPROF_TASK);
  assert_int_equal(e->thread, MPROF_NONE);
  assert_non_null(e = find(MPROF_EVENT_SWITCH, 0));
  assert_int_equal(e->a, main_thread);
  assert_non_null(e = find(MPROF_EVENT_LABEL, 0));
  assert_int_equal(e->a, wait);
  assert_string_equal(rb.text[e - rb.events], "reply");
  assert_non_null(e = find(MPROF_EVENT_TRY_READ, 0));
  assert_int_equal(e->a, wait);
  assert_int_equal(e->thread, main_thread);
  assert_non_null(e = find(MPROF_EVENT_SIGNAL, 0));
  assert_int_equal(e->a, wait);
  assert_non_null(e = find(MPROF_EVENT_RESOLVE, 0));
  assert_int_equal(e->a, wait);
  assert_non_null(e = find(MPROF_EVENT_READ, 0));
  assert_int_equal(e->a, wait);
  assert_non_null(e = find(MPROF_EVENT_BECOMES, 0));
  assert_int_equal(e->a, bind);
  assert_int_equal(e->b, wait);
  assert_non_null(e = find(MPROF_EVENT_FAIL, 0));
  assert_int_equal(e->a, bind);
  assert_string_equal(rb.text[e - rb.events], "timeout\n\x1b[31m");
  assert_non_null(e = find(MPROF_EVENT_SHOULD_RESOLVE, 0));
  assert_int_equal(e->a, wait);
  assert_non_null(e = find(MPROF_EVENT_COUNTER_NAME, 0));
  assert_int_equal(e->counter, c);
  assert_string_equal(rb.text[e - rb.events], "bytes");
  assert_non_null(e = find(MPROF_EVENT_COUNTER_INCREASE, 0));
  assert_int_equal(e->value, -7);
  assert_non_null(e = find(MPROF_EVENT_COUNTER_VALUE, 0));
  assert_int_equal(e->value, (int64_t)1 << 40);
  assert_non_null(e = find(MPROF_EVENT_CREATE_BY, 0));
  assert_int_equal(e->a, waiter);
  assert_int_equal(e->b, cond);
  assert_int_equal(e->type, MPROF_WAIT);
  assert_non_null(find(MPROF_EVENT_SUSPEND, 0));
  /* One clock reading per event, 10 ticks apart, in the ring. */
  uint64_t previous = 0;
  for (size_t i = 0; i < rb.count; i++) {
    mprof_event_kind_t k = rb.events[i].kind;
    if (k == MPROF_EVENT_LABEL || k == MPROF_EVENT_SHOULD_RESOLVE ||
        k == MPROF_EVENT_COUNTER_NAME || k == MPROF_EVENT_STRING)
      continue; /* the names area: a stream of its own */
    assert_true(rb.events[i].time_ticks > previous);
    assert_int_equal(rb.events[i].time_ticks % 10, 0);
    previous = rb.events[i].time_ticks;
  }
  free(b);
}

/* Gaps of 2^27 ticks and more need the extended header; times must come
 * back exact either way, including across 27-bit wraps. */
static void timestamps_survive_large_gaps(void **state) {
  (void)state;
  size_t size = 1 << 20;
  void *b = buffer_new(size);
  mprof_config_t config = config_for(b, size);
  clock_ticks = ((uint64_t)1 << 27) - 50;
  static const uint64_t steps[] = {10,
                                   100,
                                   (uint64_t)1 << 27,
                                   7,
                                   ((uint64_t)1 << 27) - 1,
                                   1,
                                   (uint64_t)1 << 40,
                                   3};
  uint64_t expected[8];
  assert_int_equal(mprof_start(&config), 0);
  for (int i = 0; i < 8; i++) {
    clock_step = steps[i];
    mprof_resolve((uint64_t)i + 1);
    expected[i] = clock_ticks;
  }
  clock_step = 10;
  mprof_stop();
  read_back(b, size);
  assert_int_equal(count_kind(MPROF_EVENT_RESOLVE), 8);
  for (int i = 0; i < 8; i++) {
    const mprof_event_t *e = find(MPROF_EVENT_RESOLVE, (size_t)i);
    assert_int_equal(e->a, (uint64_t)i + 1);
    assert_int_equal(e->time_ticks, expected[i]);
  }
  free(b);
}

static void wide_ids_round_trip(void **state) {
  (void)state;
  size_t size = 1 << 20;
  void *b = buffer_new(size);
  mprof_config_t config = config_for(b, size);
  /* The widest id a trace may hold: readers take 2^56 and up for damage
   * (docs/FORMAT.md). */
  uint64_t big = (uint64_t)1 << 40, huge = ((uint64_t)1 << 56) - 1;
  assert_int_equal(mprof_start(&config), 0);
  mprof_switch(big);
  mprof_read(huge);
  mprof_becomes(5, huge);
  mprof_label(big, "big");
  mprof_stop();
  read_back(b, size);
  const mprof_event_t *e = find(MPROF_EVENT_SWITCH, 0);
  assert_int_equal(e->a, big);
  e = find(MPROF_EVENT_READ, 0);
  assert_int_equal(e->a, huge);
  assert_int_equal(e->thread, big);
  e = find(MPROF_EVENT_BECOMES, 0);
  assert_int_equal(e->a, 5);
  assert_int_equal(e->b, huge);
  e = find(MPROF_EVENT_LABEL, 0);
  assert_int_equal(e->a, big);
  free(b);
}

/* Overwrite mode keeps the newest events, whole packets at a time, and the
 * names area keeps labels and counter names written at the very start. */
static void overwrite_keeps_newest_and_names(void **state) {
  (void)state;
  size_t size = 128 * 1024;
  void *b = buffer_new(size);
  mprof_config_t config = config_for(b, size);
  config.packet_size = 4096;
  assert_int_equal(mprof_start(&config), 0);
  mprof_counter_t c = mprof_counter_make("early counter");
  mprof_label(1, "early label");
  const uint32_t total = 100000;
  for (uint32_t i = 1; i <= total; i++) mprof_resolve(i);
  mprof_stop();
  read_back(b, size);
  size_t resolves = count_kind(MPROF_EVENT_RESOLVE);
  assert_true(resolves > 1000 && resolves < total);
  /* The survivors are exactly the newest ones, in order. */
  uint64_t next = total - resolves + 1;
  for (size_t i = 0; i < rb.count; i++)
    if (rb.events[i].kind == MPROF_EVENT_RESOLVE)
      assert_int_equal(rb.events[i].a, next++);
  assert_int_equal(next, total + 1);
  const mprof_event_t *e = find(MPROF_EVENT_LABEL, 0);
  assert_non_null(e);
  assert_string_equal(rb.text[e - rb.events], "early label");
  /* Counters made in earlier tests are named again at each start. */
  size_t names = count_kind(MPROF_EVENT_COUNTER_NAME);
  assert_true(names >= 1);
  e = find(MPROF_EVENT_COUNTER_NAME, names - 1);
  assert_int_equal(e->counter, c);
  assert_string_equal(rb.text[e - rb.events], "early counter");
  assert_int_equal(rb.discarded, 0);
  free(b);
}

/* Discard mode keeps the oldest events and counts every dropped one. */
static void discard_counts_exactly(void **state) {
  (void)state;
  size_t size = 128 * 1024;
  void *b = buffer_new(size);
  mprof_config_t config = config_for(b, size);
  config.packet_size = 4096;
  config.ring_mode = MPROF_RING_DISCARD;
  assert_int_equal(mprof_start(&config), 0);
  const uint32_t total = 100000;
  for (uint32_t i = 1; i <= total; i++) mprof_resolve(i);
  uint64_t dropped = mprof_discarded();
  mprof_stop();
  read_back(b, size);
  size_t kept = count_kind(MPROF_EVENT_RESOLVE);
  assert_int_equal(kept + dropped, total);
  assert_int_equal(rb.discarded, dropped);
  for (size_t i = 0; i < kept; i++)
    assert_int_equal(find(MPROF_EVENT_RESOLVE, i)->a, i + 1);
  free(b);
}

static void long_strings_are_cut_not_lost(void **state) {
  (void)state;
  size_t size = 1 << 20;
  void *b = buffer_new(size);
  mprof_config_t config = config_for(b, size);
  char *label = malloc(100000);
  memset(label, 'x', 99999);
  label[99999] = 0;
  assert_int_equal(mprof_start(&config), 0);
  mprof_label(3, label);
  mprof_label(4, "");
  mprof_label(5, NULL);
  mprof_stop();
  read_back(b, size);
  assert_int_equal(count_kind(MPROF_EVENT_LABEL), 3);
  assert_int_equal(find(MPROF_EVENT_LABEL, 0)->text_length, 1024);
  assert_int_equal(find(MPROF_EVENT_LABEL, 1)->text_length, 0);
  free(label);
  free(b);
}

static void *record_in_thread(void *arg) {
  uint64_t base = (uint64_t)(uintptr_t)arg;
  for (uint64_t i = 0; i < 5000; i++) mprof_resolve(base + i);
  mprof_thread_exit();
  return NULL;
}

/* Each OS thread writes its own stream; every event arrives, in order. */
static void os_threads_get_their_own_streams(void **state) {
  (void)state;
  size_t size = 4 << 20;
  void *b = buffer_new(size);
  mprof_config_t config = config_for(b, size);
  config.clock = NULL; /* the TSC: fake_clock is not thread-safe */
  assert_int_equal(mprof_start(&config), 0);
  pthread_t threads[4];
  for (uintptr_t t = 0; t < 4; t++)
    pthread_create(&threads[t], NULL, record_in_thread,
                   (void *)((t + 1) * 1000000));
  for (int t = 0; t < 4; t++) pthread_join(threads[t], NULL);
  mprof_stop();
  read_back(b, size);
  assert_int_equal(count_kind(MPROF_EVENT_RESOLVE), 4 * 5000);
  uint64_t next[5] = {0};
  uint32_t stream_of[5] = {0};
  for (size_t i = 0; i < rb.count; i++) {
    if (rb.events[i].kind != MPROF_EVENT_RESOLVE) continue;
    uint64_t a = rb.events[i].a, t = a / 1000000;
    assert_true(t >= 1 && t <= 4);
    if (next[t] == 0) stream_of[t] = rb.events[i].stream;
    assert_int_equal(rb.events[i].stream, stream_of[t]);
    assert_int_equal(a % 1000000, next[t]++);
  }
  free(b);
}

static void start_checks_its_arguments(void **state) {
  (void)state;
  size_t size = 1 << 20;
  uint8_t *b = buffer_new(size);
  mprof_config_t config = config_for(b, size);
  assert_int_equal(mprof_create(MPROF_TASK), MPROF_NONE); /* not started */
  assert_int_equal(mprof_start(NULL), MPROF_EINVAL);
  config.size = 1000;
  assert_int_equal(mprof_start(&config), MPROF_ENOSPC);
  config = config_for(b + 1, size - 8);
  assert_int_equal(mprof_start(&config), MPROF_EINVAL);
  config = config_for(b, size);
  config.clock_freq_hz = 0;
  assert_int_equal(mprof_start(&config), MPROF_ENOCLOCK);
  config = config_for(b, size);
  config.packet_size = 3000;
  assert_int_equal(mprof_start(&config), MPROF_EINVAL);
  config = config_for(b, size);
  assert_int_equal(mprof_start(&config), 0);
  assert_int_equal(mprof_start(&config), MPROF_EBUSY);
  mprof_stop();
  assert_string_equal(mprof_strerror(MPROF_ENOSPC),
                      "buffer too small for a trace");
  assert_string_equal(mprof_type_name(MPROF_CONDITION), "condition");
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_event_round_trips),
      cmocka_unit_test(timestamps_survive_large_gaps),
      cmocka_unit_test(wide_ids_round_trip),
      cmocka_unit_test(overwrite_keeps_newest_and_names),
      cmocka_unit_test(discard_counts_exactly),
      cmocka_unit_test(long_strings_are_cut_not_lost),
      cmocka_unit_test(os_threads_get_their_own_streams),
      cmocka_unit_test(start_checks_its_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
