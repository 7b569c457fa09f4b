/* test_model_trace.c -- the model of real traces: net.ctf, packets decoded
 * in place and copied, a damaged trace, labels interned once, a model fed
 * then freed of its trace, and the sizes that bound a load.
 *
 *   test_model_trace NET_CTF DAMAGED_CTF
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "census_check.h"
#include "model_story.h"

static const char *net_ctf; /* path of test/data/net.ctf */

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
    mprof_band_kind_t kind = mprof_band_at(v, i).kind;
    gc += kind == MPROF_BAND_GC;
    idle += kind == MPROF_BAND_IDLE;
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
  assert_int_equal(mprof_label_at(v, 0).text, mprof_label_at(v, 1).text);
  assert_string_equal(v->strings + mprof_label_at(v, 0).text, "GET /");
  assert_string_equal(v->strings + mprof_label_at(v, 2).text, "POST /api");
  assert_string_equal(v->strings + mprof_label_at(v, 3).text, "POST");
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
    named += v->strings[mprof_label_at(v, i).text] != 0;
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
      cmocka_unit_test(test_net_ctf),
      cmocka_unit_test(test_packet_decode),
      cmocka_unit_test(test_labels_interned_once),
      cmocka_unit_test(test_feed_then_free_trace),
      cmocka_unit_test(test_sizes_bound_the_load),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
