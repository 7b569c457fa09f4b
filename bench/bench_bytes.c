/* bench_bytes.c -- bytes per event on a realistic async stream: the events
 * of a trace recorded by OCaml's mirage-profile (test/data/net.ctf)
 * recorded again through mprof's public API, with the original timestamps,
 * against the original's own bytes.
 *
 *   bench_bytes NET.CTF
 *
 * Prints one JSON line: value = mprof bytes per original event (packet
 * headers excluded on both sides), baseline = mirage-profile's.  The
 * implied switches of the original's read and signal events, and the
 * actor switches our format needs, are recorded and counted in mprof's
 * bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mprof.h"
#include "mprof/read.h"

#define MAX_COUNTERS 256

static uint64_t replay_ticks; /* the clock: the original event's time */
static uint64_t replay_clock(void) { return replay_ticks; }

static struct {
  char name[64];
  mprof_counter_t id;
} counters[MAX_COUNTERS];
static int counter_count;
static mprof_counter_t gc_counter;
static uint64_t original_events;

static mprof_counter_t counter_for(const char *text, size_t length) {
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)length, text);
  for (int i = 0; i < counter_count; i++)
    if (!strcmp(counters[i].name, name)) return counters[i].id;
  if (counter_count == MAX_COUNTERS) return 0;
  /* counter names must outlive the trace: keep them in the table */
  int i = counter_count++;
  strcpy(counters[i].name, name);
  return counters[i].id = mprof_counter_make(counters[i].name);
}

/* The actor of an event must be the running thread in mprof's format. */
static void run_as(uint64_t thread) {
  if (mprof_current() != thread) mprof_switch(thread);
}

static int replay(void *context, const mprof_event_t *ev) {
  (void)context;
  char text[1100];
  snprintf(text, sizeof text, "%.*s", (int)ev->text_length,
           ev->text ? ev->text : "");
  replay_ticks = ev->time_ticks;
  original_events++;
  switch (ev->kind) {
  case MPROF_EVENT_SWITCH:
    if (ev->a == MPROF_NONE)
      mprof_suspend();
    else
      mprof_switch(ev->a);
    break;
  case MPROF_EVENT_CREATE:
    run_as(ev->thread);
    mprof_create(ev->type);
    break;
  case MPROF_EVENT_READ:
    run_as(ev->thread);
    mprof_read(ev->a);
    break;
  case MPROF_EVENT_TRY_READ:
    run_as(ev->thread);
    mprof_try_read(ev->a);
    break;
  case MPROF_EVENT_RESOLVE:
    run_as(ev->thread);
    mprof_resolve(ev->a);
    break;
  case MPROF_EVENT_FAIL:
    run_as(ev->thread);
    mprof_fail(ev->a, text);
    break;
  case MPROF_EVENT_SIGNAL:
    run_as(ev->thread);
    mprof_signal(ev->a);
    break;
  case MPROF_EVENT_BECOMES: mprof_becomes(ev->a, ev->b); break;
  case MPROF_EVENT_LABEL: mprof_label(ev->a, text); break;
  case MPROF_EVENT_SHOULD_RESOLVE: mprof_should_resolve(ev->a); break;
  case MPROF_EVENT_COUNTER_INCREASE:
    mprof_counter_increase(counter_for(ev->text, ev->text_length), ev->value);
    break;
  case MPROF_EVENT_COUNTER_VALUE:
    mprof_counter_value(counter_for(ev->text, ev->text_length), ev->value);
    break;
  case MPROF_EVENT_GC: mprof_counter_value(gc_counter, ev->value); break;
  default: break;
  }
  return 0;
}

/* Bytes of events (packet headers excluded) in a trace. */
static uint64_t event_bytes(const mprof_trace_t *trace, uint64_t header) {
  uint64_t total = 0;
  for (size_t i = 0; i < mprof_trace_packet_count(trace); i++)
    total += mprof_trace_packet(trace, i)->content_bytes - header;
  return total;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: bench_bytes NET.CTF\n");
    return 2;
  }
  mprof_trace_t *original;
  if (mprof_trace_open(argv[1], NULL, NULL, &original)) return 1;
  size_t size = 16u << 20;
  void *buffer = aligned_alloc(4096, size);
  mprof_config_t config;
  memset(&config, 0, sizeof config);
  config.buffer = buffer;
  config.size = size;
  config.clock = replay_clock;
  config.clock_freq_hz = 1000000000u;
  config.ring_mode = MPROF_RING_DISCARD;
  if (!buffer || mprof_start(&config)) return 1;
  gc_counter = mprof_counter_make("gc");
  for (size_t i = 0; i < mprof_trace_packet_count(original); i++)
    mprof_trace_packet_events(original, i, replay, NULL);
  uint64_t discarded = mprof_discarded();
  mprof_stop();

  mprof_trace_t *ours;
  if (mprof_trace_open_memory(buffer, size, "replay", NULL, NULL, &ours))
    return 1;
  /* Legacy packets have a 30-byte header, ours 92. */
  double theirs_per_event =
      (double)event_bytes(original, 30) / (double)original_events;
  double ours_per_event =
      (double)event_bytes(ours, 92) / (double)original_events;
  printf(
      "{\"bench\":\"bytes\",\"metric\":\"bytes_per_event\",\"value\":%.3f,"
      "\"baseline\":\"mirage_profile\",\"baseline_value\":%.3f,\"ratio\":%.3f}\n",
      ours_per_event, theirs_per_event, ours_per_event / theirs_per_event);
  fprintf(stderr, "bench_bytes: %llu original events, %llu discarded\n",
          (unsigned long long)original_events, (unsigned long long)discarded);
  mprof_trace_close(ours);
  mprof_trace_close(original);
  free(buffer);
  return discarded ? 1 : 0;
}
