/* scene_stream.c -- a trace's picture summary (scene_stream.h) in one pass:
 * events come in time order from the model's merge (load.c) and are
 * applied with the model's rules (events.c: what a switch, a creation,
 * an ending, a merge and an idle band do; time that never goes backwards
 * on a stream; an unknown id is a thread from before the trace), to
 * state that lives only while it can still change the picture:
 *
 *  - a thread's record (its id, row, start, end, type, flags) is in a
 *    table by id from its creation; once it has ended its line is drawn,
 *    its row is free from then on, and the record waits RETIRE_EVENTS
 *    more events (a read of a resolved promise names it soon after) before
 *    it is dropped;
 *  - per OS-thread stream what runs there since when, and an idle band
 *    open;
 *  - per row the time it is busy until (a min segment tree: the first free
 *    row from the one a thread wants is found in O(log rows)).
 *
 * A thread that never ends keeps its row to the end of the trace (where
 * the model ends it MODEL_PENDING_TAIL_NS after it was last seen, and
 * frees its row then): the layout is that of a viewer that cannot look
 * ahead.  Memory: the picture, the threads alive, RETIRE_EVENTS records,
 * the rows used at once.
 */
#include <string.h>

#include "idtable.h"
#include "model_internal.h"
#include "scene_stream.h"

/* Events after its end that a thread's record is kept for. */
#define RETIRE_EVENTS 65536
/* Merges followed at most (a cycle in bad input is cut). */
#define MAX_HOPS 1000
/* A thread hinted to resolve through one that became it. */
#define HINTED 0x80

typedef struct srec_s {
  uint64_t id, becomes_id;
  int64_t start_ns, end_ns, last_seen_ns; /* end INT64_MAX while open */
  uint32_t row;
  uint16_t type;
  uint8_t ending, flags;
  uint8_t merged; /* became becomes_id */
  uint8_t names;  /* it names its row, until its first label */
  char *label;    /* its first label (NULL: none yet) */
} srec_t;

/* What an id of a dropped record names: a thread that ended long ago,
 * inert (what names it adds nothing to the picture: its line is over);
 * what a stream runs when a thread is dropped while it ran (its span is
 * drawn, to its end).  Never written. */
static srec_t retired_record = {.end_ns = INT64_MIN,
                                .ending = MPROF_ENDING_RESOLVED};
#define RETIRED (&retired_record)

typedef struct sstream_s {
  uint32_t id;
  srec_t *current;
  int64_t run_start_ns, idle_start_ns, last_ns;
  uint64_t events;        /* its events so far */
  mprof__endings_t ended; /* threads its events ended, to drop */
} sstream_t;

typedef struct pass_s {
  mprof_cells_t *cells;
  uint64_t start_ticks;
  double ns_per_tick;
  int have_base;
  int64_t duration_ns;
  mprof__idmap_t table; /* id -> record */
  sstream_t *streams;
  size_t stream_count, stream_cap;
  mprof__idset_t retired; /* ids of dropped records */
  srec_t **orphans;       /* open threads whose id was created again */
  size_t orphan_count, orphan_cap;
  int64_t *busy; /* min tree: leaves [rows, 2 rows): busy until */
  size_t rows;
} pass_t;

/* id's entry if it is rec's, dropped (returns whether it was). */
static int table_remove(pass_t *p, uint64_t id, const srec_t *rec) {
  size_t i = mprof__idmap_slot(&p->table, id);
  if (p->table.slots[i].value != rec) return 0;
  mprof__idmap_clear(&p->table, i);
  return 1;
}

/* --- Records by id -------------------------------------------------------- */

/* id's record, following merges as the model's id map does; NULL if
 * none. */
static srec_t *record_of(const pass_t *p, uint64_t id) {
  srec_t *rec = mprof__idmap_get(&p->table, id);
  for (int hops = 0; rec && rec->merged && hops < MAX_HOPS; hops++) {
    srec_t *next = mprof__idmap_get(&p->table, rec->becomes_id);
    if (!next) break;
    rec = next;
  }
  return rec;
}

/* --- Rows ----------------------------------------------------------------- */

static void busy_set(pass_t *p, size_t row, int64_t until) {
  size_t i = p->rows + row;
  p->busy[i] = until;
  for (i /= 2; i > 0; i /= 2)
    p->busy[i] = p->busy[2 * i] < p->busy[2 * i + 1] ? p->busy[2 * i]
                                                     : p->busy[2 * i + 1];
}

static int rows_grow(pass_t *p) {
  size_t rows = p->rows ? p->rows * 2 : 64;
  int64_t *busy = malloc(2 * rows * sizeof *busy);
  if (!busy) return MPROF_ENOMEM;
  for (size_t i = 0; i < 2 * rows; i++) busy[i] = INT64_MIN;
  int64_t *old = p->busy;
  size_t old_rows = p->rows;
  p->busy = busy, p->rows = rows;
  for (size_t r = 0; r < old_rows; r++) busy_set(p, r, old[old_rows + r]);
  free(old);
  return 0;
}

/* The first row >= from free before `start` under node (rows [lo, hi)),
 * or SIZE_MAX. */
static size_t first_free(const pass_t *p, size_t node, size_t lo, size_t hi,
                         size_t from, int64_t start) {
  if (hi <= from || p->busy[node] >= start) return SIZE_MAX;
  if (hi - lo == 1) return lo;
  size_t mid = lo + (hi - lo) / 2;
  size_t found = first_free(p, 2 * node, lo, mid, from, start);
  return found != SIZE_MAX ? found
                           : first_free(p, 2 * node + 1, mid, hi, from, start);
}

/* Give rec a row: the first free at its start from the one below its
 * creator (the creator's own if it ended; the top for the root's). */
static int place(pass_t *p, srec_t *rec, const srec_t *creator) {
  size_t want = !creator                           ? 0
                : creator->end_ns <= rec->start_ns ? creator->row
                                                   : (size_t)creator->row + 1;
  size_t row;
  while ((row = first_free(p, 1, 0, p->rows, want, rec->start_ns)) == SIZE_MAX)
    if (rows_grow(p)) return MPROF_ENOMEM;
  busy_set(p, row, INT64_MAX);
  rec->row = (uint32_t)row;
  mprof_cells_t *c = p->cells;
  if (row + 1 > c->row_count) c->row_count = (uint32_t)row + 1;
  if (row < c->rows && !c->names[row * MPROF_CELLS_NAME]) {
    char name[MPROF_CELLS_NAME];
    mprof_cells_default_name(rec->type, rec->flags, rec->id, name, sizeof name);
    mprof_cells_name(c, (uint32_t)row, name, sizeof name, 0);
    rec->names = 1;
  }
  return 0;
}

/* --- Threads -------------------------------------------------------------- */

static void record_free(srec_t *rec) {
  free(rec->label);
  free(rec);
}

/* A new record for id from t, placed; NULL when memory runs out. */
static srec_t *record_new(pass_t *p, uint64_t id, int64_t t, uint16_t type,
                          uint8_t flags, const srec_t *creator) {
  srec_t *rec = malloc(sizeof *rec);
  if (!rec) return NULL;
  *rec = (srec_t){id,    0, t, INT64_MAX, t, 0, type, MPROF_ENDING_PENDING,
                  flags, 0, 0, NULL};
  if (place(p, rec, creator) || mprof__idmap_reserve(&p->table)) {
    record_free(rec);
    return NULL;
  }
  mprof__idmap_put(&p->table, id, rec);
  return rec;
}

/* The record an event's id names (NULL: the root; RETIRED: a record
 * dropped), seen at t; an id never seen is a thread from before the
 * trace. */
static srec_t *thread_of(pass_t *p, uint64_t id, int64_t t, int *err) {
  if (id == MPROF_NONE) return NULL;
  srec_t *rec = record_of(p, id);
  if (!rec && mprof__idset_has(&p->retired, id)) return RETIRED;
  if (!rec && !(rec = record_new(p, id, t, MPROF_UNKNOWN,
                                 MPROF_THREAD_PREEXISTING, NULL))) {
    *err = MPROF_ENOMEM;
    return NULL;
  }
  if (rec != RETIRED && rec->last_seen_ns < t) rec->last_seen_ns = t;
  return rec;
}

static uint8_t line_bits(const srec_t *rec) {
  if (rec->ending != MPROF_ENDING_FAILED) return MPROF_CELL_LINE;
  return MPROF_CELL_LINE |
         (rec->flags & MPROF_THREAD_STALLED ? MPROF_CELL_STALLED
                                            : MPROF_CELL_FAILED);
}

static uint32_t seen_bits(const srec_t *rec) {
  uint8_t bits = line_bits(rec);
  return bits & MPROF_CELL_STALLED  ? MPROF_SEEN_STALLED
         : bits & MPROF_CELL_FAILED ? MPROF_SEEN_FAILED
                                    : MPROF_SEEN_THREAD;
}

/* rec's line, and its name on it where it is wide.  Returns 0 or
 * MPROF_ENOMEM. */
static int draw_line(pass_t *p, const srec_t *rec) {
  int64_t end = rec->end_ns < rec->start_ns ? rec->start_ns : rec->end_ns;
  mprof_cells_line(p->cells, rec->row, rec->start_ns, end, line_bits(rec));
  p->cells->seen |= seen_bits(rec);
  char name[MPROF_CELLS_NAME];
  if (!rec->label)
    mprof_cells_default_name(rec->type, rec->flags, rec->id, name, sizeof name);
  const char *text = rec->label ? rec->label : name;
  return mprof_cells_label(p->cells, rec->row, rec->start_ns, end, text,
                           strlen(text));
}

/* rec ends at t by an event of s: its line is drawn, its row free after
 * t, and it waits on s to be dropped.  Returns 0 or MPROF_ENOMEM. */
static int thread_end(pass_t *p, sstream_t *s, srec_t *rec, int64_t t,
                      uint8_t ending) {
  int64_t was = rec->end_ns;
  rec->end_ns = t;
  rec->ending = ending;
  int err = draw_line(p, rec);
  if (err) return err;
  /* an ended thread that merges later ends again: its row, if still its */
  if (was == INT64_MAX || p->busy[p->rows + rec->row] == was)
    busy_set(p, rec->row, t);
  if (was != INT64_MAX) return 0; /* waiting already */
  return mprof__endings_push(&s->ended, rec, s->events);
}

/* --- Streams -------------------------------------------------------------- */

static sstream_t *stream_of(pass_t *p, uint32_t id, int64_t t) {
  for (size_t i = 0; i < p->stream_count; i++)
    if (p->streams[i].id == id) return &p->streams[i];
  if (mprof__grow(&p->streams, &p->stream_cap, p->stream_count + 1,
                  sizeof *p->streams))
    return NULL;
  sstream_t *s = &p->streams[p->stream_count++];
  *s = (sstream_t){id, NULL, t, -1, t, 0, {NULL, 0, 0, 0}};
  return s;
}

/* The span [from, to) of rec, clipped to its line, as running. */
static void draw_span(pass_t *p, const srec_t *rec, int64_t from, int64_t to) {
  if (from < rec->start_ns) from = rec->start_ns;
  if (to > rec->end_ns) to = rec->end_ns;
  if (to <= from) return;
  mprof_cells_mark(p->cells, rec->row, from, to, MPROF_CELL_RUNNING);
  p->cells->seen |= MPROF_SEEN_RUNNING;
}

static void stream_switch(pass_t *p, sstream_t *s, srec_t *next, int64_t t) {
  if (next == s->current) return;
  if (s->current && s->current != RETIRED && t > s->run_start_ns)
    draw_span(p, s->current, s->run_start_ns, t);
  s->current = next;
  s->run_start_ns = t;
}

static void idle_begin(pass_t *p, sstream_t *s, int64_t t) {
  if (s->idle_start_ns < 0) s->idle_start_ns = t;
  stream_switch(p, s, NULL, t);
}

static void idle_end(pass_t *p, sstream_t *s, int64_t t) {
  if (s->idle_start_ns < 0) return;
  mprof_cells_idle(p->cells, s->idle_start_ns, t);
  s->idle_start_ns = -1;
}

/* Drop the records that s's events ended RETIRE_EVENTS of its events ago
 * (other OS threads may go on for long while this one sleeps): a stream that
 * still runs one has its span drawn now (to its end, as the model clips
 * it), and runs the retired from then on.  Returns 0 or MPROF_ENOMEM. */
static int retire_due(pass_t *p, sstream_t *s, int64_t now) {
  while (s->ended.count &&
         s->ended.at[s->ended.first].at_event + RETIRE_EVENTS <= s->events) {
    srec_t *rec = mprof__endings_pop(&s->ended);
    for (size_t i = 0; i < p->stream_count; i++)
      if (p->streams[i].current == rec) {
        draw_span(p, rec, p->streams[i].run_start_ns, now);
        p->streams[i].current = RETIRED;
      }
    int err = table_remove(p, rec->id, rec)
                  ? mprof__idset_add(&p->retired, rec->id)
                  : 0;
    record_free(rec);
    if (err) return err;
  }
  return 0;
}

/* --- Events --------------------------------------------------------------- */

/* An arrow the model draws (none to itself or the root), its ends placed
 * as mprof_model_arrow_ends() places them: an ended source's end. */
static void arrow(pass_t *p, uint32_t kind, const srec_t *from,
                  const srec_t *to, int64_t t) {
  if (!from || !to || from == to || from == RETIRED || to == RETIRED) return;
  int64_t from_ns = t, to_ns = t;
  if (kind == MPROF_ARROW_READ && from->ending == MPROF_ENDING_FAILED)
    kind = MPROF_ARROW_READ_FAILED;
  if ((kind == MPROF_ARROW_READ || kind == MPROF_ARROW_READ_FAILED ||
       kind == MPROF_ARROW_RESOLVE) &&
      from->end_ns < t)
    from_ns = from->end_ns;
  else if (kind == MPROF_ARROW_TRY_READ && to->end_ns < t)
    to_ns = to->end_ns;
  mprof_cells_arrow(p->cells, kind, from->row, to->row, from_ns, to_ns, t);
}

/* Keep an open record whose id is made again: it is drawn at the end. */
static int orphan(pass_t *p, srec_t *rec) {
  if (mprof__grow(&p->orphans, &p->orphan_cap, p->orphan_count + 1,
                  sizeof *p->orphans))
    return MPROF_ENOMEM;
  p->orphans[p->orphan_count++] = rec;
  return 0;
}

static int thread_create(pass_t *p, const mprof_event_t *ev, srec_t *creator,
                         int64_t t) {
  srec_t *child = mprof__idmap_get(&p->table, ev->a);
  if (child && child->flags & MPROF_THREAD_PREEXISTING && !child->merged) {
    /* seen before its creation (clocks of two streams disagree) */
    child->flags &= (uint8_t)~MPROF_THREAD_PREEXISTING;
    child->start_ns = t;
    child->type = (uint16_t)ev->type;
  } else {
    if (child && child->end_ns == INT64_MAX && orphan(p, child))
      return MPROF_ENOMEM;
    child = record_new(p, ev->a, t, (uint16_t)ev->type, 0, creator);
    if (!child) return MPROF_ENOMEM;
  }
  arrow(p, MPROF_ARROW_CREATE, creator, child, t);
  return 0;
}

static int thread_resolve(pass_t *p, sstream_t *s, srec_t *resolver,
                          const mprof_event_t *ev, int64_t t) {
  int err = 0;
  srec_t *target = thread_of(p, ev->a, t, &err);
  if (err) return err;
  if (target && target->ending == MPROF_ENDING_PENDING &&
      (err = thread_end(p, s, target, t,
                        ev->kind == MPROF_EVENT_FAIL ? MPROF_ENDING_FAILED
                                                     : MPROF_ENDING_RESOLVED)))
    return err;
  arrow(p, MPROF_ARROW_RESOLVE, resolver, target, t);
  return 0;
}

static int thread_becomes(pass_t *p, sstream_t *s, const mprof_event_t *ev,
                          int64_t t) {
  int err = 0;
  srec_t *old = thread_of(p, ev->a, t, &err);
  srec_t *next = err ? NULL : thread_of(p, ev->b, t, &err);
  if (err || !old || !next || old == next || old == RETIRED || next == RETIRED)
    return err; /* a merge into itself (or the root): nothing to draw */
  if ((err = thread_end(p, s, old, t, MPROF_ENDING_MERGED))) return err;
  old->merged = 1;
  old->becomes_id = next->id;
  if (old->flags & (MPROF_THREAD_SHOULD_RESOLVE | HINTED))
    next->flags |= HINTED;
  /* a stream running the old thread runs the new one: one line goes on */
  for (size_t i = 0; i < p->stream_count; i++)
    if (p->streams[i].current == old) stream_switch(p, &p->streams[i], next, t);
  arrow(p, MPROF_ARROW_BECOMES, old, next, t);
  return 0;
}

/* A thread's first label names it, and its row if it is the row's
 * first. */
static int label(pass_t *p, const mprof_event_t *ev, int64_t t) {
  int err = 0;
  srec_t *rec = thread_of(p, ev->a, t, &err);
  if (!rec || rec == RETIRED || rec->label) return err;
  size_t n = ev->text_length < MPROF_CELLS_NAME ? ev->text_length
                                                : MPROF_CELLS_NAME - 1;
  if (!(rec->label = malloc(n + 1))) return MPROF_ENOMEM;
  memcpy(rec->label, ev->text, n);
  rec->label[n] = 0;
  if (rec->names) mprof_cells_name(p->cells, rec->row, ev->text, n, 1);
  rec->names = 0;
  return err;
}

/* A counter's name or value, as the model's counter_update() (of one past
 * MPROF_CELLS_COUNTERS: nothing). */
static int counter_event(pass_t *p, const mprof_event_t *ev, int64_t t) {
  uint32_t k;
  int err = mprof_cells_counter(p->cells, ev->counter, &k);
  if (err) return err == MPROF_EINVAL ? 0 : err;
  mprof_cell_counter_t *counter = &p->cells->counters[k];
  if (ev->kind == MPROF_EVENT_COUNTER_NAME) {
    size_t n = ev->text_length < MPROF_CELLS_NAME ? ev->text_length
                                                  : MPROF_CELLS_NAME - 1;
    memcpy(counter->name, ev->text, n);
    counter->name[n] = 0;
    return 0;
  }
  int64_t value =
      ev->kind == MPROF_EVENT_COUNTER_INCREASE
          ? (int64_t)((uint64_t)counter->value + (uint64_t)ev->value)
          : ev->value;
  mprof_cells_sample(p->cells, k, t, value);
  return 0;
}

static int apply_event(pass_t *p, const mprof_event_t *ev, sstream_t *s,
                       int64_t t) {
  int err = 0;
  srec_t *actor = thread_of(p, ev->thread, t, &err), *other;
  if (err) return err;
  switch (ev->kind) {
  case MPROF_EVENT_SWITCH:
    other = thread_of(p, ev->a, t, &err);
    if (other) idle_end(p, s, t);
    stream_switch(p, s, other, t);
    return err;
  case MPROF_EVENT_SUSPEND: idle_begin(p, s, t); return 0;
  case MPROF_EVENT_CREATE: return thread_create(p, ev, actor, t);
  case MPROF_EVENT_CREATE_BY:
    other = thread_of(p, ev->b, t, &err);
    return err ? err : thread_create(p, ev, other, t);
  case MPROF_EVENT_READ:
  case MPROF_EVENT_TRY_READ:
  case MPROF_EVENT_SIGNAL:
    if (ev->kind == MPROF_EVENT_READ && !actor) return 0; /* by nobody */
    other = thread_of(p, ev->a, t, &err);
    if (ev->kind == MPROF_EVENT_READ)
      arrow(p, MPROF_ARROW_READ, other, actor, t);
    else
      arrow(p,
            ev->kind == MPROF_EVENT_SIGNAL ? MPROF_ARROW_SIGNAL
                                           : MPROF_ARROW_TRY_READ,
            actor, other, t);
    return err;
  case MPROF_EVENT_RESOLVE:
  case MPROF_EVENT_FAIL: return thread_resolve(p, s, actor, ev, t);
  case MPROF_EVENT_BECOMES: return thread_becomes(p, s, ev, t);
  case MPROF_EVENT_LABEL: return label(p, ev, t);
  case MPROF_EVENT_SHOULD_RESOLVE:
    other = thread_of(p, ev->a, t, &err);
    if (other && other != RETIRED) other->flags |= MPROF_THREAD_SHOULD_RESOLVE;
    return err;
  case MPROF_EVENT_COUNTER_NAME:
  case MPROF_EVENT_COUNTER_INCREASE:
  case MPROF_EVENT_COUNTER_VALUE: return counter_event(p, ev, t);
  default: return 0; /* strings: the reader resolved labels */
  }
}

/* One event at t on stream s, as the model's add_event(). */
static int add_event(pass_t *p, const mprof_event_t *ev, sstream_t *s,
                     int64_t t) {
  if (!s->current && s->idle_start_ns < 0 && ev->thread != MPROF_NONE &&
      ev->kind != MPROF_EVENT_SWITCH) {
    /* the stream's first event: what ran when its packet began */
    int err = 0;
    srec_t *running = thread_of(p, ev->thread, t, &err);
    if (err) return err;
    s->current = running;
    s->run_start_ns = t;
  }
  return apply_event(p, ev, s, t);
}

/* Feed r's events up to the first whose clock is past limit (the pair
 * merge's step, as the model's feed_upto()). */
static inline __attribute__((always_inline)) int
pass_feed(void *state, mprof__run_t *r, uint64_t limit) {
  pass_t *p = state;
  size_t i = r->at;
  int err = 0;
  for (; i < r->count && r->events[i].time_ticks <= limit; i++) {
    const mprof_event_t *ev = &r->events[i];
    int64_t t = mprof__event_ns(ev->time_ticks, p->start_ticks, p->ns_per_tick);
    sstream_t *s = stream_of(p, ev->stream, t);
    if (!s) {
      err = MPROF_ENOMEM;
      break;
    }
    if (t < s->last_ns) t = s->last_ns; /* time never goes backwards */
    s->last_ns = t;
    if (t > p->duration_ns) p->duration_ns = t;
    p->cells->events++;
    if ((err = add_event(p, ev, s, t))) {
      i++;
      break;
    }
    s->events++;
    if (s->ended.count && (err = retire_due(p, s, t))) {
      i++;
      break;
    }
  }
  r->at = i;
  return err;
}

static int pass_add_pair(void *sink, mprof__run_t *x, mprof__run_t *y) {
  pass_t *p = sink;
  uint64_t first;
  if (!mprof__pair_first(x, y, &first)) return 0;
  if (!p->have_base) {
    p->start_ticks = first;
    p->have_base = 1;
  }
  return mprof__pair_turns(p, pass_feed, x, y);
}

static int pass_begin(void *sink, uint64_t clock_freq_hz, int legacy) {
  pass_t *p = sink;
  if (!clock_freq_hz || legacy) return MPROF_EINVAL;
  p->ns_per_tick = 1e9 / (double)clock_freq_hz;
  return 0;
}

/* --- The end -------------------------------------------------------------- */

/* An open thread at the end: a hinted one stalled (failed at the end of
 * the trace), any other ended MODEL_PENDING_TAIL_NS after it was last
 * seen; its line is drawn once the streams are closed (their spans are
 * clipped to it). */
static int settle(pass_t *p, srec_t *rec) {
  if (rec->end_ns != INT64_MAX) return 0;
  int64_t end = p->duration_ns;
  if (rec->flags & (MPROF_THREAD_SHOULD_RESOLVE | HINTED)) {
    rec->flags |= MPROF_THREAD_STALLED;
    rec->ending = MPROF_ENDING_FAILED;
  } else if (rec->last_seen_ns < end - MODEL_PENDING_TAIL_NS) {
    end = rec->last_seen_ns + MODEL_PENDING_TAIL_NS;
  }
  rec->end_ns = end < rec->start_ns ? rec->start_ns : end;
  return draw_line(p, rec);
}

/* Settle the open threads, then close the streams.  Returns 0 or
 * MPROF_ENOMEM. */
static int finish(pass_t *p) {
  int err = 0;
  for (size_t i = 0; i < p->table.cap && !err; i++)
    if (p->table.slots[i].value) err = settle(p, p->table.slots[i].value);
  for (size_t i = 0; i < p->orphan_count && !err; i++)
    err = settle(p, p->orphans[i]);
  for (size_t i = 0; i < p->stream_count; i++) {
    stream_switch(p, &p->streams[i], NULL, p->duration_ns);
    idle_end(p, &p->streams[i], p->duration_ns);
  }
  return err;
}

/* Free every record: those waiting to be dropped (marked first, as the
 * table may hold them too), those in the table, the orphans. */
static void pass_free(pass_t *p) {
  for (size_t i = 0; i < p->stream_count; i++) {
    mprof__endings_t *q = &p->streams[i].ended;
    for (size_t k = 0; k < q->count; k++) {
      srec_t *ended = mprof__endings_at(q, k)->thread;
      ended->id = MPROF_NONE;
    }
  }
  for (size_t i = 0; i < p->table.cap; i++) {
    srec_t *rec = p->table.slots[i].value;
    if (rec && rec->id != MPROF_NONE) record_free(rec);
  }
  for (size_t i = 0; i < p->stream_count; i++) {
    mprof__endings_t *q = &p->streams[i].ended;
    while (q->count) record_free(mprof__endings_pop(q));
    free(q->at);
  }
  for (size_t i = 0; i < p->orphan_count; i++) record_free(p->orphans[i]);
  mprof__idmap_free(&p->table);
  mprof__idset_free(&p->retired);
  free(p->streams);
  free(p->orphans);
  free(p->busy);
}

int mprof_cells_stream(const mprof_trace_t *trace, mprof_cells_t *cells,
                       mprof_progress_fn progress, void *progress_context) {
  pass_t p = {.cells = cells};
  int err = mprof__idmap_reserve(&p.table);
  if (!err) err = rows_grow(&p);
  mprof__merge_t merge = {
      pass_begin, pass_add_pair, &p, progress, progress_context, 0, 0, 0, 0};
  if (!err) err = mprof__merge_traces(&trace, 1, NULL, &merge);
  if (!err) err = finish(&p);
  if (!err) mprof_cells_end(cells);
  pass_free(&p);
  return err;
}
