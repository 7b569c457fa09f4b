/* clock_back.c -- a clock that sometimes steps back (a platform clock that
 * is not monotonic, an NTP step) never makes a trace's time run backwards:
 * the recorder holds each event at no earlier than its stream's previous
 * one.  Records 10000 counter values with a fake clock that goes back by
 * up to 2^20 ticks every seventh reading, in compact and extended headers
 * alike (steps forward of up to 2^28 ticks), then reads the trace back:
 * values 0..9999 in order, times never decreasing, each value's time at
 * least its clock reading.  Exit 1, saying where, on a failure. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "in_memory.h"
#include "mprof/read.h"

#define VALUES 10000

static uint64_t now_ticks = 1u << 20;
static uint64_t readings;
static uint64_t read_at[VALUES]; /* the clock's last reading at value i */

static uint64_t fake_clock(void) {
  readings++;
  if (readings % 7 == 0)
    now_ticks -= readings % (1u << 20);
  else
    now_ticks += readings % 13 == 0 ? 1u << 28 : readings % 1000;
  return now_ticks;
}

typedef struct check_s {
  int64_t next_value;
  uint64_t last_ticks;
  int failed;
} check_t;

static int on_event(void *context, const mprof_event_t *ev) {
  check_t *c = context;
  if (ev->kind != MPROF_EVENT_COUNTER_VALUE || c->failed) return 0;
  if (ev->value != c->next_value || ev->time_ticks < c->last_ticks ||
      ev->time_ticks < read_at[ev->value]) {
    fprintf(stderr,
            "clock_back: value %" PRId64 " (expected %" PRId64 ") at %" PRIu64
            " ticks, after %" PRIu64 ", clock read %" PRIu64 "\n",
            ev->value, c->next_value, ev->time_ticks, c->last_ticks,
            ev->value >= 0 && ev->value < VALUES ? read_at[ev->value] : 0);
    c->failed = 1;
  }
  c->next_value++;
  c->last_ticks = ev->time_ticks;
  return 0;
}

int main(void) {
  mprof_config_t settings;
  memset(&settings, 0, sizeof settings);
  settings.size = 1u << 20;
  settings.ring_mode = MPROF_RING_DISCARD;
  settings.clock = fake_clock;
  settings.clock_freq_hz = 1000000000u;
  void *buffer = in_memory_start_with(settings);
  if (!buffer) return fputs("clock_back: start failed\n", stderr), 1;
  mprof_counter_t counter = mprof_counter_make("v");
  for (int64_t i = 0; i < VALUES; i++) {
    mprof_counter_value(counter, i);
    read_at[i] = now_ticks;
  }
  mprof_stop();
  mprof_trace_t *trace;
  if (mprof_trace_open_memory(buffer, settings.size, "clock_back", NULL, NULL,
                              &trace))
    return fputs("clock_back: unreadable\n", stderr), 1;
  check_t c = {0, 0, 0};
  for (size_t i = 0; i < mprof_trace_packet_count(trace); i++)
    mprof_trace_packet_events(trace, i, on_event, &c);
  mprof_trace_close(trace);
  free(buffer);
  if (!c.failed && c.next_value != VALUES)
    fprintf(stderr, "clock_back: %" PRId64 " values of %d\n", c.next_value,
            VALUES),
        c.failed = 1;
  if (!c.failed) printf("clock_back: %d values, time never ran back\n", VALUES);
  return c.failed;
}
