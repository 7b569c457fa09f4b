/* model.c -- turn events into threads, arrows, running spans, idle bands
 * and counters (the semantics of mirage-trace-viewer's Mtv_thread, see
 * ../shared/reference/mirage-system.md section 3.1, made total: duplicate
 * ids, merge cycles, time going backwards and events about unknown
 * threads never abort, they are absorbed).
 *
 * Events are fed in time order (mprof_model_load merges the streams).  Ids
 * map to thread indexes through an open-addressing table; once a thread
 * becomes another, its id maps to the successor, so later events about it
 * land where the line continues.
 */
#include <string.h>

#include "model_internal.h"

/* A thread that is never resolved ends this long after it was last seen
 * (as the original did: it was probably collected, unseen). */
#define PENDING_TAIL_NS 1000
/* Merge chains longer than this are cut (a cycle in bad input). */
#define MAX_MERGE_HOPS 1000

static const char STALLED_TEXT[] = "should_resolve thread never resolved";

int mprof__grow(void *array, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  if (need > SIZE_MAX / 2 / elem) return MPROF_ENOMEM; /* no room to double */
  size_t new_cap = *cap ? *cap : 16;
  while (new_cap < need) new_cap *= 2;
  void **p = array;
  void *grown = realloc(*p, new_cap * elem);
  if (!grown) return MPROF_ENOMEM;
  *p = grown;
  *cap = new_cap;
  return 0;
}

const char *mprof_arrow_kind_name(mprof_arrow_kind_t kind) {
  static const char *const names[MPROF_ARROW_KIND_COUNT] = {
      "create", "read", "read_failed", "try_read", "resolve", "signal",
      "becomes"};
  return (unsigned)kind < MPROF_ARROW_KIND_COUNT ? names[kind] : "unknown";
}

const char *mprof_ending_name(mprof_ending_t ending) {
  static const char *const names[] = {"pending", "resolved", "failed",
                                      "merged"};
  return (unsigned)ending < sizeof names / sizeof *names ? names[ending]
                                                         : "unknown";
}

/* --- Strings ----------------------------------------------------------------- */

/* The pool offset of a text copied lately from the same place with the
 * same bytes, or 0.  Labels repeat (a server labels every request with one
 * of a few names, and the reader hands out the same bytes each time): the
 * cache keeps one copy of each, and the bytes are compared, so a caller
 * that reuses a buffer for other texts gets them right. */
static uint32_t text_cached(const mprof_model_t *m, const char *text,
                            size_t length, size_t slot) {
  uint32_t offset = m->text_cache[slot];
  if (offset == 0 || offset + length >= m->string_size) return 0;
  const char *have = m->strings + offset;
  return have[length] == 0 && memcmp(have, text, length) == 0 ? offset : 0;
}

/* Copy text into the pool (once, if it repeats); returns its offset (0 is
 * the empty string) or 0 when memory runs out (the text is then shown
 * empty). */
static uint32_t intern_text(mprof_model_t *m, const char *text, size_t length) {
  size_t slot = ((uintptr_t)text >> 3 ^ length) % MODEL_TEXT_CACHE;
  uint32_t offset = text_cached(m, text, length, slot);
  if (offset || length == 0 || m->string_size + length + 1 > UINT32_MAX)
    return offset;
  if (mprof__grow(&m->strings, &m->string_cap, m->string_size + length + 1, 1))
    return 0;
  offset = (uint32_t)m->string_size;
  memcpy(m->strings + offset, text, length);
  m->strings[offset + length] = 0;
  m->string_size += length + 1;
  m->view.strings = m->strings;
  m->text_cache[slot] = offset;
  return offset;
}

/* --- Threads and the id table ---------------------------------------------- */

/* Ids are handed out in runs (the recorder gives each OS thread chunks of
 * consecutive ids, from 1 up), so most ids are small and dense: those index
 * a plain array (`direct`), grown while it stays within a few times the
 * thread count.  Other ids go in an open-addressing table; consecutive ids
 * go to consecutive slots there too, and high bits are folded in so that
 * ids differing only there (other chunks, strided ids) still spread. */
#define DIRECT_FIRST 1024
#define DIRECT_SPARE 65536

static size_t hash_slot(const mprof_model_t *m, uint64_t id) {
  uint64_t h = id ^ (id >> 16) ^ (id >> 32) ^ (id >> 48);
  return (size_t)h & (m->hash_cap - 1);
}

/* The slot holding id, or the empty slot where it would go. */
static size_t hash_find(const mprof_model_t *m, uint64_t id) {
  size_t s = hash_slot(m, id);
  while (m->hash_threads[s] != MPROF_NO_THREAD && m->hash_ids[s] != id)
    s = (s + 1) & (m->hash_cap - 1);
  return s;
}

/* Rebuild the table with `cap` slots; ids the direct array now covers
 * move there. */
static int hash_rebuild(mprof_model_t *m, size_t cap) {
  size_t old_cap = m->hash_cap;
  uint64_t *old_ids = m->hash_ids;
  uint32_t *old_threads = m->hash_threads;
  uint64_t *ids = malloc(cap * sizeof *ids);
  uint32_t *threads = malloc(cap * sizeof *threads);
  if (!ids || !threads) {
    free(ids);
    free(threads);
    return MPROF_ENOMEM;
  }
  memset(threads, 0xff, cap * sizeof *threads);
  m->hash_ids = ids;
  m->hash_threads = threads;
  m->hash_cap = cap;
  m->hash_used = 0;
  for (size_t i = 0; i < old_cap; i++) {
    if (old_threads[i] == MPROF_NO_THREAD) continue;
    if (old_ids[i] < m->direct_cap) {
      m->direct[old_ids[i]] = old_threads[i];
      continue;
    }
    size_t s = hash_find(m, old_ids[i]);
    m->hash_ids[s] = old_ids[i];
    m->hash_threads[s] = old_threads[i];
    m->hash_used++;
  }
  free(old_ids);
  free(old_threads);
  return 0;
}

/* Make the direct array cover ids below cap; ids the hash table holds
 * there move over.  Returns 0 or MPROF_ENOMEM. */
static int direct_resize(mprof_model_t *m, size_t cap) {
  size_t old_cap = m->direct_cap;
  if (cap <= old_cap) return 0;
  if (cap > SIZE_MAX / sizeof *m->direct) return MPROF_ENOMEM;
  uint32_t *grown = realloc(m->direct, cap * sizeof *grown);
  if (!grown) return MPROF_ENOMEM;
  memset(grown + old_cap, 0xff, (cap - old_cap) * sizeof *grown);
  m->direct = grown;
  m->direct_cap = cap;
  if (m->hash_used && hash_rebuild(m, m->hash_cap)) {
    m->direct_cap = old_cap; /* the table still holds those ids */
    return MPROF_ENOMEM;
  }
  return 0;
}

/* Grow the direct array to cover id, if that keeps it within a few times
 * the thread count.  Returns 0 (id may still be beyond it) or
 * MPROF_ENOMEM. */
static int direct_grow(mprof_model_t *m, uint64_t id) {
  if (id >= 8 * (uint64_t)m->view.thread_count + DIRECT_SPARE) return 0;
  size_t cap = m->direct_cap ? m->direct_cap : DIRECT_FIRST;
  while (cap <= id) cap *= 2;
  return direct_resize(m, cap);
}

/* Where id's thread index is kept (MPROF_NO_THREAD: an unknown id). */
static uint32_t *id_ref(const mprof_model_t *m, uint64_t id) {
  return id < m->direct_cap ? &m->direct[id]
                            : &m->hash_threads[hash_find(m, id)];
}

static int id_set(mprof_model_t *m, uint64_t id, uint32_t thread) {
  if (id >= m->direct_cap && direct_grow(m, id)) return MPROF_ENOMEM;
  if (id < m->direct_cap) {
    m->direct[id] = thread;
    return 0;
  }
  if ((m->hash_used + 1) * 4 > m->hash_cap * 3 &&
      hash_rebuild(m, m->hash_cap * 2))
    return MPROF_ENOMEM;
  size_t s = hash_find(m, id);
  if (m->hash_threads[s] == MPROF_NO_THREAD) m->hash_used++;
  m->hash_ids[s] = id;
  m->hash_threads[s] = thread;
  return 0;
}

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

uint32_t mprof__follow_merges(const mprof_model_t *m, uint32_t i) {
  for (int hops = 0; m->threads[i].becomes != MPROF_NO_THREAD &&
                     hops < MAX_MERGE_HOPS;
       hops++)
    i = m->threads[i].becomes;
  return i;
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
  if (i == MPROF_NO_THREAD || id_set(m, id, i)) return MPROF_NO_THREAD;
  m->threads[i].flags |= MPROF_THREAD_PREEXISTING;
  return i;
}

/* The thread an event's id refers to: MPROF_NONE is the root; an id never
 * seen is a thread that existed before the trace began. */
static inline uint32_t thread_of(mprof_model_t *m, uint64_t id,
                                 int64_t now_ns) {
  if (id == MPROF_NONE) return MPROF_ROOT_THREAD;
  uint32_t *ref = id_ref(m, id);
  uint32_t i = *ref;
  if (i == MPROF_NO_THREAD || m->threads[i].becomes != MPROF_NO_THREAD) {
    i = thread_of_rare(m, id, ref);
    if (i == MPROF_NO_THREAD) return i;
  }
  if (m->threads[i].last_seen_ns < now_ns) m->threads[i].last_seen_ns = now_ns;
  return i;
}

/* --- Streams, running spans and bands ---------------------------------------- */

static stream_state_t *stream_of(mprof_model_t *m, uint32_t id, int64_t t) {
  if (m->last_stream < m->stream_count && m->streams[m->last_stream].id == id)
    return &m->streams[m->last_stream];
  for (size_t i = 0; i < m->stream_count; i++)
    if (m->streams[i].id == id) {
      m->last_stream = i;
      return &m->streams[i];
    }
  if (mprof__grow(&m->streams, &m->stream_cap, m->stream_count + 1,
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

/* End the running span of s at t and start `next` running (or nothing). */
static int stream_switch(mprof_model_t *m, stream_state_t *s, uint32_t next,
                         int64_t t) {
  if (next == s->current) return 0;
  if (s->current != MPROF_NO_THREAD && t > s->run_start_ns) {
    mprof_span_t span = {s->run_start_ns, t, s->current, stream_index(m, s)};
    if (MODEL_PUSH(m, running, running_cap, running_count, span))
      return MPROF_ENOMEM;
  }
  s->current = next;
  s->run_start_ns = t;
  return 0;
}

static int band_add(mprof_model_t *m, int64_t start, int64_t end,
                    uint32_t stream, mprof_band_kind_t kind) {
  if (end <= start) return 0;
  mprof_band_t band = {{start, end, MPROF_NO_THREAD, stream}, kind};
  return MODEL_PUSH(m, bands, band_cap, band_count, band);
}

static int idle_begin(mprof_model_t *m, stream_state_t *s, int64_t t) {
  if (s->idle_start_ns < 0) s->idle_start_ns = t;
  return stream_switch(m, s, MPROF_NO_THREAD, t);
}

static int idle_end(mprof_model_t *m, stream_state_t *s, int64_t t) {
  if (s->idle_start_ns < 0) return 0;
  int64_t start = s->idle_start_ns;
  s->idle_start_ns = -1;
  return band_add(m, start, t, stream_index(m, s), MPROF_BAND_IDLE);
}

/* --- Counters ---------------------------------------------------------------- */

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
  m->counters[n].name = name ? intern_text(m, name, length) : 0;
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
    m->counters[c].name = intern_text(m, ev->text, ev->text_length);
    return 0;
  }
  int64_t value = ev->kind == MPROF_EVENT_COUNTER_INCREASE
                      ? (int64_t)((uint64_t)m->counter_values[c] +
                                  (uint64_t)ev->value)
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
  return MODEL_PUSH(m, samples, sample_cap, sample_count, sample);
}

/* --- Events ------------------------------------------------------------------ */

/* Inlined where it is used: called for most events, and its tests fold
 * into the caller's. */
static inline __attribute__((always_inline)) int
arrow_add(mprof_model_t *m, mprof_arrow_kind_t kind, uint32_t from,
          uint32_t to, int64_t t, const stream_state_t *s) {
  if (from == to || from == MPROF_ROOT_THREAD || to == MPROF_ROOT_THREAD)
    return 0;
  mprof_arrow_t arrow = {t, from, to, kind, stream_index(m, s)};
  size_t n = m->view.arrow_count;
  if (MODEL_PUSH(m, arrows, arrow_cap, arrow_count, arrow)) return MPROF_ENOMEM;
  if (n && t < m->arrows[n - 1].time_ns) m->arrows_unordered = 1;
  return 0;
}

static int label_add(mprof_model_t *m, uint32_t thread, int64_t t,
                     const char *text, size_t length) {
  mprof_label_t label = {t, thread, intern_text(m, text, length)};
  return MODEL_PUSH(m, labels, label_cap, label_count, label);
}

static inline __attribute__((always_inline)) int
thread_create(mprof_model_t *m, const mprof_event_t *ev, uint32_t creator,
              int64_t t, const stream_state_t *s) {
  uint64_t id = ev->a;
  uint16_t type = (uint16_t)ev->type;
  uint32_t child = *id_ref(m, id);
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
      m->direct[id] = child; /* id_set's common case, inline */
    else if (id_set(m, id, child))
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
      th->failure = intern_text(m, ev->text, ev->text_length);
      m->failed_threads++;
    }
  }
  return arrow_add(m, MPROF_ARROW_RESOLVE, resolver, target, t, s);
}

static int thread_becomes(mprof_model_t *m, const mprof_event_t *ev,
                          int64_t t, const stream_state_t *s) {
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
  if (id_set(m, ev->a, next)) return MPROF_ENOMEM;
  /* whatever ran as the old thread now runs as the new one */
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
  case MPROF_EVENT_SUSPEND:
    return idle_begin(m, s, t);
  case MPROF_EVENT_CREATE:
    return thread_create(m, ev, actor, t, s);
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
  case MPROF_EVENT_FAIL:
    return thread_resolve(m, actor, ev, t, s);
  case MPROF_EVENT_BECOMES:
    return thread_becomes(m, ev, t, s);
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
  case MPROF_EVENT_COUNTER_VALUE:
    return counter_update(m, ev, t);
  case MPROF_EVENT_GC: {
    int64_t d = ev->value > 0 && ev->value < t ? ev->value : t;
    return band_add(m, t - d, t, stream_index(m, s), MPROF_BAND_GC);
  }
  default:
    return 0; /* STRING: the reader already resolved labels */
  }
}

int mprof_model_new(uint64_t clock_freq_hz, int legacy, mprof_model_t **out) {
  if (!out || clock_freq_hz == 0) return MPROF_EINVAL;
  mprof_model_t *m = calloc(1, sizeof *m);
  if (!m) return MPROF_ENOMEM;
  m->ns_per_tick = 1e9 / (double)clock_freq_hz;
  m->legacy = legacy;
  m->view.clock_freq_hz = clock_freq_hz;
  /* string offset 0 is the empty string: one NUL byte */
  if (hash_rebuild(m, 1024) ||
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

/* An event's clock as model ns: ticks since the first event, held at
 * MODEL_MAX_NS (a damaged clock must not overflow the sums views make of
 * times).  A difference below 2^63 ticks converts as a signed number (one
 * instruction, where an unsigned one takes a branch and several). */
static inline int64_t event_ns(uint64_t ticks, uint64_t start_ticks,
                               double ns_per_tick) {
  if (ticks <= start_ticks) return 0;
  uint64_t ticks_since = ticks - start_ticks;
  double since = (int64_t)ticks_since >= 0 ? (double)(int64_t)ticks_since
                                           : (double)ticks_since;
  since *= ns_per_tick;
  return since < (double)MODEL_MAX_NS ? (int64_t)since : MODEL_MAX_NS;
}

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
  size_t counter_cap = m->sample_cap; /* sample_counter follows samples */
  /* the recorder's ids are dense from 1: made once, the id array leaves no
   * smaller copies behind */
  return direct_resize(m, sizes->threads) ||
                 reserve_exact(&m->threads, &m->thread_cap, sizes->threads,
                       sizeof *m->threads) ||
                 reserve_exact(&m->arrows, &m->arrow_cap, sizes->arrows,
                               sizeof *m->arrows) ||
                 reserve_exact(&m->labels, &m->label_cap, sizes->labels,
                               sizeof *m->labels) ||
                 reserve_exact(&m->running, &m->running_cap, sizes->spans,
                               sizeof *m->running) ||
                 reserve_exact(&m->sample_counter, &counter_cap,
                               sizes->samples, sizeof *m->sample_counter) ||
                 reserve_exact(&m->samples, &m->sample_cap, sizes->samples,
                               sizeof *m->samples)
             ? MPROF_ENOMEM
             : 0;
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
    int64_t t = event_ns(ev->time_ticks, f->start_ticks, f->ns_per_tick);
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

static int run_has(const mprof__run_t *r) { return r->at < r->count; }

static uint64_t run_head(const mprof__run_t *r) {
  return r->events[r->at].time_ticks;
}

/* The clock of the pair's first event to feed, if it may be fed now. */
static int pair_first(const mprof__run_t *x, const mprof__run_t *y,
                      uint64_t *ticks) {
  if (run_has(x) && (!run_has(y) || run_head(x) <= run_head(y))) {
    *ticks = run_head(x);
    return *ticks <= x->last;
  }
  *ticks = run_has(y) ? run_head(y) : 0;
  return run_has(y) && *ticks <= y->last;
}

int mprof__model_add_pair(mprof_model_t *m, mprof__run_t *x,
                          mprof__run_t *y) {
  if (m->finished) return MPROF_EINVAL;
  uint64_t first;
  if (!pair_first(x, y, &first)) return 0;
  if (!m->have_base) {
    m->view.start_ticks = first;
    m->have_base = 1;
  }
  feeding_t f = {m->view.start_ticks, m->ns_per_tick, m->view.duration_ns,
                 NULL, 0};
  int err = 0;
  /* By turns: x goes while its clock is at most y's next (x wins ties),
   * then y while its clock is below x's next.  A run that ends before it
   * is done ends the call (its next packet may hold earlier events than
   * the other's), as do two turns in a row that feed nothing.  One loop
   * for both, so that the event's work is inlined once. */
  for (int turn = 0, idle = 0; idle < 2; turn ^= 1) {
    mprof__run_t *r = turn ? y : x, *other = turn ? x : y;
    uint64_t limit = r->last;
    if (run_has(other)) {
      uint64_t next = run_head(other);
      if (turn && next <= limit) /* y: below x's next, which is not 0 */
        limit = next ? next - 1 : 0; /* (x fed its clock-0 events first) */
      else if (!turn && next < limit)
        limit = next;
    } else if (!other->done) {
      break;
    }
    size_t before = f.fed;
    if ((err = feed_upto(m, r, limit, &f))) break;
    if (!run_has(r) && !r->done) break;
    idle = f.fed == before ? idle + 1 : 0;
  }
  m->view.duration_ns = f.latest;
  m->view.events += f.fed;
  return err;
}

int mprof_model_add(mprof_model_t *m, const mprof_event_t *ev) {
  mprof__run_t one = {ev, 1, 0, UINT64_MAX, 1};
  mprof__run_t none = {NULL, 0, 0, UINT64_MAX, 1};
  return mprof__model_add_pair(m, &one, &none);
}

/* --- Finishing ----------------------------------------------------------------- */

static int close_streams(mprof_model_t *m) {
  for (size_t i = 0; i < m->stream_count; i++) {
    stream_state_t *s = &m->streams[i];
    int64_t end = m->view.duration_ns;
    if (stream_switch(m, s, MPROF_NO_THREAD, end) || idle_end(m, s, end))
      return MPROF_ENOMEM;
  }
  return 0;
}

/* A hinted thread i that never resolved (following merges) is stalled:
 * its line ends failed at the end of the trace.  Returns the thread whose
 * line it ended, or MPROF_NO_THREAD. */
static uint32_t settle_stall(mprof_model_t *m, uint32_t i, int64_t end) {
  mprof_thread_t *th = m->threads;
  uint32_t last = mprof__follow_merges(m, i);
  if (th[last].ending != MPROF_ENDING_PENDING) return MPROF_NO_THREAD;
  th[i].flags |= MPROF_THREAD_STALLED;
  th[last].flags |= MPROF_THREAD_STALLED;
  th[last].ending = MPROF_ENDING_FAILED;
  th[last].end_ns = end;
  th[last].failure = intern_text(m, STALLED_TEXT, sizeof STALLED_TEXT - 1);
  m->failed_threads++;
  return last;
}

/* Thread i's labels: those at *at on in labels grouped by thread (the
 * cursor moves on past them). */
static void take_labels(const mprof_model_t *m, mprof_thread_t *t, size_t i,
                        size_t *at) {
  size_t k = *at;
  if (k < m->view.label_count && m->labels[k].thread == i)
    t->first_label = (uint32_t)k;
  for (; k < m->view.label_count && m->labels[k].thread == i; k++)
    t->label_count++;
  *at = k;
}

/* Threads are settled, then given rows, a block at a time: the layout
 * reads the block while it is still in cache (each pass over the
 * threads, 64 bytes each, costs tens of MB of memory traffic). */
#define SETTLE_BLOCK 2048

/* Mark hinted threads that never resolved, and end every open line, in
 * one pass over the threads (a stall may end a thread before or after i;
 * either way it ends failed, not by the pending tail).  The same pass
 * gives threads their labels (grouped by thread already), and readies the
 * layout, from the same cache lines: rows are marked unplaced, and whether
 * the threads are numbered in start order is noted; while they are, and
 * no stall has ended a thread placed already, each block of threads is
 * placed as soon as it is settled (otherwise mprof__layout() places them
 * all again). */
static void settle_endings(mprof_model_t *m) {
  mprof_thread_t *th = m->threads;
  size_t n = m->view.thread_count, label = 0;
  int64_t end = m->view.duration_ns, last_start = INT64_MIN;
  int placing = mprof__place_begin(m) == 0;
  th[MPROF_ROOT_THREAD].end_ns = end;
  th[MPROF_ROOT_THREAD].ending = MPROF_ENDING_RESOLVED;
  th[MPROF_ROOT_THREAD].row = MODEL_ROW_UNPLACED;
  take_labels(m, &th[MPROF_ROOT_THREAD], MPROF_ROOT_THREAD, &label);
  m->threads_unordered = 0;
  for (size_t from = 1; from < n; from += SETTLE_BLOCK) {
    size_t to = n - from > SETTLE_BLOCK ? from + SETTLE_BLOCK : n;
    for (size_t i = from; i < to; i++) {
      mprof_thread_t *t = &th[i];
      take_labels(m, t, i, &label);
      if (t->flags & MPROF_THREAD_SHOULD_RESOLVE &&
          settle_stall(m, (uint32_t)i, end) < from)
        placing = 0; /* it ended a thread placed already */
      if (t->ending == MPROF_ENDING_PENDING) {
        int64_t tail = t->last_seen_ns + PENDING_TAIL_NS;
        t->end_ns = tail < end ? tail : end;
      }
      if (t->end_ns < t->start_ns) t->end_ns = t->start_ns;
      t->row = MODEL_ROW_UNPLACED;
      if (t->start_ns < last_start)
        m->threads_unordered = 1;
      else
        last_start = t->start_ns;
    }
    if (placing && !m->threads_unordered)
      placing = mprof__place_range(m, from, to) == 0;
  }
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

void mprof_model_arrow_ends(const mprof_model_t *m, const mprof_arrow_t *a,
                            int64_t *from_ns, int64_t *to_ns) {
  const mprof_thread_t *th = m->threads;
  *from_ns = *to_ns = a->time_ns;
  if (a->kind == MPROF_ARROW_READ || a->kind == MPROF_ARROW_READ_FAILED ||
      a->kind == MPROF_ARROW_RESOLVE)
    *from_ns = min64(a->time_ns, th[a->from].end_ns);
  else if (a->kind == MPROF_ARROW_TRY_READ)
    *to_ns = min64(a->time_ns, th[a->to].end_ns);
}

/* A read of a thread that failed carries the exception: its own colour.
 * (Nothing to do when no thread failed, the common case.) */
static void settle_arrows(mprof_model_t *m) {
  const mprof_thread_t *th = m->threads;
  if (m->failed_threads == 0) return;
  for (size_t i = 0; i < m->view.arrow_count; i++) {
    mprof_arrow_t *a = &m->arrows[i];
    if (a->kind == MPROF_ARROW_READ &&
        th[a->from].ending == MPROF_ENDING_FAILED &&
        !(th[a->from].flags & MPROF_THREAD_STALLED))
      a->kind = MPROF_ARROW_READ_FAILED;
  }
}

static int compare_arrows(const void *pa, const void *pb) {
  const mprof_arrow_t *a = pa, *b = pb;
  if (a->time_ns != b->time_ns) return a->time_ns < b->time_ns ? -1 : 1;
  if (a->stream != b->stream) return a->stream < b->stream ? -1 : 1;
  if (a->from != b->from) return a->from < b->from ? -1 : 1;
  return a->to < b->to ? -1 : a->to > b->to;
}

static int compare_bands(const void *pa, const void *pb) {
  const mprof_band_t *a = pa, *b = pb;
  if (a->span.start_ns != b->span.start_ns)
    return a->span.start_ns < b->span.start_ns ? -1 : 1;
  return a->span.stream < b->span.stream ? -1 : a->span.stream > b->span.stream;
}

/* Arrows come in time order from a merged trace; events fed by hand may
 * not (arrow_add notes it).  Sort only if needed (qsort is not stable). */
static void sort_arrows_and_bands(mprof_model_t *m) {
  if (m->arrows_unordered)
    qsort(m->arrows, m->view.arrow_count, sizeof *m->arrows, compare_arrows);
  if (m->view.band_count)
    qsort(m->bands, m->view.band_count, sizeof *m->bands, compare_bands);
}

static int compare_labels(const void *pa, const void *pb) {
  const mprof_label_t *a = pa, *b = pb;
  if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
  if (a->time_ns != b->time_ns) return a->time_ns < b->time_ns ? -1 : 1;
  return a->text < b->text ? -1 : a->text > b->text;
}

/* Group labels by thread (in time order within each; settle_endings()
 * then hands each thread its own).  Threads are numbered as they appear
 * and most are labelled soon after, so the labels are often in that order
 * already: sort only if not. */
static void group_labels(mprof_model_t *m) {
  for (size_t i = 1; i < m->view.label_count; i++)
    if (compare_labels(&m->labels[i - 1], &m->labels[i]) > 0) {
      qsort(m->labels, m->view.label_count, sizeof *m->labels, compare_labels);
      break;
    }
}

/* A counter and its name, for sorting (qsort has no context argument). */
typedef struct named_counter_s {
  const char *name;
  mprof_counter_series_t series;
} named_counter_t;

static int compare_counter_names(const void *pa, const void *pb) {
  const named_counter_t *a = pa, *b = pb;
  return strcmp(a->name, b->name);
}

static int sort_counters(mprof_model_t *m) {
  size_t c = m->view.counter_count;
  named_counter_t *named = malloc((c ? c : 1) * sizeof *named);
  if (!named) return MPROF_ENOMEM;
  for (size_t i = 0; i < c; i++)
    named[i] = (named_counter_t){m->strings + m->counters[i].name,
                                 m->counters[i]};
  qsort(named, c, sizeof *named, compare_counter_names);
  for (size_t i = 0; i < c; i++) m->counters[i] = named[i].series;
  free(named);
  return 0;
}

/* Count each counter's samples; returns whether they are grouped by
 * counter already (one counter, or each counter's samples after the
 * previous one's), found in the same pass. */
static int count_samples(mprof_model_t *m) {
  const uint32_t *counter = m->sample_counter;
  int grouped = 1;
  for (size_t i = 0; i < m->view.counter_count; i++)
    m->counters[i].sample_count = 0;
  for (size_t i = 0; i < m->view.sample_count; i++) {
    if (i > 0 && counter[i] < counter[i - 1]) grouped = 0;
    m->counters[counter[i]].sample_count++;
  }
  return grouped;
}

/* Group samples by counter (a stable counting sort keeps time order; no
 * copy when they are grouped already), then sort the counters by name.
 * Their value ranges come with the window indexes (mprof__lod_index()),
 * whose pass over the samples finds them. */
static int group_samples(mprof_model_t *m) {
  size_t n = m->view.sample_count, c = m->view.counter_count;
  int grouped = count_samples(m) && n > 0;
  mprof_sample_t *sorted =
      grouped ? m->samples : malloc((n ? n : 1) * sizeof *sorted);
  if (!sorted && !grouped) return MPROF_ENOMEM;
  uint32_t next = 0;
  for (size_t i = 0; i < c; i++) {
    m->counters[i].first_sample = next;
    next += m->counters[i].sample_count;
  }
  if (!grouped) {
    for (size_t i = 0; i < c; i++) m->counters[i].sample_count = 0;
    for (size_t i = 0; i < n; i++) {
      mprof_counter_series_t *s = &m->counters[m->sample_counter[i]];
      sorted[s->first_sample + s->sample_count++] = m->samples[i];
    }
    free(m->samples);
    m->samples = sorted;
    m->sample_cap = n ? n : 1;
  }
  m->view.samples = m->samples;
  return sort_counters(m);
}

int mprof_model_finish(mprof_model_t *m) {
  if (m->finished) return MPROF_EINVAL;
  m->finished = 1;
  if (close_streams(m)) return MPROF_ENOMEM;
  group_labels(m);
  settle_endings(m);
  if (mprof__layout(m)) return MPROF_ENOMEM;
  settle_arrows(m);
  sort_arrows_and_bands(m);
  if (group_samples(m)) return MPROF_ENOMEM;
  m->view.threads = m->threads;
  m->view.arrows = m->arrows;
  m->view.labels = m->labels;
  m->view.running = m->running;
  m->view.bands = m->bands;
  m->view.counters = m->counters;
  m->view.strings = m->strings;
  return mprof__lod_index(m);
}

void mprof_model_free(mprof_model_t *m) {
  if (!m) return;
  mprof__lod_free(m);
  free(m->threads);
  free(m->arrows);
  free(m->labels);
  free(m->running);
  free(m->bands);
  free(m->counters);
  free(m->counter_values);
  free(m->counter_ids);
  free(m->samples);
  free(m->sample_counter);
  free(m->strings);
  free(m->hash_ids);
  free(m->hash_threads);
  free(m->direct);
  free(m->streams);
  free(m->row_first);
  free(m->row_thread_start); /* row_thread_maxend, row_threads share it */
  free(m->row_running_first);
  free(m->running_start); /* running_maxend shares its block */
  free(m);
}

const mprof_model_view_t *mprof_model_view(const mprof_model_t *m) {
  return &m->view;
}

uint32_t mprof_model_stream_id(const mprof_model_t *m, uint32_t index) {
  return index < m->stream_count ? m->streams[index].id : 0;
}

uint32_t mprof_model_find(const mprof_model_t *m, uint64_t id) {
  if (id == MPROF_NONE) return MPROF_ROOT_THREAD;
  uint32_t i = *id_ref(m, id);
  return i == MPROF_NO_THREAD ? i : mprof__follow_merges(m, i);
}

const char *mprof_model_thread_name(const mprof_model_t *m, uint32_t thread,
                                    char *buf, size_t size) {
  if (size == 0) return buf;
  buf[0] = 0;
  if (thread >= m->view.thread_count) return buf;
  const mprof_thread_t *t = &m->threads[thread];
  size_t n = 0;
  if (t->label_count) {
    const char *text = m->strings + m->labels[t->first_label].text;
    for (; text[n] && n + 1 < size; n++) buf[n] = text[n];
    buf[n] = 0;
    return buf;
  }
  const char *type = thread == MPROF_ROOT_THREAD ? "root"
                     : (t->flags & MPROF_THREAD_PREEXISTING)
                         ? "preexisting"
                         : mprof_type_name((mprof_type_t)t->type);
  char digits[24];
  size_t d = 0;
  uint64_t id = t->id;
  do digits[d++] = (char)('0' + id % 10);
  while ((id /= 10) && d < sizeof digits);
  for (; *type && n + 1 < size; type++) buf[n++] = *type;
  if (thread != MPROF_ROOT_THREAD && n + 1 < size) buf[n++] = '#';
  while (thread != MPROF_ROOT_THREAD && d > 0 && n + 1 < size)
    buf[n++] = digits[--d];
  buf[n] = 0;
  return buf;
}
