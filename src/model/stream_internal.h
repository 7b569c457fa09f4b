/* stream_internal.h -- what the files of the streaming analysis share:
 * stream.c applies the events to the live state, stream_settle.c settles
 * what a thread leaves to the analysis and makes the result. */
#ifndef MPROF_STREAM_INTERNAL_H
#define MPROF_STREAM_INTERNAL_H

#include "findings_loops.h"
#include "idtable.h"

/* Events of the OS thread that ended a thread before it is retired:
 * events that name it soon after it ended (a read of a resolved promise)
 * find it. */
#define STREAM_RETIRE_EVENTS 16384

/* Late work is kept apart by how many first runs came while it waited,
 * up to this (a pool of more threads is not told exactly). */
#define POOL_BETWEEN 256

/* Lives kept per kind of request before its sketch turns into a
 * histogram. */
#define STREAM_EXACT 65536

typedef struct sthread_s sthread_t;
typedef struct pool_s pool_t;

/* An arrow, kept in the rings of the threads at its ends (a stall's
 * context: the last arrows of the stalled thread), as seen from one end:
 * the other end, its index then, whether the arrow leaves this one.  seq
 * orders arrows as the model numbers them. */
typedef struct sarrow_s {
  int64_t time_ns;
  uint64_t seq;
  sthread_t *other;     /* in a pinned ring, a reference (see stream.c) */
  uint32_t other_index; /* its index when the arrow was made */
  uint8_t kind;         /* mprof_arrow_kind_t */
  uint8_t leaves;       /* the ring's own thread is the arrow's source */
} sarrow_t;

/* A running span on a stream (by index) not counted yet. */
typedef struct span_s {
  int64_t start_ns, end_ns;
  uint32_t stream;
} span_t;

/* Each stream's idle time up to a moment (a loop's time in poll is the
 * difference of two). */
typedef struct poll_s {
  int64_t *ns;
  size_t count;
} poll_t;

/* The latest signal a thread had received at some moment: when, from
 * whom (a reference; NULL: none), the arrow's seq, and whether nobody
 * waited on the thread then (a lost wake-up's signal, if a wait that
 * never ends began after it). */
typedef struct ssignal_s {
  int64_t time_ns;
  uint64_t seq;
  sthread_t *from;
  int nobody;
} ssignal_t;

/* A try_read: from start_ns, answered by a read at read_ns (INT64_MAX:
 * none yet), on `on` (a reference).  The first of the waiter's on `on`
 * counts it among on's waiters (counted), and notes on's latest signal
 * then (sig). */
typedef struct swait_s {
  int64_t start_ns, read_ns;
  sthread_t *on;
  int legacy_read; /* a legacy read standing for a wait (see stream.c) */
  int counted;
  ssignal_t sig;
} swait_t;

/* A thread, counted by reference: the table's, a stream's that runs it, a
 * merge's, a wait's, a creator's, and what the analysis keeps.  Thousands
 * are alive at a time, most of them out of cache when they retire: what
 * retiring and freeing a record read comes first, in a line of its own,
 * and a record begins a line. */
struct sthread_s {
  _Alignas(64) pool_t *pool; /* where it goes back (NULL: the root) */
  sthread_t *creator;        /* dropped when retired */
  sthread_t *becomes;
  swait_t *waits;
  uint64_t id;
  uint32_t index; /* the model's index for it */
  uint32_t refs;
  uint32_t wait_count;
  uint32_t ring_count; /* arrows it was at an end of, up to twice the ring */
  uint16_t type;
  uint8_t ending, flags;
  uint8_t settled; /* its figures are counted */
  uint8_t pinned;  /* its ring holds its arrows' ends (it may stall) */
  /* whether some thread try_read it; whether it ran in the pool yet
   * (pool_saturated, work) */
  uint8_t waited_for, pool_started;
  int64_t start_ns, end_ns, last_seen_ns;
  int64_t running_ns;
  int64_t first_run_ns;     /* its first span's start */
  int64_t queue_ns, run_ns; /* work: as the model's facts (-1: none) */
  uint32_t overhang_count;
  uint32_t stream; /* the stream of its first span, or NO */
  /* lost wake-ups: its latest signal; its creator's when it was made;
   * how many threads wait on it now (it made them, or they try_read it) */
  ssignal_t signal, at_creation;
  char *label, *shown, *failure;
  span_t *overhangs; /* spans past its line's end as seen so far */
  size_t overhang_cap, wait_cap;
  uint32_t waiters;
  uint32_t named;     /* its index in the result's model (settle's) */
  uint8_t long_texts; /* its texts not in pieces (TEXT_ bits) */
  uint8_t walk;       /* wait cycles, at the end: the walk's mark */
  poll_t poll_at_start, poll_at_end; /* a loop's: when it began, ended */
  /* wait cycles, at the end: what its latest wait open then waits on,
   * since when */
  sthread_t *next_wait;
  int64_t since_ns;
  /* pool_saturated (work): the pool's first runs when it was made, and
   * while it waited to run first (between) */
  uint64_t runs_before;
  uint64_t between;
  /* last, not cleared when the record is made again (ring_count is) */
  sarrow_t ring[MPROF_STALL_CONTEXT]; /* its latest arrows */
};

/* Pieces of one size for what records own (their short texts, their
 * first waits), cut from slabs the pool owns: they come and go with the
 * records, a few an event, and the slabs go at once at the end. */
typedef struct pieces_s {
  void *free; /* linked through their first word */
  char **slabs;
  size_t slab_count, slab_cap, used; /* used: of the last slab */
} pieces_t;

/* A record's text shorter than this is kept in a piece; its first waits
 * are, so many of them. */
#define SHORT_TEXT 32
#define FIRST_WAITS 2

/* Records are made in blocks the stream owns: a freed one goes on a list
 * for the next (still in cache), and the blocks go at once at the end. */
#define POOL_BLOCK 4096
struct pool_s {
  sthread_t *free; /* linked through their creator field */
  sthread_t **blocks;
  size_t block_count, block_cap, used; /* used: of the last block */
  pieces_t texts, waits;
};

/* What thread_of() found for an id lately (thread NULL: nothing). */
#define STREAM_RECENT 64
typedef struct recent_s {
  uint64_t id;
  sthread_t *thread;
} recent_t;

/* A thread from before the trace, by index, and the idle bands of a
 * stream it ran right up to. */
typedef struct sleeper_s {
  uint32_t index;
  uint32_t runs;
} sleeper_t;

/* A span (of thread, a reference) or an idle band (thread NULL) of a
 * stream held back from its loop scan until the spans before it are cut
 * as the model cuts them. */
typedef struct held_s {
  int64_t start_ns, end_ns;
  sthread_t *thread;
} held_t;

/* An OS-thread stream. */
typedef struct ostream_s {
  sthread_t *current; /* running (a reference), or NULL */
  int64_t run_start_ns, idle_start_ns;
  int64_t idle_ns; /* idle bands closed so far */
  uint8_t loop;    /* a loop ran, or slept, there */
  uint8_t had_work;
  uint64_t events;          /* its events so far */
  mprof__endings_t ended;   /* threads its events ended, to retire */
  uint64_t retire_at;       /* events when the first is due (or never) */
  mprof__loop_scan_t *scan; /* its loop findings (stream_loops.c) */
  sthread_t *first_loop;    /* the first loop thread that ran there */
  held_t *held; /* spans and bands held back from the scan, in order */
  size_t held_first, held_count, held_cap;
  uint8_t loop_doubt; /* one went on before its end was known */
  /* threads from before the trace that ran up to an idle band here (the
   * model may take one for a loop: its creation, and type, are lost),
   * how often; the idle bands; the latest span's end, and its thread's
   * index if that is from before the trace (else MPROF_NO_THREAD) */
  sleeper_t *sleepers;
  size_t sleeper_count, sleeper_cap;
  uint64_t bands;
  int64_t span_end_ns;
  uint32_t span_preexisting;
} ostream_t;

/* A histogram of values, 1/128 relative width (exact below 1024). */
#define SKETCH_BUCKETS (1024 + 54 * 128)

/* Values: exact while few, then a histogram; the maximum always. */
typedef struct sketch_s {
  int64_t *values;
  size_t count, cap;
  uint64_t *buckets; /* once more than STREAM_EXACT values came */
  uint64_t total;
} sketch_t;

/* A kind of request while the trace goes by. */
typedef struct sgroup_s {
  char *name;
  uint16_t type;
  uint32_t count, failed, pending;
  uint32_t first; /* its first member's index (the model's order) */
  sketch_t lives, queues, runs;
  sthread_t *slowest;
  int64_t slowest_ns;
  struct sfailure_s *failures;
  size_t failure_count, failure_cap;
} sgroup_t;

typedef struct sfailure_s {
  char *error;
  uint32_t count;
  sthread_t *example; /* the first, by index */
} sfailure_t;

/* A thread's time, kept among the `top` longest-lived. */
typedef struct stime_s {
  sthread_t *thread;
  mprof_thread_time_t time;
  mprof_wait_t *waits; /* `on` as references, cast: see settle */
  sthread_t **on;
  uint32_t wait_count;
} stime_t;

/* A min-heap of threads by index (a failed request's creator beside it). */
typedef struct heap_entry_s {
  sthread_t *thread, *creator;
} heap_entry_t;

typedef struct heap_s {
  heap_entry_t *at;
  size_t count, cap;
} heap_t;

/* A retry storm of one kind and error while the trace goes by: its run
 * and longest run (findings_requests.c's, by the model's indexes), and
 * the threads they name. */
typedef struct sstorm_s {
  char *error;
  mprof__storm_t run, worst;
  sthread_t *run_first, *run_last, *run_creator;
  sthread_t *worst_first, *worst_last, *worst_creator;
} sstorm_t;

/* A stream as the stamps know it: its number in the trace, its latest
 * time. */
typedef struct stamp_place_s {
  uint32_t id;
  int64_t last_ns;
} stamp_place_t;

/* Places of streams remembered by number (a search finds the others). */
#define STAMP_CACHE 256
typedef struct stamp_cached_s {
  uint32_t id;
  uint32_t place; /* + 1; 0: none */
} stamp_cached_t;

/* What the analysis takes of its events' clocks and streams, worked out
 * where they are merged (stream_stamp.c): each event's time_ticks becomes
 * ns since the trace's first event, never before the latest of its
 * stream (time never goes backwards on a stream), and its stream becomes
 * the place of that stream in the order the streams came in. */
typedef struct stamper_s {
  double ns_per_tick;
  uint64_t start_ticks; /* the first event's clock */
  int have_base;
  int64_t duration_ns; /* the latest time stamped */
  stamp_place_t *places;
  size_t place_count, place_cap;
  stamp_cached_t cache[STAMP_CACHE];
  mprof_event_t *events; /* mprof__stamp()'s copies, of its latest call */
  size_t event_cap;
} stamper_t;

/* The clock's ticks a second, before the first stamp. */
void mprof__stamper_begin(stamper_t *st, uint64_t clock_freq_hz);

/* Stamp events[0 .. count) (the next in time order) where they lie.
 * Returns 0 or MPROF_ENOMEM. */
int mprof__stamp_in_place(stamper_t *st, mprof_event_t *events, size_t count);

/* Stamp copies of events[0 .. count): *stamped points at them, kept until
 * the next call.  Returns 0 or MPROF_ENOMEM. */
int mprof__stamp(stamper_t *st, const mprof_event_t *events, size_t count,
                 const mprof_event_t **stamped);

void mprof__stamper_free(stamper_t *st);

typedef struct stream_s {
  mprof_analysis_options_t options;
  uint64_t clock_freq_hz, start_ticks;
  int legacy, finished;
  int64_t duration_ns, end_ns;
  uint64_t events, discarded, late, try_reads, arrows;
  int failed; /* memory ran out where no error could be returned */
  uint32_t next_index;
  size_t top;

  pool_t pool;
  recent_t recent[STREAM_RECENT]; /* by id modulo STREAM_RECENT */
  mprof__idmap_t table;           /* live ids to their records (references) */
  mprof__idset_t retired;         /* ids whose records were retired */
  sthread_t **orphans;            /* kept to the end: threads whose id was made
                                     again, should_resolve threads that merged */
  size_t orphan_count, orphan_cap;

  ostream_t *streams;
  size_t stream_count, stream_cap;

  sgroup_t *groups;
  size_t group_count, group_cap;
  stime_t *times; /* a heap: the one that comes last at the root */
  size_t time_count, time_cap;
  sthread_t **pending; /* requests that never ended (settled at the end) */
  size_t pending_count, pending_cap;
  /* writes (write_backlog): how many there were, how many pending now;
   * the most pending at once, first at write_at; the writes pending then
   * (the first write_at_count of writes, by start) and those made since
   * (the ones that ended dropped now and then) */
  uint64_t write_total;
  size_t writes_pending, write_peak, write_at_count;
  int64_t write_at;
  sthread_t **writes;
  size_t write_count, write_cap;
  sthread_t **stalls;   /* pairs: thread, last */
  struct slost_s *lost; /* lost wake-ups, by waiter */
  size_t lost_count, lost_cap;
  /* retry storms: failed requests wait (by index) until no request made
   * before them may still fail; then they go on their storms */
  heap_t failures, requests_pending;
  size_t pending_requests; /* requests not ended */
  sstorm_t *storms;
  size_t storm_count, storm_cap;
  /* pool_saturated: work's first runs in the pool so far; the late work
   * by how many first runs came while it waited (capped), each kept as
   * findings_requests.c counts it (the longest with a reference) */
  uint64_t first_runs;
  mprof__pool_t *late_by;  /* POOL_BETWEEN of them, made when needed */
  mprof__pool_t saturated; /* at the end: the pool's size, its late */
  mprof_chain_t *cycles;   /* wait cycles: members in cycle_threads */
  size_t cycle_count, cycle_cap;
  sthread_t **cycle_threads;
  size_t cycle_thread_count, cycle_thread_cap;
  size_t stall_count, stall_cap;
  uint32_t preexisting;
  sthread_t *first_preexisting;
  stamper_t stamp; /* the merge's (in the relay's thread, where one runs):
                      last, after what the analysis seldom looks at */
} stream_t;

/* The root, and what a retired id names (a thread that ended long ago,
 * inert: its line is over, what runs it adds nothing, it waits on
 * nothing); records of no pool (stream_table.c). */
extern sthread_t mprof__stream_root_thread, mprof__stream_retired_thread;
#define STREAM_ROOT (&mprof__stream_root_thread)
#define STREAM_RETIRED (&mprof__stream_retired_thread)

/* Not a record of the pool: the root, or the retired (the only records
 * with no pool: one load, where two address compares cost more on the
 * path every reference takes). */
static inline int mprof__stream_fixed(const sthread_t *t) { return !t->pool; }

/* A zeroed record from s's pool, or NULL. */
sthread_t *mprof__stream_record_new(stream_t *s);

/* A NUL-terminated copy of text, or NULL. */
char *mprof__stream_copy_text(const char *text, size_t length);

/* A record's texts, by the bit of long_texts that says which are long. */
enum { TEXT_LABEL = 1, TEXT_SHOWN = 2, TEXT_FAILURE = 4 };

/* Set t's text `which` to a NUL-terminated copy of text (the one it had
 * is dropped).  Returns 0 or MPROF_ENOMEM. */
int mprof__stream_text_set(sthread_t *t, unsigned which, const char *text,
                           size_t length);

/* Room for one more wait of t.  Returns 0 or MPROF_ENOMEM. */
int mprof__stream_waits_grow(sthread_t *t);

/* The table of ids: map id to t (a reference taken, the one it held
 * dropped; 0 or MPROF_ENOMEM). */
int mprof__stream_table_set(stream_t *s, uint64_t id, sthread_t *t);

/* Where id is in the table, or would go, room made for one more entry
 * (SIZE_MAX: memory ran out); the slot for mprof__stream_table_set_at(),
 * which maps id to t as mprof__stream_table_set() does, while the table
 * does not change meanwhile: a thread made looks its id up once. */
size_t mprof__stream_table_find(stream_t *s, uint64_t id);
void mprof__stream_table_set_at(stream_t *s, size_t i, uint64_t id,
                                sthread_t *t);

/* Remove id's entry if it names t or what t became; make room for one
 * more entry (0 or MPROF_ENOMEM). */
void mprof__stream_table_remove(stream_t *s, uint64_t id, const sthread_t *t);
int mprof__stream_table_rebuild(stream_t *s);

/* The thread id names in the table, or NULL.  Inline, as the two below:
 * a lookup or two an event. */
static inline sthread_t *mprof__stream_table_get(const stream_t *s,
                                                 uint64_t id) {
  return mprof__idmap_get(&s->table, id);
}

/* Fetch the table's slots for id into the cache. */
static inline void mprof__stream_table_prefetch(const stream_t *s,
                                                uint64_t id) {
  mprof__idmap_prefetch(&s->table, id);
}

/* The thread in the id table's slot i, or NULL. */
static inline sthread_t *mprof__stream_slot(const stream_t *s, size_t i) {
  return s->table.slots[i].value;
}

/* Put t, whose last reference went, back in its pool, dropping what it
 * names. */
void mprof__stream_record_free(sthread_t *t);

/* Take a reference to t (NULL, the root and the retired are not
 * counted); drop one.  Inline: references are taken and dropped a few
 * times an event. */
static inline sthread_t *mprof__stream_ref(sthread_t *t) {
  if (t && !mprof__stream_fixed(t)) t->refs++;
  return t;
}

static inline void mprof__stream_unref(sthread_t *t) {
  if (t && !mprof__stream_fixed(t) && !--t->refs) mprof__stream_record_free(t);
}

/* Where t's line goes on: merges followed (stream.c). */
sthread_t *mprof__stream_follow(sthread_t *t);

/* A lost wake-up: the condition, its signal nobody waited for, the wait
 * that began after it and never ended. */
typedef struct slost_s {
  sthread_t *condition, *waiter;
  ssignal_t signal;
} slost_t;

/* Feed the failed requests that may go to their storms now (all of
 * them: at the end).  Returns 0 or MPROF_ENOMEM. */
int mprof__stream_storms(stream_t *s, int all);

/* A request was made; one ended (a failure waits for its storm).  Each
 * returns 0 or MPROF_ENOMEM. */
int mprof__stream_request_made(stream_t *s, sthread_t *t);
int mprof__stream_request_ended(stream_t *s, sthread_t *t);

/* Drop t's waits (the references they hold). */
void mprof__stream_waits_clear(sthread_t *t);

/* Drop t's ring of arrows (the references it holds). */
void mprof__stream_ring_clear(sthread_t *t);

/* Keep a reference to t in a list (count, cap).  Returns 0 or
 * MPROF_ENOMEM. */
int mprof__stream_keep(sthread_t ***list, size_t *count, size_t *cap,
                       sthread_t *t);

/* Every stream's idle time up to now into *p.  Returns 0 or
 * MPROF_ENOMEM. */
int mprof__stream_poll(const stream_t *s, int64_t now, poll_t *p);

/* Retire t: settle it, forget its id.  Returns 0 or MPROF_ENOMEM. */
int mprof__stream_retire(stream_t *s, sthread_t *t);

/* Count what thread t leaves to the analysis (once).  Returns 0 or
 * MPROF_ENOMEM. */
int mprof__stream_settle(stream_t *s, sthread_t *t);

/* Count a span of t on stream [start, end), clipped to t's line: its
 * running time, its first stream, a loop's stream, a work request's time
 * in the pool. */
void mprof__stream_ran(stream_t *s, sthread_t *t, uint32_t stream,
                       int64_t start, int64_t end);

/* Count t's overhangs that end by line_end; settling, all of them,
 * clipped to it. */
void mprof__stream_fold(stream_t *s, sthread_t *t, int64_t line_end,
                        int settle);

/* Is a thread of this type a write (write_backlog's)? */
static inline int mprof__stream_is_write(uint16_t type) {
  return type == MPROF_WRITE || type == MPROF_UDP_SEND;
}

/* Close every stream's span and band at the end of the trace. */
void mprof__stream_close_streams(stream_t *s);

/* Settle what is left and make *out (stream_settle.c).  Returns 0 or
 * MPROF_ENOMEM. */
int mprof__stream_finish(stream_t *s, const mprof_analysis_options_t *options,
                         mprof_stream_result_t *out);

void mprof__stream_free(stream_t *s);

/* The loop findings (stream_loops.c): a span of t on o closed; an idle
 * band of o closed (memory running out sets s->failed); every scan's end
 * (0 or MPROF_ENOMEM); visit each thread the findings name (the first
 * error visit returns); write the findings, the threads as the named
 * model's, once every thread is settled, counting late the streams whose
 * findings may not be the model's (0 or MPROF_ENOMEM); free the scans. */
void mprof__stream_loop_span(stream_t *s, ostream_t *o, sthread_t *t,
                             int64_t start, int64_t end);
void mprof__stream_loop_band(stream_t *s, ostream_t *o, int64_t start,
                             int64_t end);
int mprof__stream_loops_end(stream_t *s);
int mprof__stream_loop_threads(const stream_t *s,
                               int (*visit)(void *, sthread_t *),
                               void *context);
int mprof__stream_loops_write(stream_t *s, const mprof_model_t *m,
                              const mprof_analysis_options_t *options,
                              mprof_analysis_t *out);
void mprof__stream_loops_free(stream_t *s);

/* Free the records' blocks, and what those still in use own. */
void mprof__stream_pool_free(pool_t *pool);

/* Add a value (below 0: unknown, left out).  Returns 0 or
 * MPROF_ENOMEM. */
int mprof__sketch_add(sketch_t *k, int64_t v);

/* p50, p90, p99 and the maximum of a sketch's values, as
 * mprof__percentiles() (exact while they were few; then the floor of the
 * bucket of the rank, within 1/128 below it, and the exact maximum). */
void mprof__sketch_percentiles(sketch_t *k, int64_t out[4]);
void mprof__sketch_free(sketch_t *k);
void mprof__stime_free(stime_t *st);

#endif /* MPROF_STREAM_INTERNAL_H */
