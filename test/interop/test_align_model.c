/* test_align_model.c -- mprof_model_align() and mprof_model_messages() on
 * models fed by hand: each test places labelled sends and receives of
 * several "traces" (thread ids and streams in each trace's namespace, as
 * mprof_model_load_many() makes them) at known times and checks the
 * offsets, bounds, statuses and pairs found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mprof/model.h"

static mprof_model_t *model;
static uint64_t next_thread = 1;

static void begin(void) {
  assert_int_equal(mprof_model_new(1000000000, 0, &model), 0);
  next_thread = 1;
}

/* A new thread of `trace` labelled `text` at time t (ns).  Each trace's
 * events come in time order, and none before the first of all (the model
 * counts time from it). */
static void net(uint32_t trace, uint64_t t, const char *text) {
  uint64_t id = next_thread++ ^ (uint64_t)trace << 56;
  mprof_event_t e;
  memset(&e, 0, sizeof e);
  e.time_ticks = t;
  e.stream = trace << 24;
  e.kind = MPROF_EVENT_CREATE;
  e.a = id;
  e.type = MPROF_REQUEST;
  assert_int_equal(mprof_model_add(model, &e), 0);
  e.kind = MPROF_EVENT_LABEL;
  e.text = text;
  e.text_length = strlen(text);
  assert_int_equal(mprof_model_add(model, &e), 0);
}

static void align(size_t traces, mprof_alignment_t *out) {
  assert_int_equal(mprof_model_finish(model), 0);
  assert_int_equal(mprof_model_align(model, traces, out), 0);
}

#define C2S "10.0.0.1:5000 10.0.0.2:80"
#define V6 "[2001:db8::1]:53 [2001:db8::2]:53"
#define S2C "10.0.0.2:80 10.0.0.1:5000"

/* Both ways: the midpoint of [send - receive ...]; trace 1's clock reads
 * 1000 ns late, delays are 100 (to it) and 300 (back). */
static void both_ways(void **state) {
  (void)state;
  begin();
  net(0, 10000, "net send tcp " C2S " 0 10");
  net(1, 11100, "net recv tcp " C2S " 0 10"); /* true 10100 */
  net(1, 11200, "net send tcp " S2C " 0 20"); /* true 10200 */
  net(0, 10500, "net recv tcp " S2C " 0 20");
  mprof_alignment_t out[2];
  align(2, out);
  assert_int_equal(out[0].status, MPROF_ALIGN_REFERENCE);
  assert_int_equal(out[1].status, MPROF_ALIGN_BOTH);
  assert_int_equal(out[1].messages, 2);
  assert_int_equal(out[1].low_ns, -1100);   /* receive >= send */
  assert_int_equal(out[1].high_ns, -700);   /* its send <= the receive */
  assert_int_equal(out[1].offset_ns, -900); /* true -1000, within 200 */
  mprof_model_free(model);
}

/* One way only: moved no further than causality demands, and not at all
 * when the clocks already agree. */
static void one_way(void **state) {
  (void)state;
  begin();
  net(1, 9000, "net recv tcp " C2S " 0 10"); /* before its send */
  net(0, 10000, "net send tcp " C2S " 0 10");
  net(0, 19000, "net send tcp " C2S " 10 10");
  net(2, 20000, "net recv tcp " C2S " 10 10");
  mprof_alignment_t out[3];
  align(3, out);
  assert_int_equal(out[1].status, MPROF_ALIGN_ONE_WAY);
  assert_int_equal(out[1].offset_ns, 1000);
  assert_true(out[1].high_ns == INT64_MAX);
  assert_int_equal(out[2].status, MPROF_ALIGN_ONE_WAY);
  assert_int_equal(out[2].offset_ns, 0);
  mprof_model_free(model);
}

/* Messages no offset satisfies: not moved. */
static void conflict(void **state) {
  (void)state;
  begin();
  net(1, 9000, "net recv tcp " C2S " 0 10"); /* needs >= +1000 */
  net(1, 9100, "net send tcp " S2C " 0 10");
  net(0, 9200, "net recv tcp " S2C " 0 10"); /* needs <= +100 */
  net(0, 10000, "net send tcp " C2S " 0 10");
  mprof_alignment_t out[2];
  align(2, out);
  assert_int_equal(out[1].status, MPROF_ALIGN_CONFLICT);
  assert_int_equal(out[1].offset_ns, 0);
  assert_true(out[1].low_ns > out[1].high_ns);
  mprof_model_free(model);
}

/* TCP: a receive matches the send holding its first byte; UDP: the first
 * send of the same hash; IPv6 addresses; the rest is not a message. */
static int count(void *context, const mprof_message_t *msg) {
  (void)msg;
  (*(int *)context)++;
  return 0;
}

static void matching(void **state) {
  (void)state;
  begin();
  net(0, 1000, "net send tcp " C2S " 0 1000");
  net(0, 1001, "net send tcp " C2S " 0 1000"); /* again: the first counts */
  net(0, 1100, "net send udp " V6 " 00000000deadbeef 8");
  net(0, 1200, "net send udp " V6 " 00000000deadbeef 8");
  net(1, 2000, "net recv tcp " C2S " 0 500");
  net(1, 2100, "net recv tcp " C2S " 500 500");
  net(1, 2150, "net recv tcp " C2S " 1000 10"); /* no such send */
  net(1, 2200, "net recv udp " V6 " 00000000deadbeef 8");
  net(1, 2300, "net recv udp " V6 " 00000000deadbeee 8");
  net(1, 2400, "net recv tcp " C2S " -1 5");
  net(1, 2500, "net recv tcp " C2S " 1 5 extra");
  net(1, 2600, "net recv tcpx " C2S " 1 5");
  net(1, 2700, "net recv udp " C2S " 12345 5");
  net(1, 2800, "net recv tcp " C2S " 99999999999999999999 5");
  net(1, 2900, "net recv tcp " C2S "  1 5");
  net(1, 3000, "net recv");
  mprof_alignment_t out[2];
  align(2, out);
  assert_int_equal(out[1].messages, 3);
  assert_int_equal(out[1].low_ns, -1000); /* 1000 - 2000: the first send */
  int n = 0;
  assert_int_equal(mprof_model_messages(model, count, &n), 0);
  assert_int_equal(n, 3);
  mprof_model_free(model);
}

/* A trace with no messages to trace 0 is placed through another. */
static void through_another(void **state) {
  (void)state;
  begin();
  net(0, 1000, "net send tcp " C2S " 0 10");
  net(1, 1100, "net recv tcp " C2S " 0 10");
  net(1, 1200, "net send tcp " S2C " 0 10");
  net(0, 1300, "net recv tcp " S2C " 0 10");
  net(1, 1400, "net send tcp 10.0.0.2:9 10.0.0.3:5432 0 4");
  net(2, 5500, "net recv tcp 10.0.0.2:9 10.0.0.3:5432 0 4");
  net(2, 5600, "net send tcp 10.0.0.3:5432 10.0.0.2:9 0 4");
  net(1, 1700, "net recv tcp 10.0.0.3:5432 10.0.0.2:9 0 4");
  mprof_alignment_t out[3];
  align(3, out);
  assert_int_equal(out[1].status, MPROF_ALIGN_BOTH);
  assert_int_equal(out[1].offset_ns, 0);
  assert_int_equal(out[2].status, MPROF_ALIGN_BOTH);
  assert_int_equal(out[2].offset_ns, -4000); /* [-4100, -3900] */
  mprof_model_free(model);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(both_ways),       cmocka_unit_test(one_way),
      cmocka_unit_test(conflict),        cmocka_unit_test(matching),
      cmocka_unit_test(through_another),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
