/* load.c -- build the model of a whole trace: the events of every stream
 * (one per OS thread, plus the names area) merged into one time order.
 *
 * Each stream is a run of packets in sequence order; one packet at a time
 * is decoded into that stream's buffer, and a binary heap on the next
 * event's clock picks which stream goes next.  Memory is one decoded
 * packet per stream, whatever the trace size.
 */
#include <string.h>

#include "model_internal.h"

typedef struct cursor_s {
  size_t next_packet, end_packet; /* packets of this stream still to decode */
  mprof_event_t *events;          /* the decoded packet */
  size_t count, cap, at;
  int failed;                     /* out of memory while decoding */
} cursor_t;

static int collect(void *context, const mprof_event_t *event) {
  cursor_t *c = context;
  if (c->count >= c->cap &&
      mprof__grow(&c->events, &c->cap, c->count + 1, sizeof *c->events)) {
    c->failed = 1;
    return 1;
  }
  c->events[c->count++] = *event;
  return 0;
}

/* Decode packets until one yields events.  Returns 0 (c->at < c->count
 * when an event is ready) or MPROF_ENOMEM.  A damaged packet has been
 * reported by the reader; its good events are used. */
static int cursor_fill(const mprof_trace_t *trace, cursor_t *c) {
  c->count = c->at = 0;
  while (c->count == 0 && c->next_packet < c->end_packet) {
    mprof_trace_packet_events(trace, c->next_packet++, collect, c);
    if (c->failed) return MPROF_ENOMEM;
  }
  return 0;
}

static uint64_t head_time(const cursor_t *c) { return c->events[c->at].time_ticks; }

/* heap[] holds cursor indexes; the earliest head first (ties: lower
 * stream, so the order is deterministic). */
static int earlier(const cursor_t *cursors, uint32_t a, uint32_t b) {
  uint64_t ta = head_time(&cursors[a]), tb = head_time(&cursors[b]);
  return ta != tb ? ta < tb : a < b;
}

static void sift_down(const cursor_t *cursors, uint32_t *heap, size_t n,
                      size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, best = i;
    if (l < n && earlier(cursors, heap[l], heap[best])) best = l;
    if (r < n && earlier(cursors, heap[r], heap[best])) best = r;
    if (best == i) return;
    uint32_t tmp = heap[i];
    heap[i] = heap[best];
    heap[best] = tmp;
    i = best;
  }
}

/* Split the packets into streams: runs of equal (class, instance). */
static size_t find_streams(const mprof_trace_t *trace, cursor_t *cursors,
                           uint64_t *discarded) {
  size_t packets = mprof_trace_packet_count(trace), n = 0;
  for (size_t i = 0; i < packets;) {
    const mprof_packet_info_t *p = mprof_trace_packet(trace, i);
    size_t j = i + 1;
    while (j < packets &&
           mprof_trace_packet(trace, j)->stream_class == p->stream_class &&
           mprof_trace_packet(trace, j)->stream_instance == p->stream_instance)
      j++;
    /* events_discarded is a running count: the last packet has the total */
    *discarded += mprof_trace_packet(trace, j - 1)->events_discarded;
    memset(&cursors[n], 0, sizeof cursors[n]);
    cursors[n].next_packet = i;
    cursors[n].end_packet = j;
    n++;
    i = j;
  }
  return n;
}

/* Feed the top cursor's events to the model for as long as they come
 * before every other cursor's head (its run), then restore the heap: one
 * heap step per run, not per event. */
static int feed_run(const mprof_trace_t *trace, mprof_model_t *m,
                    cursor_t *cursors, uint32_t *heap, size_t *live) {
  uint32_t top = heap[0], next = UINT32_MAX;
  if (*live > 1) next = heap[1];
  if (*live > 2 && earlier(cursors, heap[2], heap[1])) next = heap[2];
  cursor_t *c = &cursors[top];
  do {
    int err = mprof_model_add(m, &c->events[c->at++]);
    if (err) return err;
    if (c->at == c->count && cursor_fill(trace, c)) return MPROF_ENOMEM;
  } while (c->at < c->count &&
           (next == UINT32_MAX || earlier(cursors, top, next)));
  if (c->at == c->count) heap[0] = heap[--*live];
  sift_down(cursors, heap, *live, 0);
  return 0;
}

/* Feed every event to the model in time order. */
static int merge_streams(const mprof_trace_t *trace, mprof_model_t *m,
                         cursor_t *cursors, size_t n, uint32_t *heap) {
  size_t live = 0;
  for (size_t i = 0; i < n; i++) {
    if (cursor_fill(trace, &cursors[i])) return MPROF_ENOMEM;
    if (cursors[i].at < cursors[i].count) heap[live++] = (uint32_t)i;
  }
  for (size_t i = live / 2; i-- > 0;) sift_down(cursors, heap, live, i);
  while (live > 0) {
    int err = feed_run(trace, m, cursors, heap, &live);
    if (err) return err;
  }
  return 0;
}

int mprof_model_load(const mprof_trace_t *trace, mprof_model_t **out) {
  const mprof_trace_info_t *info = mprof_trace_info(trace);
  size_t packets = mprof_trace_packet_count(trace);
  mprof_model_t *m;
  int err = mprof_model_new(info->clock_freq_hz, info->legacy, &m);
  if (err) return err;
  cursor_t *cursors = malloc((packets ? packets : 1) * sizeof *cursors);
  uint32_t *heap = malloc((packets ? packets : 1) * sizeof *heap);
  uint64_t discarded = 0;
  if (!cursors || !heap) {
    err = MPROF_ENOMEM;
  } else {
    size_t n = find_streams(trace, cursors, &discarded);
    err = merge_streams(trace, m, cursors, n, heap);
    for (size_t i = 0; i < n; i++) free(cursors[i].events);
  }
  free(cursors);
  free(heap);
  if (!err) err = mprof_model_finish(m);
  if (err) {
    mprof_model_free(m);
    return err;
  }
  m->view.discarded = discarded;
  *out = m;
  return 0;
}
