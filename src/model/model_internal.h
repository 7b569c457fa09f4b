/* model_internal.h -- the model's private state, shared by its files:
 * intern.c keeps its strings and maps trace ids to threads, events.c
 * builds it from events, finish.c completes it once they are all in,
 * load.c feeds it a trace, layout.c gives threads rows, lod.c answers
 * "what is in this window", analysis.c finds the problems. */
#ifndef MPROF_MODEL_INTERNAL_H
#define MPROF_MODEL_INTERNAL_H

#include <stdlib.h>

#include "mprof/model.h"

/* Times are clamped to this (about 73 years), so that adding a duration
 * to one never overflows. */
#define MODEL_MAX_NS (INT64_MAX / 4)

/* A thread's row until the layout gives it one. */
#define MODEL_ROW_UNPLACED UINT32_MAX

/* A thread that is never resolved ends this long after it was last seen:
 * it was most likely collected unseen, and mirage-trace-viewer ends it the
 * same way, so that both draw a trace alike. */
#define MODEL_PENDING_TAIL_NS 1000

/* The failure of a should_resolve thread that never resolved. */
#define MODEL_STALLED_TEXT "should_resolve thread never resolved"

/* Texts remembered for interning once (intern.c). */
#define MODEL_TEXT_CACHE 64

/* Per OS-thread stream, while building. */
typedef struct stream_state_s {
  uint32_t id;           /* stream number in the trace */
  uint32_t current;      /* running thread, or MPROF_NO_THREAD */
  int64_t run_start_ns;  /* when current started running */
  int64_t idle_start_ns; /* an open idle band, or -1 */
  int64_t last_ns;       /* time of its latest event */
} stream_state_t;

/* Counter value summaries for bounded-work range queries: level k holds
 * the min and max of each block of 64^(k+1) samples. */
#define MODEL_PYRAMID_FANOUT 64
#define MODEL_PYRAMID_LEVELS 4
typedef struct pyramid_s {
  int64_t *min[MODEL_PYRAMID_LEVELS], *max[MODEL_PYRAMID_LEVELS];
  size_t count[MODEL_PYRAMID_LEVELS];
} pyramid_t;

/* The high halves of one time field of an array of compact records, as
 * they are built (mprof_time_highs_t reads them): records are added in
 * index order, and a run begins where the high half changes.  The blocks'
 * runs are found when the view is published (mprof__records_publish()),
 * so that adding a record looks at its high half only. */
typedef struct mprof__highs_s {
  uint32_t *block_run;
  size_t block_cap;
  size_t *run_first; /* run_count + 1 entries: the last is SIZE_MAX */
  uint32_t *run_high;
  size_t run_count, run_cap; /* run_cap: of both arrays */
  /* The last run's high half plus one; 0 while there is no run (a zeroed
   * struct has none) and while by_record. */
  uint64_t last_tag;
  /* Where runs were too many (mprof_time_highs_t): each record's high
   * half, the runs freed; records added later go there too. */
  int by_record;
  uint32_t *record_high;
  size_t record_cap;
  size_t expect; /* records to come, where known: record_high's size */
} mprof__highs_t;

struct mprof_model_s {
  mprof_model_view_t view; /* what views read; arrays below back it */
  double ns_per_tick;
  int legacy;
  int have_base;
  int finished;
  size_t failed_threads; /* threads that ended failed (so far) */
  int arrows_unordered;  /* an arrow was added before an earlier one */
  int threads_unordered; /* a thread starts before one numbered lower
                            (found by the finish's pass over threads) */

  mprof_thread_t *threads;
  size_t thread_cap;
  /* The compact records (compact.c) and their times' high halves. */
  mprof_arrow_rec_t *arrows;
  size_t arrow_cap;
  mprof__highs_t arrow_times;
  int64_t last_arrow_ns; /* the latest arrow's time (building) */
  mprof_label_rec_t *labels;
  size_t label_cap;
  mprof__highs_t label_times;
  mprof_span_rec_t *running;
  size_t running_cap;
  mprof__highs_t running_starts, running_ends;
  mprof_band_rec_t *bands;
  size_t band_cap;
  mprof__highs_t band_starts, band_ends;
  mprof_counter_series_t *counters;
  size_t counter_cap;
  int64_t *counter_values;     /* each counter's current value (building) */
  uint32_t *counter_ids;       /* each counter's id in the trace (building) */
  uint32_t *sample_lows;       /* samples: each time's low half, */
  int64_t *sample_values;      /* its value, */
  size_t sample_cap;           /* (both arrays this long) */
  mprof__highs_t sample_times; /* and the times' high halves */
  uint32_t *sample_counter;    /* each sample's counter (building) */
  char *strings;
  size_t string_size, string_cap;
  uint32_t text_cache[MODEL_TEXT_CACHE]; /* see intern_text() */

  /* id -> thread index: ids below direct_cap index direct[], others an
   * open-addressing table; a merged thread's entry is pointed at its
   * successor. */
  uint32_t *direct;
  size_t direct_cap;
  uint64_t *hash_ids;
  uint32_t *hash_threads;
  size_t hash_cap, hash_used;

  stream_state_t *streams;
  size_t stream_count, stream_cap;
  size_t last_stream; /* cache: the stream of the previous event */

  /* Layout (layout.c): threads and running spans grouped by row. */
  uint32_t *row_first;   /* row r: row_threads[row_first[r] ..r+1) */
  uint32_t *row_threads; /* thread indexes, by start */
  int64_t *row_thread_start,
      *row_thread_maxend;      /* one block, with row_threads */
  uint32_t *row_running_first; /* row r: running[first[r] ..r+1) */
  int64_t *running_maxend;     /* prefix maximum of their ends, by row */

  pyramid_t *pyramids;              /* one per counter */
  struct mprof__placing_s *placing; /* rows given while settling (layout.c) */
};

/* --- Compact records (compact.c) --------------------------------------- */

/* The low half of a time, kept in a compact record. */
static inline uint32_t mprof__low_of(int64_t t) {
  return (uint32_t)(uint64_t)t;
}

/* mprof__highs_add() where record i begins a run (or the highs are
 * by_record). */
int mprof__highs_add_run(mprof__highs_t *h, size_t i, uint32_t high);

/* Note that record i, the array's next, holds time t (its low half is the
 * caller's to keep).  Returns 0 or MPROF_ENOMEM.  Inline: most records
 * share their run with the one before, and add nothing. */
static inline int mprof__highs_add(mprof__highs_t *h, size_t i, int64_t t) {
  uint64_t high = (uint64_t)t >> 32;
  if (high + 1 == h->last_tag) return 0;
  return mprof__highs_add_run(h, i, (uint32_t)high);
}

/* Note the run of each block of the array's first count records (all of
 * them, added already), or keep each record's high half instead where the
 * runs are more than one in MPROF_TIME_RUNS_MOST records.  Returns 0 or
 * MPROF_ENOMEM. */
int mprof__highs_index(mprof__highs_t *h, size_t count);

/* mprof_time_at() for a pass over an array in index order: the run of
 * the record read before (none before the first), and the first record
 * past it, so that a record in the same run is read in a compare and no
 * block is looked up. */
typedef struct mprof__onward_s {
  const mprof_time_highs_t *h;
  size_t run, next;
  uint64_t high; /* the run's high half, in place */
} mprof__onward_t;

static inline mprof__onward_t mprof__onward(const mprof_time_highs_t *h) {
  mprof__onward_t o = {h, 0, 0, 0};
  return o;
}

/* Where record i is past o's run: its high half looked up. */
static inline void mprof__onward_step(mprof__onward_t *o, size_t i) {
  const mprof_time_highs_t *h = o->h;
  if (h->record_high) {
    o->high = (uint64_t)h->record_high[i] << 32;
    o->next = i + 1;
    return;
  }
  while (h->run_first[o->run + 1] <= i) o->run++;
  o->high = (uint64_t)h->run_high[o->run] << 32;
  o->next = h->run_first[o->run + 1];
}

static inline int64_t mprof__time_onward(mprof__onward_t *o, size_t i,
                                         uint32_t low) {
  if (i >= o->next) mprof__onward_step(o, i);
  return (int64_t)(o->high | low);
}

/* A pass over the running spans in index order reads them a stretch at
 * a time (from[0]: the starts' onward, from[1]: the ends'): records i up
 * to the one returned (n at most) share their high halves, those the
 * readers hold, and are read (mprof__running_in()) with no look-up. */
static inline size_t mprof__running_stretch(mprof__onward_t from[2], size_t i,
                                            size_t n) {
  if (i >= from[0].next) mprof__onward_step(&from[0], i);
  if (i >= from[1].next) mprof__onward_step(&from[1], i);
  size_t stop = from[0].next < from[1].next ? from[0].next : from[1].next;
  return stop < n ? stop : n;
}

static inline mprof_span_t mprof__running_in(const mprof_span_rec_t *r,
                                             const mprof__onward_t from[2]) {
  mprof_span_t s = {(int64_t)(from[0].high | r->start_low),
                    (int64_t)(from[1].high | r->end_low), r->thread, r->stream};
  return s;
}

/* How the view reads h (after mprof__highs_index()). */
mprof_time_highs_t mprof__highs_view(const mprof__highs_t *h);

/* Forget every record's high half (the runs' memory is kept), to add them
 * again from record 0: expect of them, if known (else 0). */
void mprof__highs_clear(mprof__highs_t *h, size_t expect);

void mprof__highs_free(mprof__highs_t *h);

/* Sort the arrows, bands or labels by compare (a qsort() comparison of
 * mprof_arrow_t, mprof_band_t or mprof_label_t): the compact records are
 * written out, sorted and made anew.  Returns 0 or MPROF_ENOMEM. */
int mprof__arrows_sort(mprof_model_t *m,
                       int (*compare)(const void *, const void *));
int mprof__bands_sort(mprof_model_t *m,
                      int (*compare)(const void *, const void *));
int mprof__labels_sort(mprof_model_t *m,
                       int (*compare)(const void *, const void *));

/* Make the samples anew from items[0 .. count) (a pass that reorders or
 * rewrites them made those), then free items.  Returns 0 or MPROF_ENOMEM. */
int mprof__samples_replace(mprof_model_t *m, mprof_sample_t *items,
                           size_t count);

/* Running spans written anew in another order (the layout's grouping by
 * row): records put in their places, in any order, each with its times'
 * high halves beside it, until mprof__running_take() makes them the
 * model's running spans.  Where every time of the spans before shares one
 * high half, so does every time put (a span cut to its thread's line lies
 * within the span): that one is kept, and no scratch array. */
typedef struct mprof__spans_s {
  mprof_span_rec_t *recs;
  uint32_t *highs; /* span i's start's high half at 2 i, its end's next;
                      NULL: one_high is every time's */
  uint32_t one_high;
  size_t count;
} mprof__spans_t;

/* Make room for count of m's running spans.  Returns 0 or MPROF_ENOMEM. */
int mprof__spans_make(const mprof_model_t *m, mprof__spans_t *b, size_t count);

static inline void mprof__spans_put(mprof__spans_t *b, size_t i,
                                    mprof_span_t s) {
  mprof_span_rec_t rec = {mprof__low_of(s.start_ns), mprof__low_of(s.end_ns),
                          s.thread, s.stream};
  b->recs[i] = rec;
  if (!b->highs) return;
  b->highs[2 * i] = (uint32_t)((uint64_t)s.start_ns >> 32);
  b->highs[2 * i + 1] = (uint32_t)((uint64_t)s.end_ns >> 32);
}

/* Put record rec, as it is, read with from (mprof__running_in()). */
static inline void mprof__spans_put_read(mprof__spans_t *b, size_t i,
                                         const mprof_span_rec_t *rec,
                                         const mprof__onward_t from[2]) {
  b->recs[i] = *rec;
  if (!b->highs) return;
  b->highs[2 * i] = (uint32_t)(from[0].high >> 32);
  b->highs[2 * i + 1] = (uint32_t)(from[1].high >> 32);
}

static inline mprof_span_t mprof__spans_get(const mprof__spans_t *b, size_t i) {
  const mprof_span_rec_t *r = &b->recs[i];
  uint64_t start = b->highs ? b->highs[2 * i] : b->one_high;
  uint64_t end = b->highs ? b->highs[2 * i + 1] : b->one_high;
  mprof_span_t s = {(int64_t)(start << 32 | r->start_low),
                    (int64_t)(end << 32 | r->end_low), r->thread, r->stream};
  return s;
}

/* Make b's spans, all put, the model's running spans (the old ones are
 * freed), and free the rest of b.  Returns 0 or MPROF_ENOMEM. */
int mprof__running_take(mprof_model_t *m, mprof__spans_t *b);

/* Free what b holds (where it was not taken). */
void mprof__spans_free(mprof__spans_t *b);

/* Point the view at the compact arrays and their high halves, their
 * blocks' runs found (after any of them grew or was replaced).  Returns 0
 * or MPROF_ENOMEM. */
int mprof__records_publish(mprof_model_t *m);

/* Free the compact arrays. */
void mprof__records_free(mprof_model_t *m);

/* Grow *array (of elem-byte items, capacity *cap) to hold need items.
 * Returns 0 or MPROF_ENOMEM. */
int mprof__grow(void *array, size_t *cap, size_t need, size_t elem);

/* malloc() for a block that the layout fills at once: past 2 MiB, aligned
 * to 2 MiB on native heaps (intern.c says why).  NULL: no memory. */
void *mprof__big_alloc(size_t size);

/* Copy text into the string pool (once, if it repeats); returns its
 * offset (0 is the empty string) or 0 when memory runs out (the text is
 * then shown empty). */
uint32_t mprof__intern_text(mprof_model_t *m, const char *text, size_t length);

/* Ids are handed out in runs (the recorder gives each OS thread chunks of
 * consecutive ids, from 1 up), so most ids are small and dense: those index
 * a plain array (`direct`), grown while it stays within a few times the
 * thread count.  Other ids go in an open-addressing table; consecutive ids
 * go to consecutive slots there too, and high bits are folded in so that
 * ids differing only there (other chunks, strided ids) still spread.
 * The lookups are inline: the event loop makes one or two an event. */
static inline size_t mprof__id_hash(const mprof_model_t *m, uint64_t id) {
  uint64_t h = id ^ (id >> 16) ^ (id >> 32) ^ (id >> 48);
  return (size_t)h & (m->hash_cap - 1);
}

/* The table's slot holding id, or the empty slot where it would go. */
static inline size_t mprof__id_slot(const mprof_model_t *m, uint64_t id) {
  size_t s = mprof__id_hash(m, id);
  while (m->hash_threads[s] != MPROF_NO_THREAD && m->hash_ids[s] != id)
    s = (s + 1) & (m->hash_cap - 1);
  return s;
}

/* Where id's thread index is kept (MPROF_NO_THREAD: an unknown id). */
static inline uint32_t *mprof__id_ref(const mprof_model_t *m, uint64_t id) {
  return id < m->direct_cap ? &m->direct[id]
                            : &m->hash_threads[mprof__id_slot(m, id)];
}

/* Map id to thread index `thread`.  Returns 0 or MPROF_ENOMEM. */
int mprof__id_set(mprof_model_t *m, uint64_t id, uint32_t thread);

/* Make the id table's first slots.  Returns 0 or MPROF_ENOMEM. */
int mprof__id_table_init(mprof_model_t *m);

/* Make the direct array cover ids below cap; ids the table holds there
 * move over.  Returns 0 or MPROF_ENOMEM. */
int mprof__direct_resize(mprof_model_t *m, size_t cap);

/* Append an item to an array grown by mprof__grow; count is the view's.
 * The capacity test comes first so that the common case makes no call. */
#define MODEL_PUSH(m, array, cap, count, item)                                 \
  ((m)->view.count >= (m)->cap &&                                              \
           mprof__grow(&(m)->array, &(m)->cap, (m)->view.count + 1,            \
                       sizeof *(m)->array)                                     \
       ? MPROF_ENOMEM                                                          \
       : ((m)->array[(m)->view.count++] = (item), 0))

/* Add an arrow, running span, band, label or sample at the end of its
 * array (compact records: compact.c).  Each returns 0 or MPROF_ENOMEM.
 * Inline: the event loop adds one for most events. */

static inline int mprof__arrow_push(mprof_model_t *m, const mprof_arrow_t *a) {
  size_t n = m->view.arrow_count;
  mprof_arrow_rec_t rec = {mprof__low_of(a->time_ns), a->from, a->to,
                           (a->kind & 0xff) | a->stream << 8};
  if (mprof__highs_add(&m->arrow_times, n, a->time_ns) ||
      MODEL_PUSH(m, arrows, arrow_cap, arrow_count, rec))
    return MPROF_ENOMEM;
  m->last_arrow_ns = a->time_ns;
  return 0;
}

static inline int mprof__running_push(mprof_model_t *m, const mprof_span_t *s) {
  size_t n = m->view.running_count;
  mprof_span_rec_t rec = {mprof__low_of(s->start_ns), mprof__low_of(s->end_ns),
                          s->thread, s->stream};
  return mprof__highs_add(&m->running_starts, n, s->start_ns) ||
                 mprof__highs_add(&m->running_ends, n, s->end_ns) ||
                 MODEL_PUSH(m, running, running_cap, running_count, rec)
             ? MPROF_ENOMEM
             : 0;
}

static inline int mprof__band_push(mprof_model_t *m, const mprof_band_t *b) {
  size_t n = m->view.band_count;
  mprof_band_rec_t rec = {mprof__low_of(b->span.start_ns),
                          mprof__low_of(b->span.end_ns), b->span.stream,
                          b->kind};
  return mprof__highs_add(&m->band_starts, n, b->span.start_ns) ||
                 mprof__highs_add(&m->band_ends, n, b->span.end_ns) ||
                 MODEL_PUSH(m, bands, band_cap, band_count, rec)
             ? MPROF_ENOMEM
             : 0;
}

static inline int mprof__label_push(mprof_model_t *m, const mprof_label_t *l) {
  size_t n = m->view.label_count;
  mprof_label_rec_t rec = {mprof__low_of(l->time_ns), l->thread, l->text};
  return mprof__highs_add(&m->label_times, n, l->time_ns) ||
                 MODEL_PUSH(m, labels, label_cap, label_count, rec)
             ? MPROF_ENOMEM
             : 0;
}

static inline int mprof__sample_push(mprof_model_t *m,
                                     const mprof_sample_t *s) {
  size_t n = m->view.sample_count;
  if (n >= m->sample_cap) {
    /* both arrays grow alike, to the same capacity */
    size_t cap = m->sample_cap;
    if (mprof__grow(&m->sample_lows, &cap, n + 1, sizeof *m->sample_lows) ||
        mprof__grow(&m->sample_values, &m->sample_cap, n + 1,
                    sizeof *m->sample_values))
      return MPROF_ENOMEM;
  }
  if (mprof__highs_add(&m->sample_times, n, s->time_ns)) return MPROF_ENOMEM;
  m->sample_lows[n] = mprof__low_of(s->time_ns);
  m->sample_values[n] = s->value;
  m->view.sample_count = n + 1;
  return 0;
}

/* A run of one stream's decoded events, fed by mprof__model_add_pair(). */
typedef struct mprof__run_s {
  const mprof_event_t *events;
  size_t count, at; /* events[at .. count) are still to feed */
  uint64_t last;    /* none whose clock is past last is fed */
  int done;         /* no events will follow these: the other run of the
                       pair need not wait for more */
} mprof__run_t;

/* Feed the events of two streams to the model, merged by clock (on equal
 * clocks x's first), each run's up to its own `last` (one call for many
 * events: the loader hands its merged events a batch at a time as x).  Stops
 * where a run that is not done has no events left, or where neither may go on;
 * `at` says how far each got.  Returns 0 or an mprof error (the event that
 * failed counts as fed). */
int mprof__model_add_pair(mprof_model_t *m, mprof__run_t *x, mprof__run_t *y);

/* An event's clock as model ns: ticks since the first event, held at
 * MODEL_MAX_NS (a damaged clock must not overflow the sums views make of
 * times).  A difference below 2^63 ticks converts as a signed number (one
 * instruction, where an unsigned one takes a branch and several). */
static inline int64_t mprof__event_ns(uint64_t ticks, uint64_t start_ticks,
                                      double ns_per_tick) {
  if (ticks <= start_ticks) return 0;
  uint64_t ticks_since = ticks - start_ticks;
  double since = (int64_t)ticks_since >= 0 ? (double)(int64_t)ticks_since
                                           : (double)ticks_since;
  since *= ns_per_tick;
  return since < (double)MODEL_MAX_NS ? (int64_t)since : MODEL_MAX_NS;
}

static inline int mprof__run_has(const mprof__run_t *r) {
  return r->at < r->count;
}

static inline uint64_t mprof__run_head(const mprof__run_t *r) {
  return r->events[r->at].time_ticks;
}

/* The clock of the pair's first event to feed, if it may be fed now. */
static inline int mprof__pair_first(const mprof__run_t *x,
                                    const mprof__run_t *y, uint64_t *ticks) {
  if (mprof__run_has(x) &&
      (!mprof__run_has(y) || mprof__run_head(x) <= mprof__run_head(y))) {
    *ticks = mprof__run_head(x);
    return *ticks <= x->last;
  }
  *ticks = mprof__run_has(y) ? mprof__run_head(y) : 0;
  return mprof__run_has(y) && *ticks <= y->last;
}

/* Feed r's events up to the first whose clock is past limit (r->at moves
 * on).  Returns 0 or an mprof error. */
typedef int (*mprof__feed_fn)(void *state, mprof__run_t *r, uint64_t limit);

/* Feed a pair's runs merged by clock (on equal clocks x's first), each up
 * to its own `last`: the run whose head comes first goes, up to the other's
 * head (x: at it; y: below it), for as long as it can.  A run that has no
 * events left before it is done ends the call (its next packet may hold
 * earlier events than the other's), as does a first head past its run's
 * `last` (the other's head is later still).  Each feed call feeds at least
 * one event: two streams whose events interleave closely cost one call an
 * event, not three.  Inline, so that the feed's work is inlined in one
 * loop for both runs (the model's event loop, and the streaming
 * analysis's).  Returns 0 or feed's error. */
static inline __attribute__((always_inline)) int
mprof__pair_turns(void *state, mprof__feed_fn feed, mprof__run_t *x,
                  mprof__run_t *y) {
  for (;;) {
    int has_x = mprof__run_has(x), has_y = mprof__run_has(y);
    if ((!has_x && !x->done) || (!has_y && !y->done) || (!has_x && !has_y))
      return 0;
    uint64_t limit;
    mprof__run_t *r;
    if (has_x && (!has_y || mprof__run_head(x) <= mprof__run_head(y))) {
      r = x;
      limit =
          has_y && mprof__run_head(y) < x->last ? mprof__run_head(y) : x->last;
    } else { /* y: below x's next, which is past y's head, so not 0 */
      r = y;
      limit = has_x && mprof__run_head(x) - 1 < y->last ? mprof__run_head(x) - 1
                                                        : y->last;
    }
    if (mprof__run_head(r) > limit) return 0;
    int err = feed(state, r, limit);
    if (err) return err;
  }
}

/* Where the merge of traces (load.c) hands their events, in time order
 * across streams: the model's event loop (mprof__model_add_pair), or the
 * streaming analysis's (stream.c).  The caller fills the first five
 * fields; the merge the rest. */
typedef struct mprof__merge_s {
  /* once, before any event: the axis's clock (ticks a second) and whether
   * the traces are legacy; returns 0 or an mprof error */
  int (*begin)(void *sink, uint64_t clock_freq_hz, int legacy);
  /* the next events, as mprof__model_add_pair: the merge hands them in
   * time order as x, with y empty and done */
  int (*add_pair)(void *sink, mprof__run_t *x, mprof__run_t *y);
  void *sink;
  mprof_progress_fn progress; /* told after each packet (NULL: nobody) */
  void *progress_context;
  uint64_t discarded; /* events the recorders lost */
  uint64_t end_ticks; /* the latest recording's end on the axis, or 0 */
  int64_t origin_ns;  /* wall-clock ns of the axis's tick 0 (see load.c) */
  int axis_ns;        /* the axis is in ns (several traces, or an offset) */
} mprof__merge_t;

/* Merge the traces' events (offsets_ns as for mprof_model_load_many) into
 * one time order, handed to merge's sink.  Returns 0 or an mprof error
 * (the sink's, or MPROF_EINVAL / MPROF_ENOMEM). */
int mprof__merge_traces(const mprof_trace_t *const *traces, size_t count,
                        const int64_t *offsets_ns, mprof__merge_t *merge);

/* Clock ticks on the axis as ns since start_ticks, held at MODEL_MAX_NS
 * (0 at or before start_ticks). */
int64_t mprof__axis_ns(uint64_t ticks, uint64_t start_ticks,
                       double ns_per_tick);

/* Make the arrays hold sizes' items without growing.  Returns 0 or
 * MPROF_ENOMEM (then the arrays it could not make keep their size, and
 * grow as they fill). */
int mprof__model_reserve(mprof_model_t *m, const mprof_model_sizes_t *sizes);

/* Follow merges from thread i to where its line continues (a cycle in bad
 * input is cut after a thousand hops). */
uint32_t mprof__follow_merges(const mprof_model_t *m, uint32_t i);

/* End every stream's running span and idle band at the end of the trace
 * (the finish's first step).  Returns 0 or MPROF_ENOMEM. */
int mprof__streams_close(mprof_model_t *m);

/* Rows given to threads while their endings are settled, in start order
 * (layout.c): begin (into m->placing), then place threads [from, to),
 * settled, right after those placed before.  Each returns 0 or
 * MPROF_ENOMEM (place_range: MPROF_EINVAL when from is not next); a
 * placing left unfinished is done again by mprof__layout(). */
typedef struct mprof__placing_s mprof__placing_t;
int mprof__place_begin(mprof_model_t *m);
int mprof__place_range(mprof_model_t *m, size_t from, size_t to);

/* Give every thread a row (those mprof__place_range() did not place
 * right, or all, again) and group threads and spans by row (after the
 * finish's pass over the threads: endings settled, threads_unordered
 * found); frees m->placing.  Returns 0 or MPROF_ENOMEM. */
int mprof__layout(mprof_model_t *m);

/* Build the indexes the window queries use, and give each counter the
 * range of its values and 0 (min_value, max_value). */
int mprof__lod_index(mprof_model_t *m);
void mprof__lod_free(mprof_model_t *m);

#endif /* MPROF_MODEL_INTERNAL_H */
