/* stream.c -- the analysis of a trace of any size in one pass, in memory
 * bounded by what is alive at a time (mprof_analysis_stream(),
 * docs/analysis.md, "Streaming").  Events come in time order across
 * streams from the model's own merge (load.c) and are applied with the
 * model's semantics (events.c: merges, threads from before the trace,
 * time that never goes backwards), to state that is dropped once it can
 * change nothing the analysis says:
 *
 *  - a thread: its record (id, the model's index for it, type, flags,
 *    start, end, labels, failure, running time, the try_reads it made and
 *    when each was answered by a read, its last MPROF_STALL_CONTEXT
 *    arrows: a stall's context) lives in a table by id while it may still
 *    change.  A thread that ended waits in its OS thread's queue
 *    for STREAM_RETIRE_EVENTS more events of that OS thread (later events
 *    still name it: the read of a resolved promise, the merge into it),
 *    then is retired: its time and request figures are settled
 *    (stream_settle.c), its id goes into a bitmap of ids seen (an event
 *    that names a retired id names an inert thread, not one from before
 *    the trace; where the model would change that thread, the event is a
 *    late reference, counted), and its record goes back to the pool once
 *    nothing the analysis keeps names it;
 *  - an OS-thread stream: what runs there and since when, an idle band
 *    open, the idle time so far (a loop's time in poll), whether a loop
 *    ran there;
 *  - what the analysis keeps: per kind of request its count, failures and
 *    a sketch of its lives (exact up to STREAM_EXACT values, then a
 *    histogram of 1/128 relative width); the `top` longest-lived threads
 *    with their waits; the threads it names (records kept by reference).
 *
 * A should_resolve thread that merged is kept to the end (whether it
 * stalled is known only then), and so is every thread that never ended.
 * At the end the kept records are settled in index order, and the named
 * ones become a small model (the threads the analysis names, with their
 * labels), so that the same findings code (findings.c) writes the same
 * text as for the whole model.
 */
#include <stddef.h>
#include <string.h>

#include "stream_internal.h"

/* Is there an arrow from `from` to `to` (the model draws none to itself
 * or to the root; a retired thread's are past its line)? */
static int arrow(const sthread_t *from, const sthread_t *to) {
  return from && to && from != to && !mprof__stream_fixed(from) &&
         !mprof__stream_fixed(to);
}

/* An event would change a retired thread (what the model says of it is
 * then not what the stream says): count it. */
static int late(stream_t *s, const sthread_t *t) {
  if (t != STREAM_RETIRED) return 0;
  s->late++;
  return 1;
}

static uint32_t ring_size(const sthread_t *t) {
  return t->ring_count < MPROF_STALL_CONTEXT ? t->ring_count
                                             : MPROF_STALL_CONTEXT;
}

void mprof__stream_ring_clear(sthread_t *t) {
  uint32_t n = ring_size(t);
  t->ring_count = 0;
  for (uint32_t k = 0; t->pinned && k < n; k++)
    mprof__stream_unref(t->ring[k].other);
}

/* Only a stall's rings hold their arrows' other ends (most threads never
 * stall, and a reference an arrow costs): t may stall (it should resolve,
 * or such a thread became it), so its ring's ends are kept from now on.
 * An end already gone back to the pool (a record of another index there
 * now) is lost: counted late. */
static void pin(stream_t *s, sthread_t *t) {
  if (t->pinned || mprof__stream_fixed(t)) return;
  t->pinned = 1;
  for (uint32_t k = 0; k < ring_size(t); k++) {
    sarrow_t *a = &t->ring[k];
    if (a->other->index == a->other_index)
      mprof__stream_ref(a->other);
    else
      s->late++;
  }
}

/* A pinned ring's slot takes other: the end it held (if full) is dropped. */
static __attribute__((noinline)) void ring_pinned(sarrow_t *slot,
                                                  sthread_t *other, int full) {
  if (full) mprof__stream_unref(slot->other);
  mprof__stream_ref(other);
}

/* Keep an arrow in t's ring: a thread that ended, and cannot stall, keeps
 * none.  Inline (two an arrow); a pinned ring's references out of line. */
static inline __attribute__((always_inline)) void
ring_push(sthread_t *t, int64_t time_ns, uint64_t seq, sthread_t *other,
          uint32_t kind, int leaves) {
  if (t->settled || (t->ending != MPROF_ENDING_PENDING && !t->pinned)) return;
  uint32_t n = t->ring_count;
  sarrow_t *slot = &t->ring[n % MPROF_STALL_CONTEXT];
  /* Past twice the ring the count steps back by the ring: the same slot
   * next, still full, and no wrap after 2^32 arrows of a busy thread. */
  t->ring_count = n + 1 < 2 * MPROF_STALL_CONTEXT ? n + 1 : MPROF_STALL_CONTEXT;
  if (t->pinned) ring_pinned(slot, other, n >= MPROF_STALL_CONTEXT);
  *slot = (sarrow_t){time_ns,      seq,           other,
                     other->index, (uint8_t)kind, (uint8_t)leaves};
}

/* An arrow the model draws not, from or to a retired thread: it would be
 * in the context of a stall that the model shows, not here (counted
 * late). */
static __attribute__((noinline)) void
no_arrow(stream_t *s, const sthread_t *from, const sthread_t *to) {
  if (from && to && from != to &&
      ((from == STREAM_RETIRED && !mprof__stream_fixed(to)) ||
       (to == STREAM_RETIRED && !mprof__stream_fixed(from))))
    s->late++;
}

/* An arrow the model draws: kept at both ends, for a stall's context.
 * Inline: an arrow every other event. */
static inline __attribute__((always_inline)) void
note_arrow(stream_t *s, mprof_arrow_kind_t kind, sthread_t *from, sthread_t *to,
           int64_t t) {
  if (!arrow(from, to)) {
    no_arrow(s, from, to);
    return;
  }
  uint64_t seq = s->arrows++;
  ring_push(from, t, seq, to, kind, 1);
  ring_push(to, t, seq, from, kind, 0);
  if (kind == MPROF_ARROW_SIGNAL) { /* to's latest, for lost wake-ups */
    mprof__stream_unref(to->signal.from);
    to->signal = (ssignal_t){t, seq, mprof__stream_ref(from), !to->waiters};
  }
}

/* --- Threads -------------------------------------------------------------- */

/* A new record with the model's next index. */
static sthread_t *thread_new(stream_t *s, uint64_t id, int64_t start_ns,
                             sthread_t *creator, uint16_t type) {
  sthread_t *t = mprof__stream_record_new(s);
  if (!t) return NULL;
  t->id = id;
  t->index = s->next_index++;
  t->start_ns = t->last_seen_ns = start_ns;
  t->end_ns = INT64_MAX;
  t->creator = mprof__stream_ref(creator);
  t->type = type;
  t->stream = MPROF_NO_THREAD;
  t->first_run_ns = INT64_MAX;
  t->queue_ns = t->run_ns = -1;
  t->refs = 0;
  return t;
}

/* Follow merges to where t's line goes on (cut after a thousand hops). */
sthread_t *mprof__stream_follow(sthread_t *t) {
  for (int hops = 0; t->becomes && hops < 1000; hops++) t = t->becomes;
  return t;
}

/* thread_of() for an id not remembered lately: looked up, merges
 * followed, a retired id or one never seen; kept out of line, so that the
 * common case inlines where it is used. */
static __attribute__((noinline)) sthread_t *
thread_of_rare(stream_t *s, uint64_t id, recent_t *r, int *err) {
  sthread_t *t = mprof__stream_table_get(s, id);
  if (t && t->becomes) {
    sthread_t *last = mprof__stream_follow(t);
    *err = mprof__stream_table_set(s, id, last);
    t = last;
  } else if (!t) {
    if (mprof__idset_has(&s->retired, id)) {
      *r = (recent_t){id, STREAM_RETIRED};
      return STREAM_RETIRED;
    }
    t = thread_new(s, id, 0, STREAM_ROOT, MPROF_UNKNOWN);
    if (!t || mprof__stream_table_set(s, id, mprof__stream_ref(t))) {
      mprof__stream_unref(t);
      *err = MPROF_ENOMEM;
      return NULL;
    }
    mprof__stream_unref(t); /* the table's reference holds it */
    t->flags |= MPROF_THREAD_PREEXISTING;
  }
  *r = (recent_t){id, t};
  return t;
}

/* The record an event's id names, as the model's thread_of(): the root
 * for none, a new thread from before the trace for an id never seen, the
 * retired thread for a retired id, NULL when memory runs out (*err). */
static inline sthread_t *thread_of(stream_t *s, uint64_t id, int64_t now,
                                   int *err) {
  if (id == MPROF_NONE) return STREAM_ROOT;
  recent_t *r = &s->recent[id % STREAM_RECENT];
  sthread_t *t = r->thread;
  if (!t || r->id != id || t->becomes) t = thread_of_rare(s, id, r, err);
  if (!t || mprof__stream_fixed(t)) return t;
  if (t->last_seen_ns < now) t->last_seen_ns = now;
  return t;
}

int mprof__stream_keep(sthread_t ***list, size_t *count, size_t *cap,
                       sthread_t *t) {
  if (mprof__grow(list, cap, *count + 1, sizeof **list)) return MPROF_ENOMEM;
  (*list)[(*count)++] = mprof__stream_ref(t);
  return 0;
}

/* Queue t, which ended by an event of stream o, for retirement (see
 * retire_due).  A should_resolve thread that merged waits for the end. */
static int thread_ended(stream_t *s, ostream_t *o, sthread_t *t) {
  if (mprof__stream_is_write(t->type)) s->writes_pending--;
  /* no longer waiting on what made it, nor on what it try_read */
  if (t->creator && !mprof__stream_fixed(t->creator)) t->creator->waiters--;
  for (size_t k = 0; k < t->wait_count; k++)
    if (t->waits[k].counted) t->waits[k].on->waiters--;
  if (mprof__stream_request_ended(s, t)) return MPROF_ENOMEM;
  if (t->type == MPROF_LOOP &&
      mprof__stream_poll(s, t->end_ns, &t->poll_at_end))
    return MPROF_ENOMEM;
  if ((t->flags & MPROF_THREAD_SHOULD_RESOLVE) && t->becomes) return 0;
  /* a legacy read is a wait if its input ends later: known at the end */
  if (s->legacy)
    return mprof__stream_keep(&s->orphans, &s->orphan_count, &s->orphan_cap, t);
  if (mprof__endings_push(&o->ended, t, o->events)) return MPROF_ENOMEM;
  if (o->ended.count == 1) o->retire_at = o->events + STREAM_RETIRE_EVENTS;
  mprof__stream_ref(t);
  return 0;
}

/* How many threads ahead of the one retiring now a record is fetched (and
 * half as many, its id's slot and its first waits). */
#define RETIRE_AHEAD 8

/* Retire the threads that stream o ended STREAM_RETIRE_EVENTS of its
 * events ago: what names a thread soon after it ended (a read of a
 * resolved promise, a merge into it) comes from the OS thread that ended
 * it, however long that OS thread was kept from running. */
static int retire_due(stream_t *s, ostream_t *o) {
  mprof__endings_t *q = &o->ended;
  int err = 0;
  while (!err && q->count &&
         o->events - q->at[q->first].at_event >= STREAM_RETIRE_EVENTS) {
    if (q->count > RETIRE_AHEAD) { /* in cache when they are needed */
      const char *ahead = mprof__endings_at(q, RETIRE_AHEAD)->thread;
      for (size_t line = 0; line < sizeof(sthread_t); line += 64)
        __builtin_prefetch(ahead + line, 1);
      const sthread_t *next = mprof__endings_at(q, RETIRE_AHEAD / 2)->thread;
      mprof__stream_table_prefetch(s, next->id);
      if (next->waits) __builtin_prefetch(next->waits, 1);
      if (next->creator) __builtin_prefetch(next->creator, 1); /* its refs */
    }
    sthread_t *t = mprof__endings_pop(q);
    err = mprof__stream_retire(s, t);
    mprof__stream_unref(t);
  }
  o->retire_at =
      q->count ? q->at[q->first].at_event + STREAM_RETIRE_EVENTS : UINT64_MAX;
  return err;
}

int mprof__stream_retire(stream_t *s, sthread_t *t) {
  if (t->settled) return 0;
  /* a merge that came later may have made it wait for the end */
  if ((t->flags & MPROF_THREAD_SHOULD_RESOLVE) && t->becomes) return 0;
  int err = mprof__stream_settle(s, t);
  mprof__stream_table_remove(s, t->id, t);
  if (!err) err = mprof__idset_add(&s->retired, t->id);
  mprof__stream_unref(t->creator);
  t->creator = NULL;
  mprof__stream_ring_clear(t);
  return err;
}

/* --- Streams -------------------------------------------------------------- */

/* The stream at a stamp's place (stream_stamp.c): the next place is a
 * stream that comes first at t.  NULL: memory ran out. */
static ostream_t *stream_at(stream_t *s, uint32_t place, int64_t t) {
  if (place < s->stream_count) return &s->streams[place];
  if (mprof__grow(&s->streams, &s->stream_cap, s->stream_count + 1,
                  sizeof *s->streams))
    return NULL;
  ostream_t *o = &s->streams[s->stream_count++];
  memset(o, 0, sizeof *o);
  o->run_start_ns = t;
  o->idle_start_ns = -1;
  o->retire_at = UINT64_MAX;
  o->span_preexisting = MPROF_NO_THREAD;
  return o;
}

int mprof__stream_poll(const stream_t *s, int64_t now, poll_t *p) {
  free(p->ns);
  p->count = 0;
  if (!(p->ns = malloc((s->stream_count + 1) * sizeof *p->ns)))
    return MPROF_ENOMEM;
  for (size_t i = 0; i < s->stream_count; i++) {
    const ostream_t *o = &s->streams[i];
    int64_t open = o->idle_start_ns >= 0 && now > o->idle_start_ns
                       ? now - o->idle_start_ns
                       : 0;
    p->ns[i] = o->idle_ns + open;
  }
  p->count = s->stream_count;
  return 0;
}

/* Mark o a loop's stream; a stream that ran pool work already changes
 * what was counted as the pool's (then the figures are not exact). */
static void mark_loop(stream_t *s, ostream_t *o) {
  if (!o->loop && o->had_work) s->late++;
  o->loop = 1;
}

void mprof__stream_ran(stream_t *s, sthread_t *t, uint32_t stream,
                       int64_t start, int64_t end) {
  ostream_t *o = &s->streams[stream];
  t->running_ns += end - start;
  if (t->type == MPROF_LOOP) mark_loop(s, o);
  if (start < t->first_run_ns) {
    t->first_run_ns = start;
    t->stream = stream;
  }
  if (t->type != MPROF_WORK || o->loop) return;
  o->had_work = 1;
  int64_t queued = start - t->start_ns;
  if (t->run_ns < 0 || queued < t->queue_ns) t->queue_ns = queued;
  t->run_ns = (t->run_ns < 0 ? 0 : t->run_ns) + end - start;
}

void mprof__stream_fold(stream_t *s, sthread_t *t, int64_t line_end,
                        int settle) {
  size_t kept = 0;
  for (size_t k = 0; k < t->overhang_count; k++) {
    span_t x = t->overhangs[k];
    if (x.end_ns > line_end) {
      if (!settle) {
        t->overhangs[kept++] = x;
        continue;
      }
      x.end_ns = line_end;
    }
    if (x.start_ns < t->start_ns) x.start_ns = t->start_ns;
    if (x.end_ns > x.start_ns)
      mprof__stream_ran(s, t, x.stream, x.start_ns, x.end_ns);
  }
  t->overhang_count = kept;
}

/* A span of t on stream o from start to end closed: counted as the model
 * clips it to t's line (creation to end).  The line of a thread not
 * ended yet ends MODEL_PENDING_TAIL_NS after it was last seen, unless it ends
 * later: a span past that waits (an overhang) until t is seen again or
 * settled. */
static int span_closed(stream_t *s, ostream_t *o, sthread_t *t, int64_t start,
                       int64_t end) {
  uint32_t index = (uint32_t)(o - s->streams);
  if (mprof__stream_fixed(t)) return 0;
  if (start < t->start_ns) start = t->start_ns;
  if (t->settled) { /* ran within its line after it was retired */
    int64_t line_end = t->end_ns > t->start_ns ? t->end_ns : t->start_ns;
    if ((end < line_end ? end : line_end) > start) s->late++;
    return 0;
  }
  if (t->ending != MPROF_ENDING_PENDING) {
    int64_t line_end = t->end_ns > t->start_ns ? t->end_ns : t->start_ns;
    if (end > line_end) end = line_end;
    if (end > start) mprof__stream_ran(s, t, index, start, end);
    return 0;
  }
  int64_t seen_end = t->last_seen_ns + MODEL_PENDING_TAIL_NS;
  if (t->overhang_count) mprof__stream_fold(s, t, seen_end, 0);
  if (end <= seen_end) {
    if (end > start) mprof__stream_ran(s, t, index, start, end);
    return 0;
  }
  if (mprof__grow(&t->overhangs, &t->overhang_cap, t->overhang_count + 1,
                  sizeof *t->overhangs))
    return MPROF_ENOMEM;
  t->overhangs[t->overhang_count++] = (span_t){start, end, index};
  return 0;
}

/* Work that starts to run off a loop's stream for the first time: the
 * pool's first runs since it was made are those it waited through
 * (findings_requests.c's count_between()). */
static void pool_first_run(stream_t *s, const ostream_t *o, sthread_t *t) {
  if (t->type != MPROF_WORK || o->loop || t->pool_started ||
      mprof__stream_fixed(t))
    return;
  t->pool_started = 1;
  t->between = s->first_runs++ - t->runs_before;
}

static void stream_switch(stream_t *s, ostream_t *o, sthread_t *next,
                          int64_t t) {
  if (next == o->current) return;
  if (o->current && t > o->run_start_ns) {
    if (span_closed(s, o, o->current, o->run_start_ns, t))
      s->failed = MPROF_ENOMEM;
    mprof__stream_loop_span(s, o, o->current, o->run_start_ns, t);
  }
  mprof__stream_unref(o->current);
  o->current = mprof__stream_ref(next);
  o->run_start_ns = t;
  if (!next) return;
  pool_first_run(s, o, next);
  if (o->scan) mprof__loop_scan_prefetch(o->scan, next->index);
}

static void idle_begin(stream_t *s, ostream_t *o, int64_t t) {
  if (o->idle_start_ns < 0) o->idle_start_ns = t;
  stream_switch(s, o, NULL, t);
}

static void idle_end(stream_t *s, ostream_t *o, int64_t t) {
  if (o->idle_start_ns < 0) return;
  if (t > o->idle_start_ns) {
    o->idle_ns += t - o->idle_start_ns;
    mprof__stream_loop_band(s, o, o->idle_start_ns, t);
    if (!s->legacy) mark_loop(s, o);
  }
  o->idle_start_ns = -1;
}

void mprof__stream_close_streams(stream_t *s) {
  for (size_t i = 0; i < s->stream_count; i++) {
    stream_switch(s, &s->streams[i], NULL, s->duration_ns);
    idle_end(s, &s->streams[i], s->duration_ns);
  }
}

/* --- Events --------------------------------------------------------------- */

/* A loop's time in poll counts from its start. */
static int loop_began(stream_t *s, sthread_t *t, int64_t now) {
  return t->type == MPROF_LOOP ? mprof__stream_poll(s, now, &t->poll_at_start)
                               : 0;
}

/* Drop the writes made since the peak that ended (none of them can be
 * pending at a later peak). */
static void writes_prune(stream_t *s) {
  size_t kept = s->write_at_count;
  for (size_t k = s->write_at_count; k < s->write_count; k++)
    if (s->writes[k]->ending == MPROF_ENDING_PENDING)
      s->writes[kept++] = s->writes[k];
    else
      mprof__stream_unref(s->writes[k]);
  s->write_count = kept;
}

/* A write made at t (write_backlog, as findings_requests.c sweeps them):
 * a new peak of writes pending keeps those pending now. */
static int write_began(stream_t *s, sthread_t *w, int64_t t) {
  if (!mprof__stream_is_write(w->type)) return 0;
  s->write_total++;
  if (mprof__stream_keep(&s->writes, &s->write_count, &s->write_cap, w))
    return MPROF_ENOMEM;
  if (++s->writes_pending > s->write_peak) {
    s->write_peak = s->writes_pending;
    s->write_at = t;
    s->write_at_count = 0; /* then all pending now are kept as it */
    writes_prune(s);
    s->write_at_count = s->write_count;
  } else if (s->write_count >
             2 * (s->write_at_count + s->writes_pending) + 64) {
    writes_prune(s);
  }
  return 0;
}

/* A thread made by creator waits on it from now on, as far as lost
 * wake-ups go (analysis.c's anyone_waiting()), and a wait of it on its
 * creator began after the creator's latest signal. */
static void made_by(sthread_t *child, sthread_t *creator) {
  if (mprof__stream_fixed(creator)) return;
  creator->waiters++;
  mprof__stream_unref(child->at_creation.from);
  child->at_creation = creator->signal;
  mprof__stream_ref(child->at_creation.from);
}

/* What follows a thread's creation, whether its id is new or was seen
 * before: the create arrow, its wait on its creator, and what its type
 * begins (a loop, a write, a request).  Returns 0 or MPROF_ENOMEM. */
static int child_made(stream_t *s, sthread_t *child, sthread_t *creator,
                      int64_t t) {
  note_arrow(s, MPROF_ARROW_CREATE, creator, child, t);
  made_by(child, creator);
  return loop_began(s, child, t) || write_began(s, child, t) ||
                 mprof__stream_request_made(s, child)
             ? MPROF_ENOMEM
             : 0;
}

static int thread_create(stream_t *s, const mprof_event_t *ev,
                         sthread_t *creator, int64_t t) {
  size_t slot = mprof__stream_table_find(s, ev->a);
  if (slot == SIZE_MAX) return MPROF_ENOMEM;
  sthread_t *child = mprof__stream_slot(s, slot);
  /* an OS thread makes its ids one after another: its next four's slots */
  mprof__stream_table_prefetch(s, ev->a + 4);
  if (late(s, creator)) creator = STREAM_ROOT;
  if (child && (child->flags & MPROF_THREAD_PREEXISTING) && !child->becomes) {
    /* seen before its creation (clocks of two streams disagree) */
    child->flags &= (uint8_t)~MPROF_THREAD_PREEXISTING;
    child->start_ns = t; /* what ran before is off its line */
    child->running_ns = 0;
    child->overhang_count = 0;
    child->first_run_ns = INT64_MAX;
    child->stream = MPROF_NO_THREAD;
    child->queue_ns = child->run_ns = -1;
    mprof__stream_unref(child->creator);
    child->creator = mprof__stream_ref(creator);
    child->type = (uint16_t)ev->type;
    if (child->last_seen_ns < t) child->last_seen_ns = t;
    return child_made(s, child, creator, t);
  }
  /* an id made again: the thread it named stays, unnamed */
  if (child &&
      mprof__stream_keep(&s->orphans, &s->orphan_count, &s->orphan_cap, child))
    return MPROF_ENOMEM;
  child = thread_new(s, ev->a, t, creator, (uint16_t)ev->type);
  if (!child) return MPROF_ENOMEM;
  mprof__stream_table_set_at(s, slot, ev->a, child); /* its reference */
  return child_made(s, child, creator, t);
}

static int thread_resolve(stream_t *s, ostream_t *o, sthread_t *resolver,
                          const mprof_event_t *ev, int64_t t, int *err) {
  sthread_t *target = thread_of(s, ev->a, t, err);
  note_arrow(s, MPROF_ARROW_RESOLVE, resolver, target, t);
  if (!target || target == STREAM_ROOT ||
      target->ending != MPROF_ENDING_PENDING)
    return *err;
  target->end_ns = t;
  target->ending = ev->kind == MPROF_EVENT_FAIL ? MPROF_ENDING_FAILED
                                                : MPROF_ENDING_RESOLVED;
  if (ev->kind == MPROF_EVENT_FAIL &&
      mprof__stream_text_set(target, TEXT_FAILURE, ev->text, ev->text_length))
    return MPROF_ENOMEM;
  return thread_ended(s, o, target);
}

static int thread_becomes(stream_t *s, ostream_t *o, const mprof_event_t *ev,
                          int64_t t, int *err) {
  sthread_t *old = thread_of(s, ev->a, t, err);
  sthread_t *next = old ? thread_of(s, ev->b, t, err) : NULL;
  if (!old || !next || late(s, old) || late(s, next) || old == next ||
      old == STREAM_ROOT || next == STREAM_ROOT ||
      mprof__stream_follow(next) == old)
    return *err;
  note_arrow(s, MPROF_ARROW_BECOMES, old, next, t);
  if (old->pinned) pin(s, next); /* it may be what a stall became */
  int was_pending = old->ending == MPROF_ENDING_PENDING;
  old->end_ns = t;
  old->ending = MPROF_ENDING_MERGED;
  old->becomes = mprof__stream_ref(next);
  for (size_t i = 0; i < s->stream_count; i++)
    if (s->streams[i].current == old) stream_switch(s, &s->streams[i], next, t);
  /* a should_resolve thread that merged is kept to the end */
  if ((old->flags & MPROF_THREAD_SHOULD_RESOLVE) &&
      mprof__stream_keep(&s->orphans, &s->orphan_count, &s->orphan_cap, old))
    return MPROF_ENOMEM;
  /* its reference outlives the table's (one that ended before is queued
   * already) */
  *err = was_pending ? thread_ended(s, o, old) : 0;
  return *err ? *err : mprof__stream_table_set(s, ev->a, next);
}

static int add_label(sthread_t *t, const mprof_event_t *ev) {
  if (!t->label)
    return mprof__stream_text_set(t, TEXT_LABEL, ev->text, ev->text_length);
  if (t->type != MPROF_HANDLE ||
      (ev->text_length >= 4 && !memcmp(ev->text, "net ", 4)))
    return 0;
  return mprof__stream_text_set(t, TEXT_SHOWN, ev->text, ev->text_length);
}

/* A wait by waiter on `on` from start_ns: a try_read, until answered
 * (read_ns INT64_MAX), or a legacy read at read_ns (a wait if `on` ends
 * after the waiter began: analysis.c's read_wait()). */
static int wait_add(sthread_t *waiter, sthread_t *on, int64_t start_ns,
                    int64_t read_ns, int legacy_read) {
  if (!arrow(waiter, on)) return 0;
  if (mprof__stream_waits_grow(waiter)) return MPROF_ENOMEM;
  int first = !legacy_read;
  for (size_t k = 0; first && k < waiter->wait_count; k++)
    if (waiter->waits[k].on == on && !waiter->waits[k].legacy_read) first = 0;
  swait_t w = {start_ns,    read_ns, mprof__stream_ref(on),
               legacy_read, first,   {0, 0, NULL, 0}};
  if (!legacy_read) on->waited_for = 1;
  if (first) { /* it waits on `on` from now on (lost wake-ups) */
    on->waiters++;
    w.sig = on->signal;
    mprof__stream_ref(w.sig.from);
  }
  waiter->waits[waiter->wait_count++] = w;
  return 0;
}

/* A read by reader of `input` answers the reader's waits on it begun at or
 * before t, not answered yet. */
static void wait_answered(sthread_t *reader, const sthread_t *input,
                          int64_t t) {
  if (!arrow(input, reader)) return;
  for (size_t k = reader->wait_count; k-- > 0;) {
    swait_t *w = &reader->waits[k];
    if (w->on == input && !w->legacy_read && w->read_ns == INT64_MAX &&
        w->start_ns <= t)
      w->read_ns = t;
  }
}

/* A legacy read or signal also switched to the thread that went on. */
static void legacy_switch(stream_t *s, ostream_t *o, sthread_t *next,
                          int64_t t) {
  if (!s->legacy || !next || next == STREAM_ROOT) return;
  idle_end(s, o, t);
  stream_switch(s, o, next, t);
}

static int apply_event(stream_t *s, const mprof_event_t *ev, ostream_t *o,
                       int64_t t) {
  int err = 0;
  sthread_t *actor = thread_of(s, ev->thread, t, &err), *other;
  if (err) return err;
  switch (ev->kind) {
  case MPROF_EVENT_SWITCH:
    other = thread_of(s, ev->a, t, &err);
    if (other == STREAM_ROOT) {
      if (s->legacy)
        idle_begin(s, o, t);
      else
        stream_switch(s, o, NULL, t);
    } else {
      idle_end(s, o, t);
      stream_switch(s, o, other, t);
    }
    return err;
  case MPROF_EVENT_SUSPEND: idle_begin(s, o, t); return 0;
  case MPROF_EVENT_CREATE: return thread_create(s, ev, actor, t);
  case MPROF_EVENT_CREATE_BY:
    other = thread_of(s, ev->b, t, &err);
    return err ? err : thread_create(s, ev, other, t);
  case MPROF_EVENT_READ:
    if (actor == STREAM_ROOT) return 0; /* legacy reads by nobody */
    legacy_switch(s, o, actor, t);
    other = thread_of(s, ev->a, t, &err);
    if (err || !actor || !other) return err;
    note_arrow(s, MPROF_ARROW_READ, other, actor, t);
    wait_answered(actor, other, t);
    return s->legacy ? wait_add(actor, other, actor->start_ns, t, 1) : 0;
  case MPROF_EVENT_TRY_READ:
    other = thread_of(s, ev->a, t, &err);
    s->try_reads++;
    if (err) return err;
    note_arrow(s, MPROF_ARROW_TRY_READ, actor, other, t);
    return wait_add(actor, other, t, INT64_MAX, 0);
  case MPROF_EVENT_RESOLVE:
  case MPROF_EVENT_FAIL: return thread_resolve(s, o, actor, ev, t, &err);
  case MPROF_EVENT_BECOMES: return thread_becomes(s, o, ev, t, &err);
  case MPROF_EVENT_LABEL:
    other = thread_of(s, ev->a, t, &err);
    return err || !other || late(s, other) || other == STREAM_ROOT
               ? err
               : add_label(other, ev);
  case MPROF_EVENT_SIGNAL:
    other = thread_of(s, ev->a, t, &err);
    legacy_switch(s, o, other, t);
    if (!err) note_arrow(s, MPROF_ARROW_SIGNAL, actor, other, t);
    return err;
  case MPROF_EVENT_SHOULD_RESOLVE:
    other = thread_of(s, ev->a, t, &err);
    if (other && !late(s, other) && other != STREAM_ROOT) {
      other->flags |= MPROF_THREAD_SHOULD_RESOLVE;
      pin(s, other);
    }
    return err;
  default: return 0; /* counters, strings, GC: no part of the analysis */
  }
}

/* Apply one event at t on stream o, as the model's add_event(). */
static inline int add_event(stream_t *s, const mprof_event_t *ev, ostream_t *o,
                            int64_t t) {
  if (!o->current && o->idle_start_ns < 0 && ev->thread != MPROF_NONE &&
      ev->kind != MPROF_EVENT_SWITCH && !s->legacy) {
    /* the stream's first event: what ran when its packet began */
    int err = 0;
    sthread_t *running = thread_of(s, ev->thread, t, &err);
    if (err) return err;
    if (running) {
      o->current = mprof__stream_ref(running);
      o->run_start_ns = t;
      pool_first_run(s, o, running);
    }
  }
  return apply_event(s, ev, o, t);
}

/* Apply stamped events (stream_stamp.c) in their order, as the model's
 * event loop does.  Returns 0 or an mprof error. */
static int stream_feed(stream_t *s, const mprof_event_t *events, size_t count) {
  size_t i = 0;
  int err = 0;
  for (; i < count; i++) {
    const mprof_event_t *ev = &events[i];
    int64_t t = (int64_t)ev->time_ticks;
    ostream_t *o = stream_at(s, ev->stream, t);
    if (!o) {
      err = MPROF_ENOMEM;
      break;
    }
    o->events++;
    if ((err = add_event(s, ev, o, t)) || (err = s->failed) ||
        (o->events >= o->retire_at && (err = retire_due(s, o)))) {
      i++;
      break;
    }
  }
  s->events += i;
  return err;
}

/* The merge hands its events in time order as x (y is empty): stamped,
 * then applied, in this thread. */
static int stream_add_pair(void *sink, mprof__run_t *x, mprof__run_t *y) {
  (void)y;
  stream_t *s = sink;
  const mprof_event_t *stamped;
  size_t count = x->count - x->at;
  int err = mprof__stamp(&s->stamp, x->events + x->at, count, &stamped);
  x->at = x->count;
  return err ? err : stream_feed(s, stamped, count);
}

static int stream_begin(void *sink, uint64_t clock_freq_hz, int legacy) {
  stream_t *s = sink;
  if (!clock_freq_hz) return MPROF_EINVAL;
  s->clock_freq_hz = clock_freq_hz;
  s->legacy = legacy;
  mprof__stamper_begin(&s->stamp, clock_freq_hz);
  return 0;
}

/* --- Entry point ---------------------------------------------------------- */

/* The merge in a relay's thread (mprof_relay_start()), while this one
 * analyses the events it merged: its batches go to the relay. */
typedef struct relayed_s {
  stream_t *s;
  mprof_relay_t *relay;
  const mprof_trace_t *const *traces;
  size_t count;
  const int64_t *offsets_ns;
  mprof__merge_t merge;
} relayed_t;

/* Batches of merged events waiting for the analysis (a few thousand events
 * each), in bounded memory. */
#define STREAM_RELAY_DEPTH 8

static int relay_begin(void *sink, uint64_t clock_freq_hz, int legacy) {
  return stream_begin(((relayed_t *)sink)->s, clock_freq_hz, legacy);
}

/* The relay's edit: the copies stamped, in its thread. */
static int relay_stamp(void *stamper, mprof_event_t *copies, size_t count) {
  return mprof__stamp_in_place(stamper, copies, count);
}

/* The merge hands its events in time order as x (y is empty): handed on,
 * their copies stamped in the relay's thread. */
static int relay_add_pair(void *sink, mprof__run_t *x, mprof__run_t *y) {
  (void)y;
  relayed_t *r = sink;
  size_t at = x->at;
  x->at = x->count;
  return mprof_relay_put_edited(r->relay, x->events + at, x->count - at,
                                relay_stamp, &r->s->stamp);
}

static int relay_merge(void *context, mprof_relay_t *relay) {
  relayed_t *r = context;
  r->relay = relay;
  return mprof__merge_traces(r->traces, r->count, r->offsets_ns, &r->merge);
}

/* Merge the traces' events into merge's sink, the analysis s: the merge
 * in a thread of its own where one starts, else in this one.  The events
 * and their order are the same either way. */
static int merge_into(stream_t *s, const mprof_trace_t *const *traces,
                      size_t count, const int64_t *offsets_ns,
                      mprof__merge_t *merge) {
  relayed_t r = {s, NULL, traces, count, offsets_ns, *merge};
  r.merge.begin = relay_begin;
  r.merge.add_pair = relay_add_pair;
  r.merge.sink = &r;
  mprof_relay_t *relay;
  int err = mprof_relay_start(relay_merge, &r, STREAM_RELAY_DEPTH, &relay);
  if (err == MPROF_EINVAL) /* no thread */
    return mprof__merge_traces(traces, count, offsets_ns, merge);
  if (err) return err;
  while (!err) {
    const mprof_event_t *events;
    size_t count;
    if ((err = mprof_relay_get(relay, &events, &count)) || !count) break;
    err = stream_feed(s, events, count);
  }
  mprof_relay_stop(relay);
  /* what the merge found out (the rest of r.merge is the relay's) */
  merge->discarded = r.merge.discarded;
  merge->end_ticks = r.merge.end_ticks;
  merge->origin_ns = r.merge.origin_ns;
  merge->axis_ns = r.merge.axis_ns;
  return err;
}

int mprof_analysis_stream(const mprof_trace_t *const *traces, size_t count,
                          const mprof_stream_options_t *options,
                          mprof_stream_result_t *out) {
  memset(out, 0, sizeof *out);
  mprof_stream_options_t o;
  memset(&o, 0, sizeof o);
  if (options) o = *options;
  if (o.analysis.loop_blocked_ns < 0 || o.analysis.busy_loop_ns < 0)
    return MPROF_EINVAL;
  mprof__analysis_defaults(&o.analysis);
  stream_t *s = calloc(1, sizeof *s);
  if (!s) return MPROF_ENOMEM;
  s->top = o.top;
  s->options = o.analysis;
  s->next_index = 1; /* 0 is the root */
  int err = mprof__stream_table_rebuild(s);
  mprof__merge_t merge = {stream_begin,
                          stream_add_pair,
                          s,
                          o.progress,
                          o.progress_context,
                          0,
                          0,
                          0,
                          0};
  if (!err) err = merge_into(s, traces, count, o.offsets_ns, &merge);
  if (!err) {
    s->start_ticks = s->stamp.start_ticks;
    s->duration_ns = s->stamp.duration_ns;
    s->discarded = merge.discarded;
    s->end_ns = merge.end_ticks
                    ? mprof__axis_ns(merge.end_ticks, s->start_ticks,
                                     s->stamp.ns_per_tick)
                    : 0;
    if (o.damage && *o.damage > 0) o.analysis.events_missing = 1;
    err = mprof__stream_finish(s, &o.analysis, out);
  }
  mprof__stream_free(s);
  if (err) mprof_stream_result_free(out);
  return err;
}
