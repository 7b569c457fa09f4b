/* test_merge.c -- the load merges a trace's streams into one time order the
 * way its definition says: of all streams' next events, the one with the
 * earliest clock goes first, the earlier stream (in packet order) on equal
 * clocks, and a stream's events keep their order even where its clock goes
 * back.  The loader does that in runs, an OS thread's ring and names
 * streams merged by turns in the model's event loop; here a model fed one
 * event at a time by that definition must come out the same, on traces
 * recorded by several OS threads with a coarse clock (many equal clocks,
 * within and across streams) that now and then goes back, or that keeps
 * coming back to 0, in packets small enough that runs cross many packet
 * ends.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, in rel/in_memory.h */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mprof.h"
#include "mprof/model.h"
#include "mprof/read.h"
#include "rel/in_memory.h"
#include "same_model.h"

/* The clock: one tick every `per_tick` readings, and every 7th reading
 * `back` ticks behind; or, with `wrap`, only 0 .. wrap - 1 round and
 * round (clock 0 most of all, where a stream's bound cannot go lower). */
static atomic_ulong readings;
static unsigned per_tick, back, wrap;

static uint64_t coarse_clock(void) {
  unsigned long n = atomic_fetch_add(&readings, 1);
  if (wrap) return n / per_tick % wrap;
  return 1000 + n / per_tick - (n % 7 == 0 ? back : 0);
}

/* One OS thread's story: requests labelled (labels go to the names
 * stream) and waited on, the loop switching between them. */
static void *story(void *rounds) {
  uint64_t loop = mprof_create(MPROF_LOOP);
  for (long i = 0; i < (long)(intptr_t)rounds; i++) {
    uint64_t request = mprof_create(MPROF_REQUEST);
    mprof_label(request, i % 3 ? "GET /" : "POST /api");
    uint64_t wait = mprof_create(MPROF_WAIT);
    mprof_switch(request);
    mprof_try_read(wait);
    mprof_switch(loop);
    if (i % 5 == 0) mprof_label(wait, "timer");
    mprof_resolve(wait);
    mprof_switch(request);
    mprof_read(wait);
    mprof_resolve(request);
  }
  return NULL;
}

/* A trace of `threads` OS threads telling the story, in memory. */
static uint8_t *record(int threads, long rounds, size_t size) {
  mprof_config_t config;
  memset(&config, 0, sizeof config);
  config.size = size;
  config.packet_size = 4096;
  config.ring_mode = MPROF_RING_DISCARD;
  config.clock = coarse_clock;
  config.clock_freq_hz = 1000000000u;
  atomic_store(&readings, 0);
  uint8_t *buffer = in_memory_start_with(config);
  assert_non_null(buffer);
  pthread_t os_threads[8];
  for (int i = 0; i < threads; i++)
    assert_int_equal(
        pthread_create(&os_threads[i], NULL, story, (void *)(intptr_t)rounds),
        0);
  for (int i = 0; i < threads; i++) pthread_join(os_threads[i], NULL);
  mprof_stop();
  return buffer;
}

/* A stream's events, decoded, and how far the merge has fed them. */
typedef struct stream_s {
  uint32_t stream_class;
  uint64_t instance;
  mprof_event_t *events;
  size_t count, capacity, at;
} stream_t;

/* Append packet i's events to its stream, the (class, instance) of the
 * packet, added to streams[0 .. *n) if new. */
static void decode_packet(const mprof_trace_t *trace, size_t i,
                          stream_t *streams, size_t *n) {
  const mprof_packet_info_t *p = mprof_trace_packet(trace, i);
  stream_t *s = streams;
  while (s < streams + *n && (s->stream_class != p->stream_class ||
                              s->instance != p->stream_instance))
    s++;
  if (s == streams + *n) {
    memset(s, 0, sizeof *s);
    s->stream_class = p->stream_class;
    s->instance = p->stream_instance;
    (*n)++;
  }
  size_t most = mprof_trace_packet_max_events(trace, i);
  s->events = realloc(s->events, (s->capacity += most) * sizeof *s->events);
  assert_non_null(s->events);
  s->count +=
      mprof_trace_packet_decode(trace, i, s->events + s->count, most, NULL);
}

/* The model of the trace by the definition: one event at a time, from the
 * stream whose next event comes first. */
static mprof_model_t *one_by_one(const mprof_trace_t *trace) {
  size_t packets = mprof_trace_packet_count(trace), n = 0;
  stream_t *streams = calloc(packets + 1, sizeof *streams);
  assert_non_null(streams);
  for (size_t i = 0; i < packets; i++) decode_packet(trace, i, streams, &n);
  mprof_model_t *m;
  assert_int_equal(
      mprof_model_new(mprof_trace_info(trace)->clock_freq_hz, 0, &m), 0);
  for (;;) {
    stream_t *next = NULL;
    for (size_t k = 0; k < n; k++)
      if (streams[k].at < streams[k].count &&
          (!next || streams[k].events[streams[k].at].time_ticks <
                        next->events[next->at].time_ticks))
        next = &streams[k];
    if (!next) break;
    assert_int_equal(mprof_model_add(m, &next->events[next->at++]), 0);
  }
  for (size_t k = 0; k < n; k++) free(streams[k].events);
  free(streams);
  assert_int_equal(mprof_model_finish(m), 0);
  return m;
}

/* Record with `threads` OS threads and the clock given, then load and
 * compare; returns how many arrows share their clock with the one before
 * (the ties the merge had to order). */
static size_t check_merge(int threads, unsigned ticks_every, unsigned behind,
                          unsigned wrap_at) {
  per_tick = ticks_every;
  back = behind;
  wrap = wrap_at;
  size_t size = 2u << 20;
  uint8_t *bytes = record(threads, 1500, size);
  mprof_trace_t *trace;
  assert_int_equal(
      mprof_trace_open_memory(bytes, size, "merge", NULL, NULL, &trace), 0);
  mprof_model_t *loaded, *reference = one_by_one(trace);
  assert_int_equal(mprof_model_load(trace, &loaded), 0);
  assert_same_model(loaded, reference);
  const mprof_model_view_t *v = mprof_model_view(loaded);
  assert_true(v->label_count > 1500 * (size_t)threads);
  size_t ties = 0;
  int64_t before = v->arrow_count ? mprof_arrow_at(v, 0).time_ns : 0;
  for (size_t i = 1; i < v->arrow_count; i++) {
    int64_t at = mprof_arrow_at(v, i).time_ns;
    ties += at == before;
    before = at;
  }
  mprof_model_free(loaded);
  mprof_model_free(reference);
  mprof_trace_close(trace);
  free(bytes);
  return ties;
}

static void test_one_os_thread(void **state) {
  (void)state;
  assert_true(check_merge(1, 4, 0, 0) > 1000);
}

static void test_os_threads_and_clock_going_back(void **state) {
  (void)state;
  assert_true(check_merge(3, 3, 2, 0) > 1000);
  assert_true(check_merge(5, 1, 3, 0) > 0);
}

static void test_clock_near_zero(void **state) {
  (void)state;
  assert_true(check_merge(3, 2, 0, 3) > 1000);
  assert_true(check_merge(4, 1, 0, 2) > 1000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_os_thread),
      cmocka_unit_test(test_os_threads_and_clock_going_back),
      cmocka_unit_test(test_clock_near_zero),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
