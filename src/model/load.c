/* load.c -- build the model of a whole trace, or of several traces on one
 * time axis: the events of every stream (one per OS thread, plus the names
 * area) merged into one time order.
 *
 * Each stream is a run of packets in sequence order; one packet at a time
 * is decoded into that stream's buffer.  A binary heap on each stream's
 * next event picks the stream that goes next.  The model takes two streams
 * at a time, in place, and merges them in its own event loop (an OS
 * thread's ring and names streams, whose events interleave all the time,
 * go as one pair from start to end): one heap step a pair, once one of
 * them needs its next packet or both are past a third stream's head.
 * Other sinks (the streaming analysis, whose relay keeps events for later)
 * get each stream's runs, its events up to the next stream's head, copied
 * into a batch that they take in one call: two OS threads whose events
 * interleave closely make runs of an event or two, and the sink's loop
 * then still goes over a thousand events a call.  Memory is one decoded
 * packet per stream, whatever the trace size.
 *
 * Several traces: each event's ticks become ns on a common axis (the
 * trace's wall-clock anchor plus the caller's offset), and its ids are
 * moved into the trace's namespace (see mprof_model_load_many).
 *
 * The caller may be told of each packet decoded (mprof_model_load_with):
 * a function it passes, called, never an OS call made here.
 */
#include <string.h>

#include "model_internal.h"

/* Where a stream's events come from and how they move onto the axis. */
typedef struct source_s {
  const mprof_trace_t *trace;
  uint32_t index;   /* the trace's place in the list */
  uint64_t freq_hz; /* 0: ticks stay as they are */
  uint64_t base_ns; /* axis ns at the trace's tick 0 */
} source_t;

/* Packets decoded so far, told to the caller's progress function. */
typedef struct progress_s {
  mprof_progress_fn fn; /* NULL: nobody is told */
  void *context;
  size_t done, total;
} progress_t;

typedef struct cursor_s {
  const source_t *source;
  progress_t *progress;
  size_t next_packet, end_packet; /* packets of this stream still to decode */
  mprof_decoded_t d;              /* the decoded packet */
  size_t at;                      /* d.events[at .. d.count) are to go */
} cursor_t;

/* Does event kind k carry thread ids in a and b? */
static int names_threads(mprof_event_kind_t k) {
  return k != MPROF_EVENT_SUSPEND && k != MPROF_EVENT_COUNTER_NAME &&
         k != MPROF_EVENT_COUNTER_INCREASE && k != MPROF_EVENT_COUNTER_VALUE &&
         k != MPROF_EVENT_STRING && k != MPROF_EVENT_GC;
}

static uint64_t thread_in(uint64_t id, uint32_t source) {
  return id == MPROF_NONE ? id : id ^ (uint64_t)source << 56;
}

/* A clock value of trace `source` on the common axis. */
static uint64_t move_ticks(const source_t *source, uint64_t ticks) {
  if (!source->freq_hz) return ticks;
  return source->base_ns +
         (uint64_t)((unsigned __int128)ticks * 1000000000u / source->freq_hz);
}

/* Move an event of trace `source` onto the common axis and namespace. */
static void move_event(const source_t *source, mprof_event_t *ev) {
  ev->time_ticks = move_ticks(source, ev->time_ticks);
  uint32_t i = source->index;
  if (i == 0) return;
  ev->stream ^= i << 24;
  if (ev->counter) ev->counter ^= i << 24; /* 0: legacy, named by text */
  ev->thread = thread_in(ev->thread, i);
  if (names_threads(ev->kind)) {
    ev->a = thread_in(ev->a, i);
    ev->b = thread_in(ev->b, i);
  }
}

/* Decode packets until one yields events.  Returns 0 (c->at < c->d.count
 * when an event is ready) or an mprof error (MPROF_ENOMEM).  A damaged
 * packet has been reported by the reader; its good events are used. */
static int cursor_fill(cursor_t *c) {
  const source_t *source = c->source;
  c->d.count = c->at = 0;
  while (c->d.count == 0 && c->next_packet < c->end_packet) {
    size_t packet = c->next_packet++;
    int err = mprof_trace_packet_decode_into(source->trace, packet, &c->d);
    if (err) return err;
    progress_t *p = c->progress;
    if (p->fn) p->fn(p->context, ++p->done, p->total);
  }
  if (source->freq_hz || source->index)
    for (size_t i = 0; i < c->d.count; i++) move_event(source, &c->d.events[i]);
  return 0;
}

/* A heap entry: a cursor and the clock of its next event, kept here so
 * that the heap's steps read only the heap. */
typedef struct head_s {
  uint64_t time;
  uint32_t cursor;
} head_t;

/* The earliest head first (ties: the lower cursor, so the order is
 * deterministic). */
static inline int earlier(head_t a, head_t b) {
  return a.time != b.time ? a.time < b.time : a.cursor < b.cursor;
}

/* Put h in heap[i]'s place and move it down to where it goes: the earlier
 * children move up into the hole, and h, held in registers, is written
 * once, at the end (entries written in two halves and read back in one
 * wide load stall the load). */
static inline void sift_down(head_t *heap, size_t n, size_t i, head_t h) {
  for (size_t l = 2 * i + 1; l < n; l = 2 * i + 1) {
    size_t best = l + 1 < n && earlier(heap[l + 1], heap[l]) ? l + 1 : l;
    if (!earlier(heap[best], h)) break;
    heap[i] = heap[best];
    i = best;
  }
  heap[i] = h;
}

/* Split the packets into streams: runs of equal (class, instance).
 * Appends a cursor per stream; returns how many. */
static size_t find_streams(const source_t *source, progress_t *progress,
                           cursor_t *cursors) {
  const mprof_trace_t *trace = source->trace;
  size_t packets = mprof_trace_packet_count(trace), n = 0;
  for (size_t i = 0; i < packets;) {
    const mprof_packet_info_t *p = mprof_trace_packet(trace, i);
    size_t j = i + 1;
    while (j < packets &&
           mprof_trace_packet(trace, j)->stream_class == p->stream_class &&
           mprof_trace_packet(trace, j)->stream_instance == p->stream_instance)
      j++;
    memset(&cursors[n], 0, sizeof cursors[n]);
    cursors[n].source = source;
    cursors[n].progress = progress;
    cursors[n].next_packet = i;
    cursors[n].end_packet = j;
    n++;
    i = j;
  }
  return n;
}

/* Cursor i's next event as a head; 0 if it has none left. */
static int head_of(const cursor_t *cursors, uint32_t i, head_t *out) {
  const cursor_t *c = &cursors[i];
  if (c->at == c->d.count) return 0;
  *out = (head_t){c->d.events[c->at].time_ticks, i};
  return 1;
}

/* Decode each stream's first packet and make the heads of those with
 * events a heap: the earliest into *first, the others (*live less one) in
 * heap[].  Returns 0 or an mprof error. */
static int heads_start(cursor_t *cursors, size_t n, head_t *heap, head_t *first,
                       size_t *live) {
  *live = 0;
  for (uint32_t i = 0; i < n; i++) {
    int err = cursor_fill(&cursors[i]);
    if (err) return err;
    if (head_of(cursors, i, &heap[*live])) ++*live;
  }
  for (size_t i = *live / 2; i-- > 0;) sift_down(heap, *live, i, heap[i]);
  if (*live) *first = heap[0];
  if (*live > 1) sift_down(heap, *live - 1, 0, heap[*live - 1]);
  return 0;
}

/* Events in time order, copied here until the sink takes them. */
#define BATCH_EVENTS 1024
typedef struct batch_s {
  const mprof__merge_t *merge;
  mprof_event_t events[BATCH_EVENTS];
  size_t count;
} batch_t;

/* Hand the batch's events to the sink, a pair's first run (the second
 * has none, and is done).  Returns 0 or the sink's error. */
static int flush(batch_t *b) {
  mprof__run_t run = {b->events, b->count, 0, UINT64_MAX, 1};
  mprof__run_t none = {NULL, 0, 0, UINT64_MAX, 1};
  b->count = 0;
  return run.count ? b->merge->add_pair(b->merge->sink, &run, &none) : 0;
}

/* Copy c's events up to the first whose clock is past limit into the
 * batch, handing it on whenever it is full.  Returns 0 or the sink's
 * error. */
static int take_upto(batch_t *b, cursor_t *c, uint64_t limit) {
  size_t i = c->at;
  for (;;) {
    size_t end = c->d.count - i < BATCH_EVENTS - b->count
                     ? c->d.count
                     : i + (BATCH_EVENTS - b->count);
    while (i < end && c->d.events[i].time_ticks <= limit)
      b->events[b->count++] = c->d.events[i++];
    if (i == c->d.count || c->d.events[i].time_ticks > limit) break;
    int err = flush(b);
    if (err) return err;
  }
  c->at = i;
  return 0;
}

/* Decode c's next packet once its events are all taken and the batch has
 * gone (their texts lie in the packet's bytes).  Returns 0 (c has no
 * events left only when it is done) or an mprof error. */
static int next_packet(batch_t *b, cursor_t *c) {
  if (c->at < c->d.count || c->next_packet == c->end_packet) return 0;
  int err = flush(b);
  return err ? err : cursor_fill(c);
}

/* The last clock of cursor i's events that may go before the head
 * `bound` (the lower cursor goes first on equal clocks) into *last; 0
 * when none may (a bound at clock 0 of a lower cursor). */
static int last_before(uint32_t i, head_t bound, uint64_t *last) {
  if (i < bound.cursor) {
    *last = bound.time;
    return 1;
  }
  *last = bound.time - 1;
  return bound.time > 0;
}

/* After the cursor of the earliest head, *first, moved on: its new head
 * or, where it has no events left, the heap's top (popped) is the
 * earliest, trading places with the top where that is earlier, one heap
 * step.  Returns 0 once no stream has events left. */
static int next_first(const cursor_t *cursors, head_t *first, head_t *rest,
                      size_t *others) {
  if (!head_of(cursors, first->cursor, first)) {
    if (!*others) return 0;
    *first = rest[0];
    if (--*others) sift_down(rest, *others, 0, rest[*others]);
  } else if (*others && earlier(rest[0], *first)) {
    head_t went = *first;
    *first = rest[0];
    sift_down(rest, *others, 0, went);
  }
  return 1;
}

/* Hand every event to the sink in time order: of all streams' next
 * events, the earliest clock first, the lower cursor on equal clocks.
 * The earliest head, `first`, is held apart from the heap of the others
 * (rest[0 .. others)): its cursor's run goes (its events up to the heap's top,
 * the next earliest), then its new head and the heap's top trade places, one
 * heap step a run (two OS threads whose events interleave closely trade every
 * event or two, and their names streams' heads, further on, stay below). */
static int merge_streams(batch_t *b, cursor_t *cursors, head_t first,
                         head_t *rest, size_t others) {
  do {
    cursor_t *c = &cursors[first.cursor];
    uint64_t limit = UINT64_MAX;
    if (others) /* first is earlier: a top at clock 0 has a later cursor */
      last_before(first.cursor, rest[0], &limit);
    int err = take_upto(b, c, limit);
    if (err || (err = next_packet(b, c))) return err;
  } while (next_first(cursors, &first, rest, &others));
  return flush(b);
}

/* Cursor c (index i) as a run for the sink, none of its events past the
 * head `bound` (unbounded: none past UINT64_MAX); the lower cursor goes
 * first on equal clocks.  Without events left it is done when it has no
 * packets left either. */
static mprof__run_t run_of(const cursor_t *c, uint32_t i, head_t bound,
                           int bounded) {
  mprof__run_t r = {c->d.events, c->d.count, c->at, UINT64_MAX,
                    c->next_packet == c->end_packet};
  if (bounded && !last_before(i, bound, &r.last)) {
    r.count = r.at; /* nothing of it may go before the bound's clock 0 */
    r.done = 1;
  }
  return r;
}

/* Decode c's next packet if its events are all taken.  Returns 0 or an
 * mprof error. */
static int refill(cursor_t *c) {
  return c->at == c->d.count && c->next_packet < c->end_packet ? cursor_fill(c)
                                                               : 0;
}

/* Feed the streams of heads a and b to the sink as one pair (a alone
 * where b is a), merged by the sink's own loop, none of their events past
 * the head `bound` (where bounded), until one needs its next packet or
 * neither may go on; their next packets are decoded then.  Returns 0 or
 * an mprof error. */
static int feed_pair(const mprof__merge_t *merge, cursor_t *cursors, head_t a,
                     head_t b, head_t bound, int bounded) {
  static const cursor_t none; /* no events, no packets: done */
  uint32_t lo = a.cursor < b.cursor ? a.cursor : b.cursor;
  uint32_t hi = a.cursor < b.cursor ? b.cursor : a.cursor;
  cursor_t *x = &cursors[lo], *y = hi != lo ? &cursors[hi] : NULL;
  mprof__run_t rx = run_of(x, lo, bound, bounded);
  mprof__run_t ry = run_of(y ? y : &none, hi, bound, bounded);
  int err = merge->add_pair(merge->sink, &rx, &ry);
  x->at = rx.at;
  if (y) y->at = ry.at;
  if (err || (err = refill(x))) return err;
  return y ? refill(y) : 0;
}

/* Hand every event to the model in time order (as merge_streams()), two
 * streams at a time: the earliest head, held apart, and the heap's top
 * go as a pair that the model's event loop merges itself, each up to the
 * third earliest head (one of the top's children), with no copy and no
 * heap step until one of them needs its next packet or both are past it.
 * An OS thread's ring and names streams, whose events interleave all the
 * time (labels go to the names stream), go as one pair throughout. */
static int merge_pairs(const mprof__merge_t *merge, cursor_t *cursors,
                       head_t first, head_t *rest, size_t others) {
  for (;;) {
    head_t second = others ? rest[0] : first, bound = {UINT64_MAX, 0}, h;
    if (others > 2 && earlier(rest[2], rest[1]))
      bound = rest[2];
    else if (others > 1)
      bound = rest[1];
    int err = feed_pair(merge, cursors, first, second, bound, others > 1);
    if (err) return err;
    if (others) { /* the second's new head takes its place in the heap */
      if (head_of(cursors, second.cursor, &h))
        sift_down(rest, others, 0, h);
      else if (--others)
        sift_down(rest, others, 0, rest[others]);
    }
    if (!next_first(cursors, &first, rest, &others)) return 0;
  }
}

/* a + b, held at the int64 limits: anchors come from the trace (maybe
 * damaged) and offsets from the user. */
static int64_t add_ns(int64_t a, int64_t b) {
  int64_t sum;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

/* Ticks at freq as ns, held at INT64_MAX. */
static int64_t ticks_ns(uint64_t ticks, uint64_t freq) {
  unsigned __int128 ns = (unsigned __int128)ticks * 1000000000u / freq;
  return ns > INT64_MAX ? INT64_MAX : (int64_t)ns;
}

/* Place each trace on the axis: its anchor plus offset, less the
 * earliest of them (returned), so that every base is >= 0.  One trace with
 * no offset keeps its own clock; otherwise the axis is in ns (*axis_ns). */
static int64_t place_sources(const mprof_trace_t *const *traces, size_t count,
                             const int64_t *offsets_ns, source_t *sources,
                             int *axis_ns) {
  int64_t origin = INT64_MAX;
  for (size_t i = 0; i < count; i++) {
    int64_t at = add_ns(mprof_trace_info(traces[i])->clock_offset_ns,
                        offsets_ns ? offsets_ns[i] : 0);
    if (at < origin) origin = at;
  }
  int alone = count == 1 && (!offsets_ns || offsets_ns[0] == 0);
  *axis_ns = !alone;
  for (size_t i = 0; i < count; i++) {
    const mprof_trace_info_t *info = mprof_trace_info(traces[i]);
    int64_t at = add_ns(info->clock_offset_ns, offsets_ns ? offsets_ns[i] : 0);
    sources[i] =
        (source_t){traces[i], (uint32_t)i, alone ? 0 : info->clock_freq_hz,
                   (uint64_t)at - (uint64_t)origin};
  }
  return origin;
}

/* The wall-clock time of the model's time 0. */
static int64_t wall_start(const mprof_model_t *m, const mprof__merge_t *merge,
                          const mprof_trace_t *first) {
  uint64_t ticks = m->view.start_ticks;
  if (merge->axis_ns)
    return add_ns(merge->origin_ns,
                  ticks > INT64_MAX ? INT64_MAX : (int64_t)ticks);
  uint64_t freq = mprof_trace_info(first)->clock_freq_hz;
  return add_ns(merge->origin_ns, ticks_ns(ticks, freq));
}

/* When the latest of the traces' recordings ended, on the axis (0 where
 * none says). */
static uint64_t recordings_end(const source_t *sources, size_t count) {
  uint64_t end = 0;
  for (size_t i = 0; i < count; i++) {
    uint64_t ticks = mprof_trace_info(sources[i].trace)->end_ticks;
    if (ticks && move_ticks(&sources[i], ticks) > end)
      end = move_ticks(&sources[i], ticks);
  }
  return end;
}

int64_t mprof__axis_ns(uint64_t ticks, uint64_t start_ticks,
                       double ns_per_tick) {
  if (ticks <= start_ticks) return 0;
  double ns = (double)(ticks - start_ticks) * ns_per_tick;
  return ns < (double)MODEL_MAX_NS ? (int64_t)ns : MODEL_MAX_NS;
}

/* The traces can share one model: not too many, all legacy or none. */
static int sources_check(const mprof_trace_t *const *traces, size_t count) {
  if (count == 0 || count > MPROF_MODEL_MAX_TRACES) return MPROF_EINVAL;
  for (size_t i = 1; i < count; i++)
    if (mprof_trace_info(traces[i])->legacy !=
        mprof_trace_info(traces[0])->legacy)
      return MPROF_EINVAL;
  return 0;
}

/* n as a size_t (held at SIZE_MAX where size_t is narrower). */
static size_t size_of_u64(uint64_t n) {
  return n > SIZE_MAX ? SIZE_MAX : (size_t)n;
}

/* The sizes that events counted by kind will need (becomes: merges, each
 * of which may end a span on every stream; a switch ends a span unless it
 * switches to what runs).  Spans are held at one an event, plus each
 * stream's last: more than that takes merges on many streams at once,
 * for which the array grows. */
static void sizes_of(const uint64_t *kinds, size_t streams,
                     mprof_model_sizes_t *out) {
  uint64_t creates = kinds[MPROF_EVENT_CREATE] + kinds[MPROF_EVENT_CREATE_BY];
  uint64_t becomes = kinds[MPROF_EVENT_BECOMES], events = 0;
  for (size_t k = 0; k < MPROF_EVENT_KIND_COUNT; k++) events += kinds[k];
  /* legacy reads and signals also switch */
  uint64_t spans = kinds[MPROF_EVENT_SWITCH] + kinds[MPROF_EVENT_SUSPEND] +
                   kinds[MPROF_EVENT_READ] + kinds[MPROF_EVENT_SIGNAL] +
                   becomes * streams;
  /* the root, threads from before the trace, each stream's last span */
  out->threads = size_of_u64(creates + 1 + creates / 256 + 1024);
  out->arrows = size_of_u64(
      creates + kinds[MPROF_EVENT_READ] + kinds[MPROF_EVENT_SIGNAL] +
      kinds[MPROF_EVENT_TRY_READ] + kinds[MPROF_EVENT_RESOLVE] +
      kinds[MPROF_EVENT_FAIL] + becomes);
  out->spans = size_of_u64((spans < events ? spans : events) + streams + 1);
  out->labels = size_of_u64(kinds[MPROF_EVENT_LABEL]);
  out->samples = size_of_u64(kinds[MPROF_EVENT_COUNTER_INCREASE] +
                             kinds[MPROF_EVENT_COUNTER_VALUE]);
}

/* A census takes one packet in `stride` of each trace (every packet of a
 * trace with fewer than CENSUS_ALL_BELOW): counts of a sample are scaled up
 * by content bytes, with an eighth more for room.  The load samples one
 * packet in CENSUS_STRIDE. */
#define CENSUS_ALL_BELOW 128
#define CENSUS_STRIDE 16

static void census_sizes(const mprof_trace_t *const *traces, size_t count,
                         size_t stride, mprof_model_sizes_t *out) {
  uint64_t kinds[MPROF_EVENT_KIND_COUNT] = {0};
  uint64_t all_bytes = 0, sampled_bytes = 0;
  size_t streams = 0;
  for (size_t t = 0; t < count; t++) {
    size_t packets = mprof_trace_packet_count(traces[t]);
    streams += mprof_trace_info(traces[t])->streams;
    for (size_t i = 0; i < packets; i++) {
      uint64_t bytes = mprof_trace_packet(traces[t], i)->content_bytes;
      all_bytes += bytes;
      if (packets >= CENSUS_ALL_BELOW && i % stride) continue;
      sampled_bytes += bytes;
      mprof_trace_packet_census(traces[t], i, kinds);
    }
  }
  for (size_t k = 0; k < MPROF_EVENT_KIND_COUNT && sampled_bytes < all_bytes;
       k++)
    kinds[k] = (uint64_t)((double)kinds[k] * (double)all_bytes /
                          (double)sampled_bytes * 1.125) +
               16;
  sizes_of(kinds, streams, out);
}

int mprof_model_count(const mprof_trace_t *const *traces, size_t count,
                      mprof_model_sizes_t *out) {
  census_sizes(traces, count, 1, out);
  return 0;
}

/* mprof__merge_traces(), the events handed in pairs of streams
 * (merge_pairs()) where `in_pairs`, else in batches. */
static int merge_traces(const mprof_trace_t *const *traces, size_t count,
                        const int64_t *offsets_ns, mprof__merge_t *merge,
                        int in_pairs) {
  int err = sources_check(traces, count);
  if (err) return err;
  source_t sources[MPROF_MODEL_MAX_TRACES];
  merge->origin_ns =
      place_sources(traces, count, offsets_ns, sources, &merge->axis_ns);
  progress_t progress = {merge->progress, merge->progress_context, 0, 0};
  size_t packets = 0;
  for (size_t i = 0; i < count; i++)
    packets += mprof_trace_packet_count(traces[i]);
  progress.total = packets;
  const mprof_trace_info_t *first = mprof_trace_info(traces[0]);
  err = merge->begin(merge->sink,
                     merge->axis_ns ? 1000000000u : first->clock_freq_hz,
                     first->legacy);
  if (err) return err;
  cursor_t *cursors = malloc((packets ? packets : 1) * sizeof *cursors);
  head_t *heap = malloc((packets ? packets : 1) * sizeof *heap);
  batch_t *batch = in_pairs ? NULL : malloc(sizeof *batch);
  merge->discarded = 0;
  if (!cursors || !heap || (!in_pairs && !batch)) {
    err = MPROF_ENOMEM;
  } else {
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
      n += find_streams(&sources[i], &progress, cursors + n);
      merge->discarded += mprof_trace_info(sources[i].trace)->discarded;
    }
    if (batch) *batch = (batch_t){.merge = merge, .count = 0};
    head_t first; /* the earliest head, held apart from heap[] */
    size_t live;
    err = heads_start(cursors, n, heap, &first, &live);
    if (!err && live)
      err = in_pairs ? merge_pairs(merge, cursors, first, heap, live - 1)
                     : merge_streams(batch, cursors, first, heap, live - 1);
    for (size_t i = 0; i < n; i++) {
      mprof_decoded_free(&cursors[i].d);
    }
  }
  free(cursors);
  free(heap);
  free(batch);
  merge->end_ticks = recordings_end(sources, count);
  return err;
}

int mprof__merge_traces(const mprof_trace_t *const *traces, size_t count,
                        const int64_t *offsets_ns, mprof__merge_t *merge) {
  return merge_traces(traces, count, offsets_ns, merge, 0);
}

/* The model a merge builds: made when the merge begins, with sizes. */
typedef struct model_sink_s {
  const mprof_model_sizes_t *sizes;
  mprof_model_t *m;
} model_sink_t;

static int model_begin(void *sink, uint64_t clock_freq_hz, int legacy) {
  model_sink_t *s = sink;
  int err = mprof_model_new(clock_freq_hz, legacy, &s->m);
  /* the sizes are a hint: where memory for them runs short, the arrays
   * grow as they fill, and the load fails only if that fails too */
  if (!err && s->sizes) (void)mprof__model_reserve(s->m, s->sizes);
  return err;
}

static int model_add_pair(void *sink, mprof__run_t *x, mprof__run_t *y) {
  return mprof__model_add_pair(((model_sink_t *)sink)->m, x, y);
}

/* mprof_model_feed_many(), telling progress of each packet decoded. */
static int feed(const mprof_trace_t *const *traces, size_t count,
                const int64_t *offsets_ns, const mprof_model_sizes_t *sizes,
                mprof_progress_fn progress, void *progress_context,
                mprof_model_t **out) {
  model_sink_t sink = {sizes, NULL};
  mprof__merge_t merge = {model_begin,
                          model_add_pair,
                          &sink,
                          progress,
                          progress_context,
                          0,
                          0,
                          0,
                          0};
  int err = merge_traces(traces, count, offsets_ns, &merge, 1);
  mprof_model_t *m = sink.m;
  if (err) {
    mprof_model_free(m);
    return err;
  }
  m->view.discarded = merge.discarded;
  m->view.end_ns =
      merge.end_ticks
          ? mprof__axis_ns(merge.end_ticks, m->view.start_ticks, m->ns_per_tick)
          : 0;
  m->view.wall_start_ns = wall_start(m, &merge, traces[0]);
  *out = m;
  return 0;
}

int mprof_model_feed_many(const mprof_trace_t *const *traces, size_t count,
                          const int64_t *offsets_ns,
                          const mprof_model_sizes_t *sizes,
                          mprof_model_t **out) {
  return feed(traces, count, offsets_ns, sizes, NULL, NULL, out);
}

int mprof_model_load_with(const mprof_trace_t *const *traces, size_t count,
                          const mprof_model_load_options_t *options,
                          mprof_model_t **out) {
  static const mprof_model_load_options_t none = {NULL, NULL, NULL};
  if (!options) options = &none;
  /* arrays made near their size at once, from a census of a sample of the
   * packets: grown as they fill, each would be copied (or moved) and
   * touched again */
  mprof_model_sizes_t sizes;
  census_sizes(traces, count <= MPROF_MODEL_MAX_TRACES ? count : 0,
               CENSUS_STRIDE, &sizes);
  mprof_model_t *m;
  int err = feed(traces, count, options->offsets_ns, &sizes, options->progress,
                 options->progress_context, &m);
  if (err) return err;
  err = mprof_model_finish(m);
  if (err) {
    mprof_model_free(m);
    return err;
  }
  *out = m;
  return 0;
}

int mprof_model_load_many(const mprof_trace_t *const *traces, size_t count,
                          const int64_t *offsets_ns, mprof_model_t **out) {
  mprof_model_load_options_t options = {offsets_ns, NULL, NULL};
  return mprof_model_load_with(traces, count, &options, out);
}

int mprof_model_load(const mprof_trace_t *trace, mprof_model_t **out) {
  return mprof_model_load_many(&trace, 1, NULL, out);
}
