/* load_packets.c -- the model of some of a trace's packets
 * (mprof_model_load_packets()): what a viewer that shows a window of a
 * trace too big to model whole builds, from the packets its index says
 * the window needs.  Each stream's chosen packets are decoded one at a
 * time, and the streams' events merged in time order by a heap on their
 * next event, as a whole load merges them; time 0 is the caller's, the
 * whole trace's first event, so that both models put an event at the same
 * time.  The names packets hold the labels of the whole trace's threads:
 * only those of threads the ring packets name are fed, so that memory is
 * the packets' events and the model of them, not the trace's.
 */
#include <stdlib.h>

#include "model_internal.h"

/* One stream's chosen packets, packets[next .. end) still to decode, and
 * the events of the one decoded. */
typedef struct part_s {
  const size_t *packets;
  size_t next, end;
  int names; /* of the names stream class */
  mprof_event_t *events;
  size_t count, cap, at;
} part_t;

typedef struct parts_s {
  const mprof_trace_t *trace;
  part_t *parts;
  size_t count;
  uint64_t *ids; /* the threads the ring packets name, sorted */
  size_t id_count, id_cap;
  uint32_t *heap; /* parts with events, the earliest next event on top */
  size_t heap_count;
} parts_t;

static int id_order(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Whether sorted ids[0 .. count) holds id (a search of our own: the
 * model calls nothing of the C library but memory and strings). */
static int ids_hold(const uint64_t *ids, size_t count, uint64_t id) {
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ids[mid] < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < count && ids[lo] == id;
}

static int names_known_thread(const parts_t *s, const mprof_event_t *ev) {
  if (ev->kind != MPROF_EVENT_LABEL && ev->kind != MPROF_EVENT_SHOULD_RESOLVE)
    return 1;
  return ids_hold(s->ids, s->id_count, ev->a);
}

/* Keep of a names packet's events only those of threads the ring packets
 * name. */
static void drop_unknown_threads(const parts_t *s, part_t *p) {
  size_t kept = 0;
  for (size_t i = 0; i < p->count; i++)
    if (names_known_thread(s, &p->events[i])) p->events[kept++] = p->events[i];
  p->count = kept;
}

/* Decode part p's packets until one yields events.  Returns 0 or
 * MPROF_ENOMEM. */
static int part_fill(const parts_t *s, part_t *p) {
  p->count = p->at = 0;
  while (p->count == 0 && p->next < p->end) {
    size_t packet = p->packets[p->next++];
    size_t most = mprof_trace_packet_max_events(s->trace, packet);
    if (mprof__grow(&p->events, &p->cap, most, sizeof *p->events))
      return MPROF_ENOMEM;
    p->count =
        mprof_trace_packet_decode(s->trace, packet, p->events, p->cap, NULL);
    if (p->names) drop_unknown_threads(s, p);
  }
  return 0;
}

/* The ids of part p's events (a ring part), into s->ids. */
static int note_ids(parts_t *s, part_t *p) {
  int err = part_fill(s, p);
  for (; !err && p->count; err = part_fill(s, p))
    for (size_t i = 0; i < p->count && !err; i++) {
      const mprof_event_t *ev = &p->events[i];
      const uint64_t ids[3] = {ev->thread, ev->a, ev->b};
      for (int k = 0; k < 3 && !err; k++)
        err = mprof__grow(&s->ids, &s->id_cap, s->id_count + 1, sizeof *s->ids)
                  ? MPROF_ENOMEM
                  : (s->ids[s->id_count++] = ids[k], 0);
    }
  return err;
}

/* The threads the ring packets name, sorted, each once; the ring parts
 * made to start again. */
static int find_ids(parts_t *s) {
  int err = 0;
  for (size_t i = 0; i < s->count && !err; i++)
    if (!s->parts[i].names) {
      size_t first = s->parts[i].next;
      err = note_ids(s, &s->parts[i]);
      s->parts[i].next = first;
    }
  if (err) return err;
  qsort(s->ids, s->id_count, sizeof *s->ids, id_order);
  size_t kept = 0;
  for (size_t i = 0; i < s->id_count; i++)
    if (!kept || s->ids[kept - 1] != s->ids[i]) s->ids[kept++] = s->ids[i];
  s->id_count = kept;
  return 0;
}

static uint64_t head_ticks(const parts_t *s, uint32_t i) {
  const part_t *p = &s->parts[i];
  return p->events[p->at].time_ticks;
}

/* The earlier next event first; on equal clocks, the earlier stream. */
static int before(const parts_t *s, uint32_t a, uint32_t b) {
  uint64_t x = head_ticks(s, a), y = head_ticks(s, b);
  return x < y || (x == y && a < b);
}

static void sift_down(parts_t *s, size_t i) {
  for (;;) {
    size_t least = i, l = 2 * i + 1, r = l + 1;
    if (l < s->heap_count && before(s, s->heap[l], s->heap[least])) least = l;
    if (r < s->heap_count && before(s, s->heap[r], s->heap[least])) least = r;
    if (least == i) return;
    uint32_t t = s->heap[i];
    s->heap[i] = s->heap[least];
    s->heap[least] = t;
    i = least;
  }
}

/* Split the chosen packets into streams: runs of equal (class, instance). */
static int find_parts(parts_t *s, const size_t *packets, size_t count) {
  s->parts = calloc(count + 1, sizeof *s->parts);
  s->heap = calloc(count + 1, sizeof *s->heap);
  if (!s->parts || !s->heap) return MPROF_ENOMEM;
  for (size_t i = 0; i < count;) {
    const mprof_packet_info_t *p = mprof_trace_packet(s->trace, packets[i]);
    size_t j = i + 1;
    for (; j < count; j++) {
      const mprof_packet_info_t *q = mprof_trace_packet(s->trace, packets[j]);
      if (q->stream_class != p->stream_class ||
          q->stream_instance != p->stream_instance)
        break;
    }
    s->parts[s->count++] =
        (part_t){packets, i, j, p->stream_class != 0, NULL, 0, 0, 0};
    i = j;
  }
  return 0;
}

/* Feed the top part's events for as long as they come before every
 * other's next, then put it back in its place (or drop it, used up). */
static int feed_top(mprof_model_t *m, parts_t *s) {
  uint32_t top = s->heap[0];
  part_t *p = &s->parts[top];
  uint64_t bound = UINT64_MAX;
  for (size_t c = 1; c <= 2 && c < s->heap_count; c++)
    if (head_ticks(s, s->heap[c]) < bound) bound = head_ticks(s, s->heap[c]);
  mprof__run_t run = {p->events, p->count, p->at, bound, 1};
  mprof__run_t none = {NULL, 0, 0, UINT64_MAX, 1};
  int err = mprof__model_add_pair(m, &run, &none);
  p->at = run.at;
  if (!err && p->at == p->count) err = part_fill(s, p);
  if (p->at == p->count) s->heap[0] = s->heap[--s->heap_count];
  sift_down(s, 0);
  return err;
}

static int feed_parts(mprof_model_t *m, parts_t *s) {
  int err = find_ids(s);
  for (size_t i = 0; i < s->count && !err; i++) {
    err = part_fill(s, &s->parts[i]);
    if (!err && s->parts[i].count) s->heap[s->heap_count++] = (uint32_t)i;
  }
  for (size_t i = s->heap_count; i-- > 0;) sift_down(s, i);
  while (!err && s->heap_count) err = feed_top(m, s);
  return err;
}

/* What the trace says of the whole recording: its losses, when it ended,
 * the wall-clock time of time 0. */
static void take_trace_facts(mprof_model_t *m, const mprof_trace_t *trace) {
  const mprof_trace_info_t *info = mprof_trace_info(trace);
  m->view.discarded = info->discarded;
  m->view.end_ns =
      info->end_ticks
          ? mprof__axis_ns(info->end_ticks, m->view.start_ticks, m->ns_per_tick)
          : 0;
  unsigned __int128 ns = (unsigned __int128)m->view.start_ticks * 1000000000u /
                         info->clock_freq_hz;
  m->view.wall_start_ns = info->clock_offset_ns + (int64_t)ns;
}

/* About how many bytes of model a byte of packet content makes. */
#define MODEL_BYTES_PER_TRACE_BYTE 4

uint64_t mprof_model_bytes_of_content(uint64_t content_bytes) {
  return content_bytes * MODEL_BYTES_PER_TRACE_BYTE;
}

uint64_t mprof_model_bytes_estimate(const mprof_trace_t *trace,
                                    const size_t *packets, size_t count) {
  if (!packets) count = mprof_trace_packet_count(trace);
  uint64_t bytes = 0;
  for (size_t i = 0; i < count; i++)
    bytes += mprof_trace_packet(trace, packets ? packets[i] : i)->content_bytes;
  return mprof_model_bytes_of_content(bytes);
}

int mprof_model_load_packets(const mprof_trace_t *trace, const size_t *packets,
                             size_t count, uint64_t start_ticks,
                             mprof_model_t **out) {
  const mprof_trace_info_t *info = mprof_trace_info(trace);
  mprof_model_t *m;
  int err = mprof_model_new(info->clock_freq_hz, info->legacy, &m);
  if (err) return err;
  m->view.start_ticks = start_ticks;
  m->have_base = 1;
  parts_t s = {trace, NULL, 0, NULL, 0, 0, NULL, 0};
  err = find_parts(&s, packets, count);
  if (!err) err = feed_parts(m, &s);
  for (size_t i = 0; i < s.count; i++) free(s.parts[i].events);
  free(s.parts);
  free(s.ids);
  free(s.heap);
  if (!err) {
    take_trace_facts(m, trace);
    err = mprof_model_finish(m);
  }
  if (err) {
    mprof_model_free(m);
    return err;
  }
  *out = m;
  return 0;
}
