/* stream_stamp.c -- the streaming analysis's events stamped with what it
 * takes of their clocks and streams (stream_internal.h, stamper_t), where
 * they are merged: in the relay's thread when one runs, so that the
 * analysis's thread, the slower of the two, does not convert a clock or
 * look a stream up an event.  A stamp is exactly what the model's event
 * loop works out for an event (events.c): ns since the trace's first
 * event, never before the stream's latest. */
#include <string.h>

#include "stream_internal.h"

void mprof__stamper_begin(stamper_t *st, uint64_t clock_freq_hz) {
  st->ns_per_tick = 1e9 / (double)clock_freq_hz;
}

/* Where stream id's place is remembered: the streams of traces merged
 * are numbered trace << 24 | stream, so both parts choose. */
static size_t cache_slot(uint32_t id) {
  return (id ^ (id >> 24) * 37u) & (STAMP_CACHE - 1);
}

/* The place of stream id (the order the streams came in), a new one made
 * at time t.  Returns it, or SIZE_MAX when memory runs out. */
static size_t place_of(stamper_t *st, uint32_t id, int64_t t) {
  stamp_cached_t *cached = &st->cache[cache_slot(id)];
  if (cached->place && cached->id == id) return cached->place - 1;
  size_t i = 0;
  while (i < st->place_count && st->places[i].id != id) i++;
  if (i == st->place_count) {
    if (mprof__grow(&st->places, &st->place_cap, st->place_count + 1,
                    sizeof *st->places))
      return SIZE_MAX;
    st->places[st->place_count++] = (stamp_place_t){id, t};
  }
  *cached = (stamp_cached_t){id, (uint32_t)i + 1};
  return i;
}

int mprof__stamp_in_place(stamper_t *st, mprof_event_t *events, size_t count) {
  if (!st->have_base && count) {
    st->start_ticks = events[0].time_ticks;
    st->have_base = 1;
  }
  for (size_t i = 0; i < count; i++) {
    mprof_event_t *ev = &events[i];
    int64_t t =
        mprof__event_ns(ev->time_ticks, st->start_ticks, st->ns_per_tick);
    size_t place = place_of(st, ev->stream, t);
    if (place == SIZE_MAX) return MPROF_ENOMEM;
    if (t < st->places[place].last_ns) t = st->places[place].last_ns;
    st->places[place].last_ns = t;
    if (t > st->duration_ns) st->duration_ns = t;
    ev->time_ticks = (uint64_t)t;
    ev->stream = (uint32_t)place;
  }
  return 0;
}

int mprof__stamp(stamper_t *st, const mprof_event_t *events, size_t count,
                 const mprof_event_t **stamped) {
  if (mprof__grow(&st->events, &st->event_cap, count, sizeof *st->events))
    return MPROF_ENOMEM;
  if (count) memcpy(st->events, events, count * sizeof *events);
  *stamped = st->events;
  return mprof__stamp_in_place(st, st->events, count);
}

void mprof__stamper_free(stamper_t *st) {
  free(st->places);
  free(st->events);
  memset(st, 0, sizeof *st);
}
