/* test_record_group.c -- the events the recorder writes in twos and
 * threes, at one instant (src/record/record.h): mprof__create_labelled()
 * (a create and its label beside it in the ring), mprof__resolve_switch(),
 * a net label after a switch at the same instant (MPROF__NET_ENTER), and
 * a request's sent bytes at its create's time (MPROF__NET_AT_LAST, or with
 * its create and label in mprof__create_sent()).  What each records, read
 * back: the same events, in order, as the calls they stand for, at one
 * time; a label that dies with its create, in the ring packet that holds
 * it; the resolver named by a packet that the pair opens; both events
 * counted when the ring is full; and the same events from the fast paths
 * that the TSC clock takes, which stop with the recording.
 */
#define _POSIX_C_SOURCE 200809L /* pthread barriers */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../src/record/record.h"
#include "mprof.h"
#include "fake_clock_start.h"
#include "mprof/read.h"

#define SIZE (256u * 1024u)
#define PACKET 4096u
#define MAX_EVENTS 80000

/* The events read back, packet by packet, each tagged with its packet,
 * its text copied. */
static mprof_event_t events[MAX_EVENTS];
static char texts[MAX_EVENTS][64];
static size_t packet_of[MAX_EVENTS];
static size_t event_count;
static uint64_t discarded;

static void *buffer;

/* Starts recording into a fresh buffer, running thread 42. */
static void start(mprof_ring_mode_t mode) {
  buffer = aligned_alloc(4096, SIZE);
  assert_non_null(buffer);
  memset(buffer, 0, SIZE);
  assert_int_equal(
      fake_clock_start(buffer, SIZE, PACKET, mode, "test_record_group"), 0);
}

/* Stops recording and reads every event back, the string events left
 * out. */
static void stop_and_read(void) {
  mprof_stop();
  mprof_trace_t *trace;
  assert_int_equal(
      mprof_trace_open_memory(buffer, SIZE, "t", NULL, NULL, &trace), 0);
  event_count = 0;
  for (size_t i = 0; i < mprof_trace_packet_count(trace); i++) {
    mprof_event_t got[2048];
    assert_true(mprof_trace_packet_max_events(trace, i) <= 2048);
    int damaged = 1;
    size_t n = mprof_trace_packet_decode(trace, i, got, 2048, &damaged);
    assert_int_equal(damaged, 0);
    for (size_t k = 0; k < n; k++) {
      if (got[k].kind == MPROF_EVENT_STRING) continue;
      assert_true(event_count < MAX_EVENTS);
      assert_true(got[k].text_length < sizeof texts[0]);
      if (got[k].text_length)
        memcpy(texts[event_count], got[k].text, got[k].text_length);
      packet_of[event_count] = i;
      events[event_count] = got[k];
      events[event_count].text = texts[event_count];
      event_count++;
    }
  }
  discarded = mprof_trace_info(trace)->discarded;
  mprof_trace_close(trace);
  free(buffer);
}

/* The index of the first event of kind about thread a, from `from` on. */
static size_t find(mprof_event_kind_t kind, uint64_t a, size_t from) {
  for (size_t i = from; i < event_count; i++)
    if (events[i].kind == kind && events[i].a == a) return i;
  fail_msg("no event of kind %d about thread %llu", (int)kind,
           (unsigned long long)a);
  return 0;
}

static void assert_text(const mprof_event_t *ev, const char *text) {
  assert_int_equal(ev->text_length, strlen(text));
  assert_memory_equal(ev->text, text, strlen(text));
}

static uint64_t create_write(void) {
  return mprof__create_labelled(MPROF_WRITE, "write", 5,
                                mprof__label_hash("write", 5));
}

static void create_and_label_in_one_ring_packet(void **state) {
  (void)state;
  start(MPROF_RING_OVERWRITE);
  uint64_t first = create_write();
  uint64_t second = create_write(); /* the text interned already */
  mprof_switch(7);
  uint64_t third = create_write();
  stop_and_read();
  uint64_t children[] = {first, second, third};
  uint64_t creators[] = {42, 42, 7};
  for (int i = 0; i < 3; i++) {
    size_t c = find(MPROF_EVENT_CREATE, children[i], 0);
    const mprof_event_t *create = &events[c], *label = &events[c + 1];
    assert_int_equal(create->type, MPROF_WRITE);
    assert_int_equal(create->thread, creators[i]);
    assert_int_equal(label->kind, MPROF_EVENT_LABEL);
    assert_int_equal(label->a, children[i]);
    assert_text(label, "write");
    assert_int_equal(label->time_ticks, create->time_ticks);
    assert_int_equal(packet_of[c + 1], packet_of[c]); /* the ring's */
  }
  assert_int_not_equal(first, second);
}

static void resolve_then_switch_at_one_time(void **state) {
  (void)state;
  start(MPROF_RING_OVERWRITE);
  mprof_switch(9);
  mprof__resolve_switch(9, 42);
  mprof__resolve_switch(5, 42); /* already running 42: no switch */
  mprof_resolve(6);
  stop_and_read();
  size_t r = find(MPROF_EVENT_RESOLVE, 9, 0);
  assert_int_equal(events[r].thread, 9);
  assert_int_equal(events[r + 1].kind, MPROF_EVENT_SWITCH);
  assert_int_equal(events[r + 1].a, 42);
  assert_int_equal(events[r + 1].time_ticks, events[r].time_ticks);
  assert_int_equal(events[r + 2].kind, MPROF_EVENT_RESOLVE);
  assert_int_equal(events[r + 2].a, 5);
  assert_int_equal(events[r + 2].thread, 42);
  size_t last = find(MPROF_EVENT_RESOLVE, 6, r);
  assert_int_equal(last, r + 3);
  assert_int_equal(events[last].thread, 42);
}

static void switch_and_net_label_at_one_time(void **state) {
  (void)state;
  start(MPROF_RING_OVERWRITE);
  mprof_counter_t bytes = mprof_counter_make("bytes read");
  const char *head = "net recv tcp 10.0.0.1:80 10.0.0.2:4000";
  size_t n = strlen(head);
  mprof__label_net(MPROF__NET_ENTER, 3, head, n, mprof__label_hash(head, n),
                   bytes, 100, 20);
  mprof__label_net(MPROF__NET_ENTER, 3, head, n, mprof__label_hash(head, n),
                   bytes, 120, 5); /* running 3 already: the label alone */
  stop_and_read();
  size_t s = find(MPROF_EVENT_SWITCH, 3, 0);
  const mprof_event_t *increase = &events[s + 1], *label = &events[s + 2];
  assert_int_equal(increase->kind, MPROF_EVENT_COUNTER_INCREASE);
  assert_int_equal(increase->thread, 3);
  assert_int_equal(increase->value, 20);
  assert_int_equal(label->kind, MPROF_EVENT_LABEL);
  assert_int_equal(label->a, 3);
  assert_text(label, "net recv tcp 10.0.0.1:80 10.0.0.2:4000 100 20");
  assert_int_equal(label->time_ticks, events[s].time_ticks);
  assert_int_equal(events[s + 3].kind, MPROF_EVENT_COUNTER_INCREASE);
  assert_int_equal(events[s + 3].value, 5);
  assert_text(&events[s + 4], "net recv tcp 10.0.0.1:80 10.0.0.2:4000 120 5");
  assert_true(events[s + 3].time_ticks > label->time_ticks);
}

/* A request's sent bytes, labelled once the call that sent them returned,
 * at the time of the OS thread's last event: the request's create. */
static void sent_bytes_take_the_time_of_the_create(void **state) {
  (void)state;
  start(MPROF_RING_OVERWRITE);
  const char *head = "net send udp 10.0.0.2:53 10.0.0.1:4000";
  size_t n = strlen(head);
  uint64_t first = create_write();
  clock_ticks += 5000; /* the system call */
  mprof__label_net_hash(MPROF__NET_AT_LAST, first, head, n,
                        mprof__label_hash(head, n), 0, 0xabcdef, 40);
  uint64_t second = create_write();
  mprof_signal(first);
  mprof__label_net(MPROF__NET_AT_LAST, second, head, n,
                   mprof__label_hash(head, n), 0, 7, 3);
  stop_and_read();
  size_t c = find(MPROF_EVENT_CREATE, first, 0);
  size_t l = find(MPROF_EVENT_LABEL, first, c + 2);
  assert_text(&events[l],
              "net send udp 10.0.0.2:53 10.0.0.1:4000 0000000000abcdef 40");
  assert_int_equal(events[l].time_ticks, events[c].time_ticks);
  size_t s = find(MPROF_EVENT_SIGNAL, first, l);
  l = find(MPROF_EVENT_LABEL, second, s);
  assert_text(&events[l], "net send udp 10.0.0.2:53 10.0.0.1:4000 7 3");
  assert_int_equal(events[l].time_ticks, events[s].time_ticks);
}

/* A pair that opens a new packet: the packet starts with the resolver as
 * its running thread, which the pair then switches away from. */
static void a_pair_that_opens_a_packet(void **state) {
  (void)state;
  start(MPROF_RING_OVERWRITE);
  uint64_t pairs = 2 * PACKET / 8; /* enough to fill two packets */
  for (uint64_t i = 0; i < pairs; i++) {
    mprof_switch(1000 + i);
    mprof__resolve_switch(1000 + i, 42);
  }
  stop_and_read();
  size_t seen = 0;
  for (size_t i = 0; i < event_count; i++) {
    if (events[i].kind != MPROF_EVENT_RESOLVE) continue;
    assert_int_equal(events[i].thread, events[i].a);
    assert_int_equal(events[i + 1].a, 42);
    seen++;
  }
  assert_int_equal(seen, pairs);
}

/* Discard mode with its ring full: both events of each pair counted. */
static void dropped_pairs_count_both_events(void **state) {
  (void)state;
  start(MPROF_RING_DISCARD);
  uint64_t before = 0;
  for (uint64_t i = 0; mprof_discarded() == 0; i++) mprof_resolve(i + 1);
  before = mprof_discarded();
  create_write();
  mprof__resolve_switch(9, 43);
  assert_int_equal(mprof_discarded(), before + 4);
  stop_and_read();
  assert_int_equal(discarded, before + 4);
}

#if defined(__x86_64__)
/* The shim's events of a write and a read, by the calls it makes: a
 * request created with its label, its bytes sent at that time, its
 * callback, its end; a read entered with its net label, a datagram's, the
 * loop's suspend.  The heads are kept, as the shim keeps them, so that
 * the second time round their string ids are known. */
static uint64_t shim_calls(mprof_counter_t bytes) {
  static const char send[] = "net send tcp 10.0.0.1:1 10.0.0.2:2",
                    recv[] = "net recv tcp 10.0.0.2:2 10.0.0.1:1",
                    udp[] = "net recv udp 10.0.0.3:3 10.0.0.1:53";
  mprof__net_head_t heads[3] = {
      {send, sizeof send - 1, mprof__label_hash(send, sizeof send - 1), 0, 0,
       0},
      {recv, sizeof recv - 1, mprof__label_hash(recv, sizeof recv - 1), 0, 0,
       0},
      {udp, sizeof udp - 1, mprof__label_hash(udp, sizeof udp - 1), 0, 0, 0}};
  uint64_t first = MPROF_NONE;
  for (uint64_t round = 0; round < 3; round++) {
    uint64_t request = create_write();
    if (!round) first = request;
    mprof__label_net_head(MPROF__NET_AT_LAST, request, &heads[0], bytes,
                          round * 10, 10);
    mprof_switch(request);
    mprof__resolve_switch(request, 42);
    mprof__label_net_head(MPROF__NET_ENTER, 1007, &heads[1], bytes, round * 4,
                          4);
    mprof__label_net_head(MPROF__NET_NOW, 1007, &heads[1], 0, round * 4 + 4, 1);
    mprof_switch(42);
    mprof__label_net_hash_head(MPROF__NET_ENTER, 1008, &heads[2], bytes,
                               0x1234 + round, 12);
    mprof_suspend();
    mprof_switch(42);
  }
  return first;
}

/* A thread id of shim_calls() whose requests' ids begin at first, as an
 * index for the requests (ids go on from one trace to the next). */
static uint64_t request_index(uint64_t id, uint64_t first) {
  return id >= first && id < first + 3 ? id - first : id;
}

/* How many events read back name thread t, as theirs or as the running
 * one. */
static size_t mentions(uint64_t t) {
  size_t n = 0;
  for (size_t i = 0; i < event_count; i++)
    n += events[i].a == t || events[i].b == t || events[i].thread == t;
  return n;
}

/* How many events read back are of kind. */
static size_t count_of(mprof_event_kind_t kind) {
  size_t n = 0;
  for (size_t i = 0; i < event_count; i++) n += events[i].kind == kind;
  return n;
}

/* start() on the TSC, where the shim's calls take their fast paths. */
static void tsc_start(void) {
  buffer = aligned_alloc(4096, SIZE);
  assert_non_null(buffer);
  memset(buffer, 0, SIZE);
  mprof_config_t config;
  memset(&config, 0, sizeof config);
  config.buffer = buffer;
  config.size = SIZE;
  config.packet_size = PACKET;
  config.clock_freq_hz = 1000000000u; /* clock NULL: the TSC */
  config.name = "test_record_group";
  assert_int_equal(mprof_start(&config), 0);
  mprof_switch(42);
}

/* The shim's calls for writes: a request's create minted before the call
 * that sends its bytes, recorded after it with its label and (TCP) its
 * net label, the label and head kept; and a pipe's, without a head.
 * Returns the first request. */
static uint64_t sent_calls(mprof_counter_t bytes) {
  static const char send[] = "net send tcp 10.0.0.1:1 10.0.0.2:2";
  mprof__net_head_t label = {"write", 5, mprof__label_hash("write", 5),
                             0,       0, 0};
  mprof__net_head_t head = {
      send, sizeof send - 1, mprof__label_hash(send, sizeof send - 1), 0, 0, 0};
  uint64_t first = MPROF_NONE;
  for (uint64_t round = 0; round < 3; round++) {
    uint64_t at;
    uint64_t request = mprof__mint(&at);
    if (!round) first = request;
    mprof__create_sent(at, request, MPROF_WRITE, &label,
                       round == 2 ? NULL : &head, bytes, round * 10, 10);
    mprof_switch(request);
    mprof__resolve_switch(request, 42);
  }
  return first;
}

/* A copy of the events read back, times left out. */
static mprof_event_t general[MAX_EVENTS];
static char general_texts[MAX_EVENTS][64];

/* The events read back (requests' ids from first on) are those in
 * general (from general_first on). */
static void assert_as_general(uint64_t first, size_t general_count,
                              uint64_t general_first) {
  assert_int_equal(event_count, general_count);
  for (size_t i = 0; i < event_count; i++) {
    const mprof_event_t *got = &events[i], *want = &general[i];
    assert_int_equal(got->kind, want->kind);
    assert_int_equal(request_index(got->thread, first),
                     request_index(want->thread, general_first));
    assert_int_equal(request_index(got->a, first),
                     request_index(want->a, general_first));
    assert_int_equal(request_index(got->b, first),
                     request_index(want->b, general_first));
    assert_int_equal(got->type, want->type);
    assert_int_equal(got->counter, want->counter);
    assert_int_equal(got->value, want->value);
    assert_int_equal(got->text_length, want->text_length);
    assert_memory_equal(got->text, general_texts[i], got->text_length);
    /* The test's clock moves at each reading: an event at the time of the
     * one before was recorded at one instant with it. */
    if (i && want->time_ticks == general[i - 1].time_ticks)
      assert_int_equal(got->time_ticks, events[i - 1].time_ticks);
  }
}

/* calls() records the same events on the TSC, where the shim's calls take
 * their fast paths, as on the test's clock, where they take the general
 * ones (test_record_group.c's other tests); the events at one instant at
 * one time. */
static void assert_fast_as_general(uint64_t (*calls)(mprof_counter_t)) {
  start(MPROF_RING_OVERWRITE);
  mprof_counter_t bytes = mprof_counter_make("bytes");
  uint64_t general_first = calls(bytes);
  stop_and_read();
  size_t general_count = event_count;
  memcpy(general, events, event_count * sizeof *events);
  memcpy(general_texts, texts, event_count * sizeof *texts);

  tsc_start();
  uint64_t first = calls(bytes);
  stop_and_read();
  assert_as_general(first, general_count, general_first);
}

static void fast_paths_record_as_the_general_ones(void **state) {
  (void)state;
  assert_fast_as_general(shim_calls);
}

/* A sent request's create, label and net label: one instant, in order,
 * the bytes counted; without a head its create and label alone.  The
 * same on the fast path. */
static void a_sent_request_is_three_events_at_one_time(void **state) {
  (void)state;
  start(MPROF_RING_OVERWRITE);
  mprof_counter_t bytes = mprof_counter_make("bytes");
  uint64_t first = sent_calls(bytes);
  stop_and_read();
  for (uint64_t round = 0; round < 3; round++) {
    size_t c = find(MPROF_EVENT_CREATE, first + round, 0);
    const mprof_event_t *create = &events[c];
    assert_int_equal(create->type, MPROF_WRITE);
    assert_int_equal(create->thread, 42);
    assert_int_equal(events[c + 1].kind, MPROF_EVENT_LABEL);
    assert_int_equal(events[c + 1].a, first + round);
    assert_text(&events[c + 1], "write");
    assert_int_equal(events[c + 1].time_ticks, create->time_ticks);
    if (round == 2) {
      assert_int_equal(events[c + 2].kind, MPROF_EVENT_SWITCH);
      continue;
    }
    const mprof_event_t *increase = &events[c + 2], *label = &events[c + 3];
    assert_int_equal(increase->kind, MPROF_EVENT_COUNTER_INCREASE);
    assert_int_equal(increase->value, 10);
    assert_int_equal(label->a, first + round);
    assert_text(label, round ? "net send tcp 10.0.0.1:1 10.0.0.2:2 10 10"
                             : "net send tcp 10.0.0.1:1 10.0.0.2:2 0 10");
    assert_int_equal(label->time_ticks, create->time_ticks);
  }
  assert_fast_as_general(sent_calls);
}

static pthread_barrier_t stopping, stopped;

/* Another OS thread's events, before and after the stop. */
static void *record_around_the_stop(void *unused) {
  (void)unused;
  mprof_switch(5);
  pthread_barrier_wait(&stopping);
  pthread_barrier_wait(&stopped);
  mprof_switch(6);
  mprof__resolve_switch(6, 42);
  mprof_suspend();
  return NULL;
}

/* Once recording stops, the fast paths of every OS thread record
 * nothing: not into the stopped trace, which keeps what came before, nor
 * into the next one. */
static void fast_paths_stop_with_the_recording(void **state) {
  (void)state;
  assert_int_equal(pthread_barrier_init(&stopping, NULL, 2), 0);
  assert_int_equal(pthread_barrier_init(&stopped, NULL, 2), 0);
  tsc_start();
  pthread_t other;
  assert_int_equal(pthread_create(&other, NULL, record_around_the_stop, NULL),
                   0);
  pthread_barrier_wait(&stopping);
  mprof_stop();
  pthread_barrier_wait(&stopped);
  pthread_join(other, NULL);
  void *first = buffer;
  tsc_start();
  mprof_switch(7);
  void *next = buffer;
  buffer = first;
  stop_and_read();
  find(MPROF_EVENT_SWITCH, 5, 0);
  assert_int_equal(mentions(6) + mentions(7), 0);
  buffer = next;
  stop_and_read();
  find(MPROF_EVENT_SWITCH, 7, 0);
  assert_int_equal(mentions(5) + mentions(6), 0);
  assert_int_equal(count_of(MPROF_EVENT_SUSPEND), 0);
  pthread_barrier_destroy(&stopping);
  pthread_barrier_destroy(&stopped);
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(create_and_label_in_one_ring_packet),
    cmocka_unit_test(resolve_then_switch_at_one_time),
    cmocka_unit_test(switch_and_net_label_at_one_time),
    cmocka_unit_test(sent_bytes_take_the_time_of_the_create),
    cmocka_unit_test(a_pair_that_opens_a_packet),
    cmocka_unit_test(dropped_pairs_count_both_events),
#if defined(__x86_64__)
    cmocka_unit_test(fast_paths_record_as_the_general_ones),
    cmocka_unit_test(a_sent_request_is_three_events_at_one_time),
    cmocka_unit_test(fast_paths_stop_with_the_recording),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
