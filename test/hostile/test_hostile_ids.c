/* test_hostile_ids.c -- thread ids that no trace can hold (2^56 and up,
 * where a model of several traces keeps a trace's place) are damage: a
 * wide event naming one ends its packet with one line, and a packet whose
 * current_thread is one is skipped with one line; neither id is ever
 * delivered.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, in rel/in_memory.h */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/format/format.h"
#include "../rel/in_memory.h"
#include "mprof.h"
#include "mprof/read.h"

#define TRACE_SIZE (64u * 1024u)
#define BOGUS (((uint64_t)1 << 56) | 5)

static uint64_t clock_ticks;
static uint64_t fake_clock(void) { return clock_ticks += 10; }

/* A stopped trace: a task created and run, then a switch to BOGUS (a wide
 * event), then the task resolved. */
static uint8_t *record(void) {
  mprof_config_t config;
  memset(&config, 0, sizeof config);
  config.size = TRACE_SIZE;
  config.packet_size = 4096;
  config.clock = fake_clock;
  config.clock_freq_hz = 1000000000u;
  uint8_t *trace = in_memory_start_with(config);
  assert_non_null(trace);
  uint64_t task = mprof_create(MPROF_TASK);
  mprof_switch(task);
  mprof_switch(BOGUS);
  mprof_resolve(task);
  mprof_stop();
  return trace;
}

typedef struct lines_s {
  char text[4096];
  int count;
} lines_t;

static void collect_line(void *context, const char *line) {
  lines_t *l = context;
  size_t used = strlen(l->text);
  snprintf(l->text + used, sizeof l->text - used, "%s\n", line);
  l->count++;
}

/* What the trace delivers: the kinds in order, and whether any id is one
 * no trace holds. */
typedef struct seen_s {
  char kinds[256];
  int bogus;
} seen_t;

static int see(void *context, const mprof_event_t *ev) {
  seen_t *s = context;
  uint64_t limit = (uint64_t)1 << 56;
  if (ev->thread >= limit || ev->a >= limit || ev->b >= limit) s->bogus = 1;
  size_t used = strlen(s->kinds);
  snprintf(s->kinds + used, sizeof s->kinds - used, "%s ",
           mprof_event_kind_name(ev->kind));
  return 0;
}

/* Open trace from memory and decode every packet: exactly one line,
 * holding `where` and `what`, and the events delivered are `kinds`, none
 * with an id no trace holds. */
static void expect_damage(uint8_t *trace, const char *where, const char *what,
                          const char *kinds) {
  lines_t lines = {{0}, 0};
  seen_t seen = {{0}, 0};
  mprof_trace_t *t;
  assert_int_equal(mprof_trace_open_memory(trace, TRACE_SIZE, "ids.ctf",
                                           collect_line, &lines, &t),
                   0);
  for (size_t i = 0; i < mprof_trace_packet_count(t); i++)
    mprof_trace_packet_events(t, i, see, &seen);
  mprof_trace_close(t);
  assert_int_equal(lines.count, 1);
  assert_non_null(strstr(lines.text, where));
  assert_non_null(strstr(lines.text, what));
  assert_string_equal(seen.kinds, kinds);
  assert_int_equal(seen.bogus, 0);
  free(trace);
}

static void wide_event_with_bogus_id_ends_its_packet(void **state) {
  (void)state;
  expect_damage(record(), "ids.ctf: packet ", "thread id out of range",
                "create switch ");
}

/* The ring packet's current_thread made BOGUS. */
static void packet_with_bogus_current_thread_is_skipped(void **state) {
  (void)state;
  uint8_t *trace = record();
  uint64_t packets = mprof__get_u64(trace + MPROF__TH_PACKETS_OFFSET);
  uint8_t *context = trace + packets + MPROF__PH_CURRENT_THREAD;
  for (int i = 0; i < 8; i++) context[i] = (uint8_t)(BOGUS >> (8 * i));
  expect_damage(trace, "ids.ctf: packet 0 at offset ",
                "current_thread out of range", "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(wide_event_with_bogus_id_ends_its_packet),
      cmocka_unit_test(packet_with_bogus_current_thread_is_skipped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
