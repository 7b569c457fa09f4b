/* events.c -- turn events into threads, arrows, running spans, idle bands
 * and counters (the semantics of mirage-trace-viewer's Mtv_thread, made
 * total: duplicate ids, merge cycles, time going backwards and events
 * about unknown threads never abort, they are absorbed; docs/model.md,
 * "Semantics").
 *
 * Events are fed in time order (mprof_model_load merges the streams) by
 * one event loop, mprof__model_add_pair(); everything an event does is
 * inlined into it, so the helpers it calls on every event live here or
 * inline in model_internal.h (the id lookup), not across files.
 */
#include <string.h>

#include "model_internal.h"

/* --- Threads -------------------------------------------------------------- */

/* A new thread; its index, or MPROF_NO_THREAD when memory runs out. */
static uint32_t thread_new(mprof_model_t *m, uint64_t id, int64_t start_ns,
                           uint32_t creator, uint16_t type) {
  size_t n = m->view.thread_count;
  if (n >= MPROF_NO_THREAD - 1 ||
      (n >= m->thread_cap &&
       mprof__grow(&m->threads, &m->thread_cap, n + 1, sizeof *m->threads)))
    return MPROF_NO_THREAD;
  mprof_thread_t *t = &m->threads[n];
  memset(t, 0, sizeof *t);
  t->id = id;
  t->start_ns = start_ns;
  t->end_ns = INT64_MAX;
  t->last_seen_ns = start_ns;
  t->creator = creator;
  t->becomes = MPROF_NO_THREAD;
  t->type = type;
  m->view.thread_count = n + 1;
  m->view.threads = m->threads;
  return (uint32_t)n;
}

/* thread_of() for an id never seen (a thread that existed before the
 * trace began) or one that became another: the rare cases, kept out of
 * line so that the common lookup inlines where it is used.  ref is where
 * id's index is kept. */
static __attribute__((noinline)) uint32_t
thread_of_rare(mprof_model_t *m, uint64_t id, uint32_t *ref) {
  uint32_t i = *ref;
  if (i != MPROF_NO_THREAD) {
    i = mprof__follow_merges(m, i);
    *ref = i; /* later lookups go straight there */
    return i;
  }
  i = thread_new(m, id, 0, MPROF_ROOT_THREAD, MPROF_UNKNOWN);
  if (i == MPROF_NO_THREAD || mprof__id_set(m, id, i)) return MPROF_NO_THREAD;
  m->threads[i].flags |= MPROF_THREAD_PREEXISTING;
  return i;
}

/* The thread an event's id refers to: MPROF_NONE is the root; an id never
 * seen is a thread that existed before the trace began. */
static inline uint32_t thread_of(mprof_model_t *m, uint64_t id,
                                 int64_t now_ns) {
  if (id == MPROF_NONE) return MPROF_ROOT_THREAD;
  uint32_t *ref = mprof__id_ref(m, id);
  uint32_t i = *ref;
  if (i == MPROF_NO_THREAD || m->threads[i].becomes != MPROF_NO_THREAD) {
    i = thread_of_rare(m, id, ref);
    if (i == MPROF_NO_THREAD) return i;
  }
  if (m->threads[i].last_seen_ns < now_ns) m->threads[i].last_seen_ns = now_ns;
  return i;
}

/* --- Streams, running spans and bands ------------------------------------- */

static stream_state_t *stream_of(mprof_model_t *m, uint32_t id, int64_t t) {
  if (m->last_stream < m->stream_count && m->streams[m->last_stream].id == id)
    return &m->streams[m->last_stream];
  for (size_t i = 0; i < m->stream_count; i++)
    if (m->streams[i].id == id) {
      m->last_stream = i;
      return &m->streams[i];
    }
  /* an arrow keeps its stream in 24 bits (mprof_arrow_rec_t) */
  if (m->stream_count >= MPROF_MODEL_MAX_STREAMS ||
      mprof__grow(&m->streams, &m->stream_cap, m->stream_count + 1,
                  sizeof *m->streams))
    return NULL;
  stream_state_t *s = &m->streams[m->stream_count];
  s->id = id;
  s->current = MPROF_NO_THREAD;
  s->run_start_ns = t;
  s->idle_start_ns = -1;
  s->last_ns = t;
  m->last_stream = m->stream_count++;
  m->view.stream_count = (uint32_t)m->stream_count;
  return s;
}

static uint32_t stream_index(const mprof_model_t *m, const stream_state_t *s) {
  return (uint32_t)(s - m->streams);
}

/* End the running span of s at t and start `next` running (or nothing).
 * Inlined into the event loop, as idle_end() and band_add(): most events
 * call one of them. */
static inline __attribute__((always_inline)) int
stream_switch(mprof_model_t *m, stream_state_t *s, uint32_t next, int64_t t) {
  if (next == s->current) return 0;
  if (s->current != MPROF_NO_THREAD && t > s->run_start_ns) {
    mprof_span_t span = {s->run_start_ns, t, s->current, stream_index(m, s)};
    if (mprof__running_push(m, &span)) return MPROF_ENOMEM;
  }
  s->current = next;
  s->run_start_ns = t;
  return 0;
}

static inline __attribute__((always_inline)) int
band_add(mprof_model_t *m, int64_t start, int64_t end, uint32_t stream,
         mprof_band_kind_t kind) {
  if (end <= start) return 0;
  mprof_band_t band = {{start, end, MPROF_NO_THREAD, stream}, kind};
  return mprof__band_push(m, &band);
}

static int idle_begin(mprof_model_t *m, stream_state_t *s, int64_t t) {
  if (s->idle_start_ns < 0) s->idle_start_ns = t;
  return stream_switch(m, s, MPROF_NO_THREAD, t);
}

static inline __attribute__((always_inline)) int
idle_end(mprof_model_t *m, stream_state_t *s, int64_t t) {
  if (s->idle_start_ns < 0) return 0;
  int64_t start = s->idle_start_ns;
  s->idle_start_ns = -1;
  return band_add(m, start, t, stream_index(m, s), MPROF_BAND_IDLE);
}

int mprof__streams_close(mprof_model_t *m) {
  for (size_t i = 0; i < m->stream_count; i++) {
    stream_state_t *s = &m->streams[i];
    int64_t end = m->view.duration_ns;
    if (stream_switch(m, s, MPROF_NO_THREAD, end) || idle_end(m, s, end))
      return MPROF_ENOMEM;
  }
  return 0;
}

/* --- Counters ------------------------------------------------------------- */

/* The counter with trace id `id` (mprof traces) or name `name` (legacy
 * traces name counters in every event); created on first use. */
static uint32_t counter_of(mprof_model_t *m, uint32_t id, const char *name,
                           size_t length) {
  size_t n = m->view.counter_count;
  if (!name) {
    for (size_t i = 0; i < n; i++)
      if (m->counter_ids[i] == id) return (uint32_t)i;
  } else {
    for (size_t i = 0; i < n; i++) {
      const char *have = m->strings ? m->strings + m->counters[i].name : "";
      if (strlen(have) == length && !memcmp(have, name, length))
        return (uint32_t)i;
    }
  }
  size_t cap = m->counter_cap;
  if (mprof__grow(&m->counters, &m->counter_cap, n + 1, sizeof *m->counters))
    return MPROF_NO_THREAD;
  size_t values_cap = cap, ids_cap = cap;
  if (mprof__grow(&m->counter_values, &values_cap, m->counter_cap,
                  sizeof *m->counter_values) ||
      mprof__grow(&m->counter_ids, &ids_cap, m->counter_cap,
                  sizeof *m->counter_ids))
    return MPROF_NO_THREAD;
  memset(&m->counters[n], 0, sizeof m->counters[n]);
  m->counters[n].name = name ? mprof__intern_text(m, name, length) : 0;
  m->counters[n].id = id;
  m->counter_values[n] = 0;
  m->counter_ids[n] = id;
  m->view.counter_count = n + 1;
  return (uint32_t)n;
}

static int counter_update(mprof_model_t *m, const mprof_event_t *ev,
                          int64_t t) {
  int legacy_name = ev->counter == 0 && ev->text;
  uint32_t c = counter_of(m, ev->counter, legacy_name ? ev->text : NULL,
                          ev->text_length);
  if (c == MPROF_NO_THREAD) return MPROF_ENOMEM;
  if (ev->kind == MPROF_EVENT_COUNTER_NAME) {
    m->counters[c].name = mprof__intern_text(m, ev->text, ev->text_length);
    return 0;
  }
  int64_t value =
      ev->kind == MPROF_EVENT_COUNTER_INCREASE
          ? (int64_t)((uint64_t)m->counter_values[c] + (uint64_t)ev->value)
          : ev->value;
  m->counter_values[c] = value;
  /* sample_counter holds sample_cap items: it grows when samples will */
  size_t cap = m->sample_cap;
  if (m->view.sample_count >= cap &&
      mprof__grow(&m->sample_counter, &cap, m->view.sample_count + 1,
                  sizeof *m->sample_counter))
    return MPROF_ENOMEM;
  m->sample_counter[m->view.sample_count] = c;
  mprof_sample_t sample = {t, value};
  return mprof__sample_push(m, &sample);
}

/* --- Events --------------------------------------------------------------- */

/* Inlined where it is used: called for most events, and its tests fold
 * into the caller's. */
static inline __attribute__((always_inline)) int
arrow_add(mprof_model_t *m, mprof_arrow_kind_t kind, uint32_t from, uint32_t to,
          int64_t t, const stream_state_t *s) {
  if (from == to || from == MPROF_ROOT_THREAD || to == MPROF_ROOT_THREAD)
    return 0;
  mprof_arrow_t arrow = {t, from, to, kind, stream_index(m, s)};
  /* no time is below 0, which last_arrow_ns holds before the first */
  if (t < m->last_arrow_ns) m->arrows_unordered = 1;
  return mprof__arrow_push(m, &arrow);
}

static int label_add(mprof_model_t *m, uint32_t thread, int64_t t,
                     const char *text, size_t length) {
  mprof_label_t label = {t, thread, mprof__intern_text(m, text, length)};
  return mprof__label_push(m, &label);
}

static inline __attribute__((always_inline)) int
thread_create(mprof_model_t *m, const mprof_event_t *ev, uint32_t creator,
              int64_t t, const stream_state_t *s) {
  uint64_t id = ev->a;
  uint16_t type = (uint16_t)ev->type;
  uint32_t child = *mprof__id_ref(m, id);
  if (child != MPROF_NO_THREAD &&
      (m->threads[child].flags & MPROF_THREAD_PREEXISTING) &&
      m->threads[child].becomes == MPROF_NO_THREAD) {
    /* seen before its creation (clocks of two streams disagree) */
    mprof_thread_t *c = &m->threads[child];
    c->flags &= (uint8_t)~MPROF_THREAD_PREEXISTING;
    c->start_ns = t;
    c->creator = creator;
    c->type = type;
    if (c->last_seen_ns < t) c->last_seen_ns = t;
  } else {
    child = thread_new(m, id, t, creator, type);
    if (child == MPROF_NO_THREAD) return MPROF_ENOMEM;
    if (id < m->direct_cap)
      m->direct[id] = child; /* mprof__id_set's common case, inline */
    else if (mprof__id_set(m, id, child))
      return MPROF_ENOMEM;
  }
  return arrow_add(m, MPROF_ARROW_CREATE, creator, child, t, s);
}

static int thread_resolve(mprof_model_t *m, uint32_t resolver,
                          const mprof_event_t *ev, int64_t t,
                          const stream_state_t *s) {
  uint32_t target = thread_of(m, ev->a, t);
  if (target == MPROF_NO_THREAD) return MPROF_ENOMEM;
  mprof_thread_t *th = &m->threads[target];
  if (th->ending == MPROF_ENDING_PENDING && target != MPROF_ROOT_THREAD) {
    th->end_ns = t;
    th->ending = ev->kind == MPROF_EVENT_FAIL ? MPROF_ENDING_FAILED
                                              : MPROF_ENDING_RESOLVED;
    if (ev->kind == MPROF_EVENT_FAIL) {
      th->failure = mprof__intern_text(m, ev->text, ev->text_length);
      m->failed_threads++;
    }
  }
  return arrow_add(m, MPROF_ARROW_RESOLVE, resolver, target, t, s);
}

static int thread_becomes(mprof_model_t *m, const mprof_event_t *ev, int64_t t,
                          const stream_state_t *s) {
  uint32_t old = thread_of(m, ev->a, t);
  uint32_t next = thread_of(m, ev->b, t);
  if (old == MPROF_NO_THREAD || next == MPROF_NO_THREAD) return MPROF_ENOMEM;
  if (old == next || old == MPROF_ROOT_THREAD || next == MPROF_ROOT_THREAD ||
      mprof__follow_merges(m, next) == old)
    return 0; /* a merge into itself or a cycle: nothing to draw */
  mprof_thread_t *o = &m->threads[old];
  o->end_ns = t;
  o->ending = MPROF_ENDING_MERGED;
  o->becomes = next;
  if (mprof__id_set(m, ev->a, next)) return MPROF_ENOMEM;
  /* a stream running the old thread runs the new one: one line goes on */
  for (size_t i = 0; i < m->stream_count; i++)
    if (m->streams[i].current == old &&
        stream_switch(m, &m->streams[i], next, t))
      return MPROF_ENOMEM;
  return arrow_add(m, MPROF_ARROW_BECOMES, old, next, t, s);
}

/* A legacy read or signal also switched to the thread that went on. */
static inline int legacy_switch(mprof_model_t *m, stream_state_t *s,
                                uint32_t next, int64_t t) {
  if (!m->legacy || next == MPROF_ROOT_THREAD) return 0;
  return idle_end(m, s, t) || stream_switch(m, s, next, t) ? MPROF_ENOMEM : 0;
}

static int apply_event(mprof_model_t *m, const mprof_event_t *ev,
                       stream_state_t *s, int64_t t) {
  uint32_t actor = thread_of(m, ev->thread, t);
  if (actor == MPROF_NO_THREAD) return MPROF_ENOMEM;
  uint32_t other;
  switch (ev->kind) {
  case MPROF_EVENT_SWITCH:
    other = thread_of(m, ev->a, t);
    if (other == MPROF_NO_THREAD) return MPROF_ENOMEM;
    if (other == MPROF_ROOT_THREAD)
      return m->legacy ? idle_begin(m, s, t)
                       : stream_switch(m, s, MPROF_NO_THREAD, t);
    return idle_end(m, s, t) || stream_switch(m, s, other, t) ? MPROF_ENOMEM
                                                              : 0;
  case MPROF_EVENT_SUSPEND: return idle_begin(m, s, t);
  case MPROF_EVENT_CREATE: return thread_create(m, ev, actor, t, s);
  case MPROF_EVENT_CREATE_BY:
    other = thread_of(m, ev->b, t);
    if (other == MPROF_NO_THREAD) return MPROF_ENOMEM;
    return thread_create(m, ev, other, t, s);
  case MPROF_EVENT_READ:
    if (actor == MPROF_ROOT_THREAD) return 0; /* legacy reads by nobody */
    if (legacy_switch(m, s, actor, t)) return MPROF_ENOMEM;
    other = thread_of(m, ev->a, t);
    if (other == MPROF_NO_THREAD) return MPROF_ENOMEM;
    return arrow_add(m, MPROF_ARROW_READ, other, actor, t, s);
  case MPROF_EVENT_TRY_READ:
    other = thread_of(m, ev->a, t);
    if (other == MPROF_NO_THREAD) return MPROF_ENOMEM;
    return arrow_add(m, MPROF_ARROW_TRY_READ, actor, other, t, s);
  case MPROF_EVENT_RESOLVE:
  case MPROF_EVENT_FAIL: return thread_resolve(m, actor, ev, t, s);
  case MPROF_EVENT_BECOMES: return thread_becomes(m, ev, t, s);
  case MPROF_EVENT_LABEL:
    other = thread_of(m, ev->a, t);
    if (other == MPROF_NO_THREAD) return MPROF_ENOMEM;
    return other == MPROF_ROOT_THREAD
               ? 0
               : label_add(m, other, t, ev->text, ev->text_length);
  case MPROF_EVENT_SIGNAL:
    other = thread_of(m, ev->a, t);
    if (other == MPROF_NO_THREAD || legacy_switch(m, s, other, t))
      return MPROF_ENOMEM;
    return arrow_add(m, MPROF_ARROW_SIGNAL, actor, other, t, s);
  case MPROF_EVENT_SHOULD_RESOLVE:
    other = thread_of(m, ev->a, t);
    if (other == MPROF_NO_THREAD) return MPROF_ENOMEM;
    if (other != MPROF_ROOT_THREAD)
      m->threads[other].flags |= MPROF_THREAD_SHOULD_RESOLVE;
    return 0;
  case MPROF_EVENT_COUNTER_NAME:
  case MPROF_EVENT_COUNTER_INCREASE:
  case MPROF_EVENT_COUNTER_VALUE: return counter_update(m, ev, t);
  case MPROF_EVENT_GC: {
    int64_t d = ev->value > 0 && ev->value < t ? ev->value : t;
    return band_add(m, t - d, t, stream_index(m, s), MPROF_BAND_GC);
  }
  default: return 0; /* STRING: the reader already resolved labels */
  }
}

/* --- Making a model ------------------------------------------------------- */

int mprof_model_new(uint64_t clock_freq_hz, int legacy, mprof_model_t **out) {
  if (!out || clock_freq_hz == 0) return MPROF_EINVAL;
  mprof_model_t *m = calloc(1, sizeof *m);
  if (!m) return MPROF_ENOMEM;
  m->ns_per_tick = 1e9 / (double)clock_freq_hz;
  m->legacy = legacy;
  m->view.clock_freq_hz = clock_freq_hz;
  /* string offset 0 is the empty string: one NUL byte; thread 0 the root */
  if (mprof__id_table_init(m) ||
      thread_new(m, MPROF_NONE, 0, MPROF_ROOT_THREAD, MPROF_UNKNOWN) !=
          MPROF_ROOT_THREAD ||
      mprof__grow(&m->strings, &m->string_cap, 1, 1)) {
    mprof_model_free(m);
    return MPROF_ENOMEM;
  }
  m->strings[0] = 0;
  m->string_size = 1;
  m->view.strings = m->strings;
  *out = m;
  return 0;
}

/* Grow *array (capacity *cap) to exactly need items, if it holds fewer. */
static int reserve_exact(void *array, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  if (need > SIZE_MAX / elem) return MPROF_ENOMEM;
  void **p = array;
  void *grown = realloc(*p, need * elem);
  if (!grown) return MPROF_ENOMEM;
  *p = grown;
  *cap = need;
  return 0;
}

int mprof__model_reserve(mprof_model_t *m, const mprof_model_sizes_t *sizes) {
  /* sample_counter and sample_lows follow sample_values */
  size_t counter_cap = m->sample_cap, lows_cap = m->sample_cap;
  /* the recorder's ids are dense from 1: made once, the id array leaves no
   * smaller copies behind */
  return mprof__direct_resize(m, sizes->threads) ||
                 reserve_exact(&m->threads, &m->thread_cap, sizes->threads,
                               sizeof *m->threads) ||
                 reserve_exact(&m->arrows, &m->arrow_cap, sizes->arrows,
                               sizeof *m->arrows) ||
                 reserve_exact(&m->labels, &m->label_cap, sizes->labels,
                               sizeof *m->labels) ||
                 reserve_exact(&m->running, &m->running_cap, sizes->spans,
                               sizeof *m->running) ||
                 reserve_exact(&m->sample_counter, &counter_cap, sizes->samples,
                               sizeof *m->sample_counter) ||
                 reserve_exact(&m->sample_lows, &lows_cap, sizes->samples,
                               sizeof *m->sample_lows) ||
                 reserve_exact(&m->sample_values, &m->sample_cap,
                               sizes->samples, sizeof *m->sample_values)
             ? MPROF_ENOMEM
             : 0;
}

/* --- The event loop ------------------------------------------------------- */

/* Apply one event at t (model ns) on stream s (the model is not
 * finished). */
static inline int add_event(mprof_model_t *m, const mprof_event_t *ev,
                            stream_state_t *s, int64_t t) {
  if (s->current == MPROF_NO_THREAD && s->idle_start_ns < 0 &&
      ev->thread != MPROF_NONE && ev->kind != MPROF_EVENT_SWITCH &&
      !m->legacy) {
    /* the stream's first event: what ran when its packet began */
    uint32_t running = thread_of(m, ev->thread, t);
    if (running == MPROF_NO_THREAD) return MPROF_ENOMEM;
    s->current = running;
    s->run_start_ns = t;
  }
  return apply_event(m, ev, s, t);
}

/* The event loop's state, in locals while a pair of runs is fed: the
 * clock's terms, the latest time, the previous event's stream (stores
 * through the model's arrays may alias the model's own fields). */
typedef struct feeding_s {
  uint64_t start_ticks;
  double ns_per_tick;
  int64_t latest;
  stream_state_t *s;
  size_t fed;
} feeding_t;

/* Feed r's events up to the first whose clock is past limit, or its end.
 * Returns 0 or an mprof error (the event that failed counts as fed). */
static inline __attribute__((always_inline)) int
feed_upto(mprof_model_t *m, mprof__run_t *r, uint64_t limit, feeding_t *f) {
  /* in locals: stores through the model's arrays may alias *r */
  const mprof_event_t *events = r->events;
  size_t i = r->at, count = r->count;
  int err = 0;
  for (; i < count && events[i].time_ticks <= limit; i++) {
    const mprof_event_t *ev = &events[i];
    int64_t t = mprof__event_ns(ev->time_ticks, f->start_ticks, f->ns_per_tick);
    if (!f->s || f->s->id != ev->stream) {
      if (!(f->s = stream_of(m, ev->stream, t))) {
        err = MPROF_ENOMEM;
        break;
      }
    }
    if (t < f->s->last_ns) t = f->s->last_ns; /* time never goes backwards */
    f->s->last_ns = t;
    if (t > f->latest) f->latest = t;
    if ((err = add_event(m, ev, f->s, t))) {
      i++; /* it counts as fed */
      break;
    }
  }
  f->fed += i - r->at;
  r->at = i;
  return err;
}

/* The model's feeding as the pair merge's step (inlined there). */
typedef struct model_feeding_s {
  mprof_model_t *m;
  feeding_t f;
} model_feeding_t;

static inline __attribute__((always_inline)) int
model_feed(void *state, mprof__run_t *r, uint64_t limit) {
  model_feeding_t *mf = state;
  return feed_upto(mf->m, r, limit, &mf->f);
}

int mprof__model_add_pair(mprof_model_t *m, mprof__run_t *x, mprof__run_t *y) {
  if (m->finished) return MPROF_EINVAL;
  uint64_t first;
  if (!mprof__pair_first(x, y, &first)) return 0;
  if (!m->have_base) {
    m->view.start_ticks = first;
    m->have_base = 1;
  }
  model_feeding_t mf = {
      m, {m->view.start_ticks, m->ns_per_tick, m->view.duration_ns, NULL, 0}};
  int err = mprof__pair_turns(&mf, model_feed, x, y);
  m->view.duration_ns = mf.f.latest;
  m->view.events += mf.f.fed;
  return err;
}

int mprof_model_add(mprof_model_t *m, const mprof_event_t *ev) {
  mprof__run_t one = {ev, 1, 0, UINT64_MAX, 1};
  mprof__run_t none = {NULL, 0, 0, UINT64_MAX, 1};
  return mprof__model_add_pair(m, &one, &none);
}
