/* mprof/model.h -- what a trace means: async threads, their lifetimes and
 * rows, the arrows between them, running and idle intervals, counters, and
 * the analysis (findings, request latency, stalled threads, lost
 * wake-ups, time per thread, wait chains, critical path).
 *
 * One model and one layout serve every view: the CLI report, the browser
 * viewer (this code compiled to WebAssembly) and the desktop viewer.  The
 * model makes no OS calls: it is fed events (from mprof/read.h or by hand)
 * and only allocates memory.
 *
 * Times are int64 nanoseconds since the model's first event.  Threads,
 * arrows, labels, ... are indexes into arrays the model owns; they stay
 * valid until mprof_model_free().
 */
#ifndef MPROF_MODEL_H
#define MPROF_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "read.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mprof_model_s mprof_model_t;

/* "No thread" as a thread index.  Index 0 is the root: the pseudo-thread
 * that created every thread whose creation the trace does not hold. */
#define MPROF_NO_THREAD UINT32_MAX
#define MPROF_ROOT_THREAD 0u

/* How a thread's line ends. */
typedef enum mprof_ending_e {
  MPROF_ENDING_PENDING = 0, /* never resolved: ends soon after last seen */
  MPROF_ENDING_RESOLVED,
  MPROF_ENDING_FAILED, /* failed, or should_resolve and never resolved */
  MPROF_ENDING_MERGED  /* became another thread (see becomes) */
} mprof_ending_t;

/* Name of an ending ("pending", "resolved", "failed", "merged"). */
const char *mprof_ending_name(mprof_ending_t ending);

/* Thread flags. */
enum {
  MPROF_THREAD_SHOULD_RESOLVE = 1, /* hinted to resolve */
  MPROF_THREAD_STALLED = 2,        /* ...and it (or what it became) never did */
  MPROF_THREAD_PREEXISTING = 4     /* created before the trace begins */
};

typedef struct mprof_thread_s {
  uint64_t id;              /* the id in the trace */
  int64_t start_ns, end_ns; /* the line drawn: creation to resolution */
  int64_t last_seen_ns;     /* the last event that involves it */
  uint32_t creator;         /* thread index; MPROF_ROOT_THREAD at the top */
  uint32_t becomes;         /* successor, or MPROF_NO_THREAD */
  uint32_t row;             /* layout row, 0 at the top */
  uint32_t first_label;     /* its labels: labels[first_label ..+label_count] */
  uint32_t label_count;
  uint32_t failure; /* string offset of the failure text, or 0 */
  uint16_t type;    /* mprof_type_t */
  uint8_t ending;   /* mprof_ending_t */
  uint8_t flags;    /* MPROF_THREAD_* */
} mprof_thread_t;

/* What an arrow says (the colour code of mirage-trace-viewer). */
typedef enum mprof_arrow_kind_e {
  MPROF_ARROW_CREATE = 0,  /* creator -> child, vertical at the child's start */
  MPROF_ARROW_READ,        /* input -> reader: a value flowed */
  MPROF_ARROW_READ_FAILED, /* input -> reader: an exception flowed */
  MPROF_ARROW_TRY_READ,    /* waiter -> input: waits for it (still pending) */
  MPROF_ARROW_RESOLVE,     /* resolver -> resolved: who woke whom */
  MPROF_ARROW_SIGNAL,      /* sender -> receiver */
  MPROF_ARROW_BECOMES,     /* old -> new: they merged */
  MPROF_ARROW_KIND_COUNT
} mprof_arrow_kind_t;

/* Name of an arrow kind ("read", "try_read", ...). */
const char *mprof_arrow_kind_name(mprof_arrow_kind_t kind);

/* An arrow from thread `from` to thread `to`.  time_ns is when the event
 * happened; arrows are sorted by it.  Where its ends are drawn:
 * mprof_model_arrow_ends(). */
typedef struct mprof_arrow_s {
  int64_t time_ns;
  uint32_t from, to;
  uint32_t kind;   /* mprof_arrow_kind_t */
  uint32_t stream; /* OS-thread stream of the event */
} mprof_arrow_t;

typedef struct mprof_label_s {
  int64_t time_ns;
  uint32_t thread;
  uint32_t text; /* string offset (NUL-terminated, raw bytes) */
} mprof_label_t;

/* A span of an OS-thread stream: a thread running, or the loop idle. */
typedef struct mprof_span_s {
  int64_t start_ns, end_ns;
  uint32_t thread; /* running thread; MPROF_NO_THREAD for bands */
  uint32_t stream; /* stream index, see mprof_model_stream_id() */
} mprof_span_t;

typedef enum mprof_band_kind_e {
  MPROF_BAND_IDLE = 0, /* the loop slept (suspend, or legacy switch -1) */
  MPROF_BAND_GC        /* a garbage collection (legacy traces) */
} mprof_band_kind_t;

typedef struct mprof_band_s {
  mprof_span_t span;
  uint32_t kind; /* mprof_band_kind_t */
} mprof_band_t;

typedef struct mprof_sample_s {
  int64_t time_ns;
  int64_t value; /* the counter's value from then on */
} mprof_sample_t;

typedef struct mprof_counter_series_s {
  uint32_t name;                       /* string offset */
  uint32_t first_sample, sample_count; /* samples[first ..+count] */
  int64_t min_value, max_value;
  uint32_t id; /* the counter's id in the trace (legacy: 0) */
} mprof_counter_series_t;

/* --- Compact records -------------------------------------------------------
 * The model keeps arrows, running spans, bands, labels and samples in
 * compact records, read through mprof_arrow_at() and its kin below (never
 * directly: their layout is the model's).  A record holds the low 32 bits
 * of each of its times; the high 32 bits are kept once for each run of
 * records that share them, and along an array in time order they change
 * once in 4.3 s of trace at most.  Each block of MPROF_TIME_BLOCK records
 * notes the run its first record is in, so that a time is found in a step
 * or two.  Thread indexes, streams and string offsets are 32-bit. */
#define MPROF_TIME_BLOCK_SHIFT 8
#define MPROF_TIME_BLOCK (1u << MPROF_TIME_BLOCK_SHIFT)

/* The high halves of one time field of an array of compact records: by
 * runs, or, where runs would number more than one in MPROF_TIME_RUNS_MOST
 * records (an array whose order is not time's, e.g. the running spans by
 * row, in a long trace where each row's spans lie seconds apart), one for
 * each record: never more than 4 bytes a record. */
#define MPROF_TIME_RUNS_MOST 8
typedef struct mprof_time_highs_s {
  const uint32_t *record_high; /* each record's high half, or NULL: runs */
  const uint32_t *block_run;   /* run of block b's first record; one more
                                  entry, the last run, after the last block */
  const size_t *run_first;     /* first record of run r; one more entry,
                                  SIZE_MAX, after the last run */
  const uint32_t *run_high;    /* high half of run r's times */
} mprof_time_highs_t;

typedef struct mprof_arrow_rec_s {
  uint32_t time_low;
  uint32_t from, to;
  uint32_t kind_stream; /* kind in the low 8 bits, stream above */
} mprof_arrow_rec_t;

/* A model holds fewer OS-thread streams than this (an arrow keeps its
 * stream index in 24 bits): one fed events of more fails with
 * MPROF_ENOMEM (such a trace, of 16 M packets at least, is too big to
 * model whole anyway). */
#define MPROF_MODEL_MAX_STREAMS (1u << 24)

typedef struct mprof_span_rec_s {
  uint32_t start_low, end_low;
  uint32_t thread, stream;
} mprof_span_rec_t;

typedef struct mprof_band_rec_s {
  uint32_t start_low, end_low;
  uint32_t stream, kind;
} mprof_band_rec_t;

typedef struct mprof_label_rec_s {
  uint32_t time_low;
  uint32_t thread, text;
} mprof_label_rec_t;

/* Everything the model holds, read-only.  Valid after mprof_model_finish(). */
typedef struct mprof_model_view_s {
  const mprof_thread_t *threads;
  size_t thread_count;
  size_t arrow_count;   /* by time_ns */
  size_t label_count;   /* by thread, time */
  size_t running_count; /* by row, start */
  size_t band_count;    /* by start */
  const mprof_counter_series_t *counters;
  size_t counter_count; /* by name */
  size_t sample_count;  /* grouped by counter, by time within each */
  const char *strings;  /* string pool: offsets above index into it */
  uint32_t row_count;
  uint32_t stream_count;
  int64_t duration_ns;   /* last event time */
  int64_t end_ns;        /* when the recording ended (mprof_stop(), a
                            snapshot, the writer seen gone), if the
                            traces say, else duration_ns: a thread that
                            never ended lasts until then */
  uint64_t start_ticks;  /* clock ticks at time 0 */
  int64_t wall_start_ns; /* wall-clock ns (Unix epoch) at time 0, from
                            the traces' anchors (0 if built by hand) */
  uint64_t clock_freq_hz;
  uint64_t events;    /* events fed */
  uint64_t discarded; /* events the recorder lost (from the packets) */
  /* The compact records: read them through the functions below. */
  const mprof_arrow_rec_t *arrow_recs;
  mprof_time_highs_t arrow_times;
  const mprof_label_rec_t *label_recs;
  mprof_time_highs_t label_times;
  const mprof_span_rec_t *running_recs;
  mprof_time_highs_t running_starts, running_ends;
  const mprof_band_rec_t *band_recs;
  mprof_time_highs_t band_starts, band_ends;
  const uint32_t *sample_time_lows;
  const int64_t *sample_values;
  mprof_time_highs_t sample_times;
} mprof_model_view_t;

/* --- Reading the arrays --------------------------------------------------- */

/* The run that holds record i: its block's first run, most often, else
 * found between that and the next block's (a binary search of 8 steps at
 * most). */
static inline size_t mprof_time_run(const mprof_time_highs_t *h, size_t i) {
  size_t b = i >> MPROF_TIME_BLOCK_SHIFT, r = h->block_run[b];
  if (h->run_first[r + 1] > i) return r;
  size_t top = h->block_run[b + 1]; /* run_first[r + 1] <= i */
  for (r++; r < top;) {
    size_t mid = r + (top - r + 1) / 2;
    if (h->run_first[mid] <= i)
      r = mid;
    else
      top = mid - 1;
  }
  return r;
}

/* The time whose low half is low, in record i of an array whose high halves
 * are h. */
static inline int64_t mprof_time_at(const mprof_time_highs_t *h, size_t i,
                                    uint32_t low) {
  uint32_t high =
      h->record_high ? h->record_high[i] : h->run_high[mprof_time_run(h, i)];
  return (int64_t)((uint64_t)high << 32 | low);
}

/* Arrows, running spans, bands, labels and samples are read one at a time,
 * by index: each of these returns the record written out.  i must be below
 * the array's count. */
static inline mprof_arrow_t mprof_arrow_at(const mprof_model_view_t *v,
                                           size_t i) {
  const mprof_arrow_rec_t *r = &v->arrow_recs[i];
  mprof_arrow_t a = {mprof_time_at(&v->arrow_times, i, r->time_low), r->from,
                     r->to, r->kind_stream & 0xff, r->kind_stream >> 8};
  return a;
}

static inline mprof_span_t mprof_running_at(const mprof_model_view_t *v,
                                            size_t i) {
  const mprof_span_rec_t *r = &v->running_recs[i];
  mprof_span_t s = {mprof_time_at(&v->running_starts, i, r->start_low),
                    mprof_time_at(&v->running_ends, i, r->end_low), r->thread,
                    r->stream};
  return s;
}

static inline mprof_band_t mprof_band_at(const mprof_model_view_t *v,
                                         size_t i) {
  const mprof_band_rec_t *r = &v->band_recs[i];
  mprof_band_t b = {{mprof_time_at(&v->band_starts, i, r->start_low),
                     mprof_time_at(&v->band_ends, i, r->end_low),
                     MPROF_NO_THREAD, r->stream},
                    r->kind};
  return b;
}

static inline mprof_label_t mprof_label_at(const mprof_model_view_t *v,
                                           size_t i) {
  const mprof_label_rec_t *r = &v->label_recs[i];
  mprof_label_t l = {mprof_time_at(&v->label_times, i, r->time_low), r->thread,
                     r->text};
  return l;
}

static inline mprof_sample_t mprof_sample_at(const mprof_model_view_t *v,
                                             size_t i) {
  mprof_sample_t s = {
      mprof_time_at(&v->sample_times, i, v->sample_time_lows[i]),
      v->sample_values[i]};
  return s;
}

/* --- Building ------------------------------------------------------------- */

/* A new, empty model for a clock of clock_freq_hz ticks per second.
 * legacy: events come from a mirage-profile trace (a read implies a switch
 * to the reader, a signal to the receiver, a switch to nothing is idle).
 * Returns 0 or MPROF_ENOMEM / MPROF_EINVAL. */
int mprof_model_new(uint64_t clock_freq_hz, int legacy, mprof_model_t **out);

/* Feed one event.  Events should come in time order; one earlier than its
 * stream's previous event is taken as happening at that previous time.
 * Returns 0 or MPROF_ENOMEM. */
int mprof_model_add(mprof_model_t *model, const mprof_event_t *event);

/* Close open intervals, compute ends, arrows, rows and indexes.  Call once,
 * after the last event.  Returns 0 or MPROF_ENOMEM. */
int mprof_model_finish(mprof_model_t *model);

/* Build the model of a whole trace: every packet's events merged in time
 * order across streams, then finished.  Returns 0 or an mprof error. */
int mprof_model_load(const mprof_trace_t *trace, mprof_model_t **out);

/* Several traces (processes, machines) in one model, on one time axis.
 * Trace i's tick t is placed at its wall-clock anchor (clock_offset_ns,
 * recorded at start) + t / clock_freq_hz + offsets_ns[i] (offsets_ns may
 * be NULL: all 0); the model's clock is then 1 GHz.  Ids are kept apart:
 * trace i's thread ids have their top byte XORed with i, its stream and
 * counter ids their top byte (bits 24..31) XORed with i, so trace 0 keeps
 * its own ids; MPROF_MODEL_TRACE() recovers i from a stream or counter id,
 * MPROF_MODEL_THREAD_TRACE() from a thread id.  One
 * trace with no offset is exactly mprof_model_load().  The traces must be
 * all legacy or all not, at most MPROF_MODEL_MAX_TRACES.  Returns 0 or
 * MPROF_EINVAL / MPROF_ENOMEM. */
#define MPROF_MODEL_MAX_TRACES 256
#define MPROF_MODEL_TRACE(stream_id) ((uint32_t)(stream_id) >> 24)
#define MPROF_MODEL_THREAD_TRACE(thread_id) ((uint32_t)((thread_id) >> 56))
int mprof_model_load_many(const mprof_trace_t *const *traces, size_t count,
                          const int64_t *offsets_ns, mprof_model_t **out);

/* How mprof_model_load_with() loads; every field may be 0 (NULL). */
typedef struct mprof_model_load_options_s {
  const int64_t *offsets_ns;  /* per trace, as for mprof_model_load_many */
  mprof_progress_fn progress; /* told after each packet is decoded: done of
                                 total, the packets of all the traces */
  void *progress_context;     /* progress's first argument */
} mprof_model_load_options_t;

/* mprof_model_load_many() with options (NULL: none), for a caller that
 * shows how far a long load has come.  progress is the caller's: the model
 * only calls it (done rises to total, then the model is finished, which
 * takes a last part of the time).  Returns as mprof_model_load_many(). */
int mprof_model_load_with(const mprof_trace_t *const *traces, size_t count,
                          const mprof_model_load_options_t *options,
                          mprof_model_t **out);

/* How many items a model of some traces will hold, at most (threads: the
 * ones created, with some room for threads from before the trace). */
typedef struct mprof_model_sizes_s {
  size_t threads, arrows, labels, spans, samples;
} mprof_model_sizes_t;

/* The sizes the model of the traces will need, into *out, from their
 * events counted by kind (mprof_trace_packet_census(): a few nanoseconds an
 * event, a fraction of the load's cost).  Returns 0. */
int mprof_model_count(const mprof_trace_t *const *traces, size_t count,
                      mprof_model_sizes_t *out);

/* mprof_model_load_many() but for the last step: the model holds every
 * event, copied (strings too), and mprof_model_finish() is left to the
 * caller.  The traces, and the bytes they were opened from, may be closed
 * and freed first: a viewer short of memory (the browser's WebAssembly
 * heap) then lays out the model where the trace's bytes were.  With sizes
 * (from mprof_model_count(); NULL: arrays grow as they fill) the arrays
 * are made that big at once, so that a heap that cannot grow an array in
 * place never holds two copies of one (where memory for them runs short,
 * they grow as they fill).  Returns 0 or MPROF_EINVAL /
 * MPROF_ENOMEM. */
int mprof_model_feed_many(const mprof_trace_t *const *traces, size_t count,
                          const int64_t *offsets_ns,
                          const mprof_model_sizes_t *sizes,
                          mprof_model_t **out);

/* The model of some of trace's packets, packets[0 .. count) (numbers in
 * mprof_trace_packet() order, ascending), their events merged in time
 * order as mprof_model_load() merges a whole trace's, then finished: the
 * part of a trace too big to model whole that a window shows, its packets
 * chosen by its index (mprof_index_window() in mprof/index.h).  Time 0 is
 * the clock value start_ticks: the whole trace's first event
 * (mprof_index_first_ticks()) puts each event where the whole model
 * would.  A thread created before the packets is taken as made before the
 * trace, as in a ring that overwrote its start.  Of the names packets
 * (labels, should_resolve hints), only the events of threads that the
 * ring packets' events name are fed: memory is that of the packets'
 * events, not the trace's.  Returns 0 or MPROF_ENOMEM. */
int mprof_model_load_packets(const mprof_trace_t *trace, const size_t *packets,
                             size_t count, uint64_t start_ticks,
                             mprof_model_t **out);

/* About how many bytes the model of trace's packets packets[0 .. count)
 * (packets NULL: all of them) would take -- its events, threads, spans
 * and arrows, and its arrays' room to grow: what a command weighs against
 * its memory budget before it chooses to load a model. */
uint64_t mprof_model_bytes_estimate(const mprof_trace_t *trace,
                                    const size_t *packets, size_t count);

/* The same estimate of packets holding content_bytes bytes of content in
 * all (their headers' content sizes summed): for a caller that knows
 * those from a trace's index (mprof_index_content_bytes()), without the
 * trace open. */
uint64_t mprof_model_bytes_of_content(uint64_t content_bytes);

void mprof_model_free(mprof_model_t *model);

/* The model's arrays (after mprof_model_finish()). */
const mprof_model_view_t *mprof_model_view(const mprof_model_t *model);

/* The stream id (OS-thread stream number in the trace) of stream index i. */
uint32_t mprof_model_stream_id(const mprof_model_t *model, uint32_t index);

/* A thread's display name: its first label, else its type and id, written
 * to buf (always NUL-terminated).  Returns buf. */
const char *mprof_model_thread_name(const mprof_model_t *model, uint32_t thread,
                                    char *buf, size_t size);

/* The label a thread is best known by: a handle's latest (but not a
 * "net send|recv" label: "tcp from 127.0.0.1:33218", not "tcp"), any
 * other thread's first; NULL if it has none.  Points into the model. */
const char *mprof_model_thread_label(const mprof_model_t *model,
                                     uint32_t thread);

/* Where an arrow's ends are drawn: a read leaves its input where the input
 * ended (it may have resolved long before), a resolve leaves the resolver
 * no later than its end, a try_read reaches the input no later than its
 * end; others are vertical at time_ns. */
void mprof_model_arrow_ends(const mprof_model_t *model,
                            const mprof_arrow_t *arrow, int64_t *from_ns,
                            int64_t *to_ns);

/* Index of the thread with the given trace id (following merges), or
 * MPROF_NO_THREAD. */
uint32_t mprof_model_find(const mprof_model_t *model, uint64_t id);

/* --- Clocks of several traces --------------------------------------------- */

/* How mprof_model_align() placed a trace (aligned ones first). */
typedef enum mprof_align_status_e {
  MPROF_ALIGN_REFERENCE = 0, /* trace 0: the others are placed against it */
  MPROF_ALIGN_BOTH,          /* messages both ways: the midpoint of the
                                offsets they allow */
  MPROF_ALIGN_ONE_WAY,       /* messages one way: moved no further than
                                they demand */
  MPROF_ALIGN_NONE,          /* no message with a placed trace: not moved */
  MPROF_ALIGN_CONFLICT       /* the messages allow no offset (a clock
                                drifted, or labels lie): not moved */
} mprof_align_status_t;

typedef struct mprof_alignment_s {
  int64_t offset_ns;       /* add to the trace's offset to align it */
  int64_t low_ns, high_ns; /* the offsets the messages allow
                              (INT64_MIN, INT64_MAX: unbounded) */
  uint32_t messages;       /* matched sends and receives it was placed by */
  uint32_t status;         /* mprof_align_status_t */
} mprof_alignment_t;

/* Align the traces of a model of trace_count traces (from
 * mprof_model_load_many) by the messages they exchanged: labels
 * "net send|recv tcp SRC DST OFFSET LEN" and "net send|recv udp SRC DST
 * HASH LEN" (docs/interop.md).  A receive cannot come before its send, so
 * each matched pair bounds one clock against another; out[i] (trace_count
 * of them) says how far to move trace i.  Reload with the offsets added to
 * see the result.  Returns 0 or MPROF_EINVAL / MPROF_ENOMEM. */
int mprof_model_align(const mprof_model_t *model, size_t trace_count,
                      mprof_alignment_t *out);

/* A message between traces: a send and the receive it caused (as matched
 * by mprof_model_align()), as thread indexes and model times. */
typedef struct mprof_message_s {
  uint32_t send_thread, receive_thread;
  int64_t send_ns, receive_ns;
} mprof_message_t;

/* Called for each message; return nonzero to stop. */
typedef int (*mprof_message_fn)(void *context, const mprof_message_t *message);

/* Deliver every message between different traces of the model, in the
 * order of the receives' labels (by thread, then time), for arrows between
 * processes.  Returns 0 or MPROF_EINVAL / MPROF_ENOMEM. */
int mprof_model_messages(const mprof_model_t *model, mprof_message_fn fn,
                         void *context);

/* --- Level of detail: what to draw in a window ---------------------------- */

/* One item to draw in a row.  When many things fall within one pixel they
 * come as one summary: `count` > 1 items between start_ns and end_ns, of
 * which `first` is the earliest. */
typedef struct mprof_lod_item_s {
  int64_t start_ns, end_ns;
  uint32_t first; /* thread, span or arrow index */
  uint32_t count;
} mprof_lod_item_t;

/* Threads of row `row` that overlap [t0, t1), merged so that no two items
 * start within ns_per_pixel of each other.  Writes at most max items and
 * returns how many; the work is O(max * log n) whatever the trace size. */
size_t mprof_model_row_threads(const mprof_model_t *model, uint32_t row,
                               int64_t t0, int64_t t1, int64_t ns_per_pixel,
                               mprof_lod_item_t *items, size_t max);

/* Running spans of row `row` in [t0, t1), merged the same way. */
size_t mprof_model_row_running(const mprof_model_t *model, uint32_t row,
                               int64_t t0, int64_t t1, int64_t ns_per_pixel,
                               mprof_lod_item_t *items, size_t max);

/* Arrows whose event time is in [t0, t1): one item per arrow while they
 * are at least ns_per_pixel apart, else summaries (first = arrow index). */
size_t mprof_model_arrows(const mprof_model_t *model, int64_t t0, int64_t t1,
                          int64_t ns_per_pixel, mprof_lod_item_t *items,
                          size_t max);

/* Counter c's value range over each pixel column of [t0, t1): for column
 * i, min[i] and max[i] (the value carried into it when no sample falls in
 * it).  columns <= 65536.  Returns 0, or MPROF_EINVAL. */
int mprof_model_counter_range(const mprof_model_t *model, uint32_t counter,
                              int64_t t0, int64_t t1, uint32_t columns,
                              int64_t *min, int64_t *max);

/* --- Analysis ------------------------------------------------------------- */

/* A should_resolve thread that never resolved. */
typedef struct mprof_stall_s {
  uint32_t thread;      /* the hinted thread */
  uint32_t last;        /* what it became last (itself if no merge) */
  uint32_t first_arrow; /* the interactions just before it stalled: */
  uint32_t arrow_count; /* arrow indexes in analysis.arrow_refs */
} mprof_stall_t;

/* A signal nothing waited on, then a wait on the same thing that never
 * ends. */
typedef struct mprof_lost_wakeup_s {
  uint32_t condition;    /* the signalled thread */
  uint32_t signal_arrow; /* the signal that nobody heard */
  uint32_t waiter;       /* the wait that began later and never ended */
} mprof_lost_wakeup_t;

/* Where one thread's life went: running (its spans), waiting (the union
 * of its waits, split by what it waited on in analysis.waits), in poll (a
 * loop's idle bands: it slept in its poll) and not running (the rest: a
 * loop while callbacks ran, a request while nothing ran it).  idle_ns is
 * in_poll_ns + not_running_ns. */
typedef struct mprof_thread_time_s {
  uint32_t thread;
  int64_t life_ns, running_ns, waiting_ns, idle_ns;
  int64_t in_poll_ns, not_running_ns;
  uint32_t first_wait, wait_count; /* analysis.waits[...] */
} mprof_thread_time_t;

typedef struct mprof_wait_s {
  uint32_t on; /* the thread waited on */
  int64_t ns;  /* time spent waiting on it */
} mprof_wait_t;

/* A chain of waits: chain[0] waited on chain[1] while chain[1] waited on
 * chain[2], and so on (each link overlaps the next); [start_ns, end_ns) is
 * the first link. */
typedef struct mprof_chain_s {
  uint32_t first, length; /* threads in analysis.chain_threads */
  int64_t start_ns, end_ns;
} mprof_chain_t;

/* One step of the critical path, latest first: `thread` was what the path
 * waited for during [start_ns, end_ns), reached through arrow kind `via`. */
typedef struct mprof_path_step_s {
  uint32_t thread;
  uint32_t via; /* mprof_arrow_kind_t that led here */
  int64_t start_ns, end_ns;
} mprof_path_step_t;

/* --- Why: a thread's life as a chain of waits, back to the root ----------- */

/* How one hop of a why chain leads to the next (docs/analysis.md). */
typedef enum mprof_why_via_e {
  MPROF_WHY_TARGET = 0, /* the thread asked about */
  MPROF_WHY_WAITED,     /* the hop before waited on this thread */
  MPROF_WHY_RESOLVED,   /* this thread resolved what the hop before was */
  MPROF_WHY_SIGNALLED,  /* ...or signalled it */
  MPROF_WHY_CREATED,    /* this thread created the hop before */
  MPROF_WHY_SENT,       /* this thread sent the message the hop before
                           received (another process of a merged trace) */
  MPROF_WHY_VIA_COUNT
} mprof_why_via_t;

/* Name of a why link ("target", "waited", "resolved", "signalled",
 * "created", "sent"), or "unknown". */
const char *mprof_why_via_name(mprof_why_via_t via);

/* One hop, latest first: `thread` accounts for [start_ns, end_ns) of the
 * life asked about; `via` says how the hop before led to it, through arrow
 * `arrow` (MPROF_NO_THREAD for a message between processes, or the
 * target). */
typedef struct mprof_why_hop_s {
  uint32_t thread;
  uint32_t via; /* mprof_why_via_t */
  uint32_t arrow;
  int64_t start_ns, end_ns;
} mprof_why_hop_t;

/* Why thread took as long as it did: from its end (the recording's end if
 * it never ended) back through the latest wait it was in or came out of,
 * what it waited on, who resolved or signalled that, what that one waited
 * on, ... and, where a thread waited on nothing, who created it, to the
 * root; across OS threads, and across processes of a merged trace by the
 * messages matched between them.  *hops (free() it) gets *count hops, at
 * most MPROF_WHY_LIMIT.  Returns 0, MPROF_EINVAL (not finished, no such
 * thread) or MPROF_ENOMEM. */
#define MPROF_WHY_LIMIT 256
int mprof_model_why(const mprof_model_t *model, uint32_t thread,
                    mprof_why_hop_t **hops, size_t *count);

/* --- Findings: what went wrong, for every view ---------------------------- */

typedef enum mprof_severity_e {
  MPROF_SEVERITY_ERROR = 0, /* the program is wrong: it hangs, loses work */
  MPROF_SEVERITY_WARNING,   /* it is slow, or wastes, for a reason shown */
  MPROF_SEVERITY_INFO       /* worth knowing, or what the trace cannot tell */
} mprof_severity_t;

/* The kinds of finding, in the order they are listed within a severity
 * (docs/analysis.md defines each): X(ENUM_SUFFIX, "name"). */
#define MPROF_FINDING_KINDS(X)                                                 \
  X(LOST_WAKEUP, "lost_wakeup")                                                \
  X(WAIT_CYCLE, "wait_cycle")                                                  \
  X(STALLED, "stalled")                                                        \
  X(LOOP_BLOCKED, "loop_blocked")                                              \
  X(POOL_SATURATED, "pool_saturated")                                          \
  X(BUSY_LOOP, "busy_loop")                                                    \
  X(RETRY_STORM, "retry_storm")                                                \
  X(WRITE_BACKLOG, "write_backlog")                                            \
  X(LEAKED, "leaked")                                                          \
  X(CANNOT_TELL, "cannot_tell")

typedef enum mprof_finding_kind_e {
#define MPROF__FINDING_ENUM(name, text) MPROF_FINDING_##name,
  MPROF_FINDING_KINDS(MPROF__FINDING_ENUM)
#undef MPROF__FINDING_ENUM
      MPROF_FINDING_KIND_COUNT
} mprof_finding_kind_t;

/* Name of a finding kind ("lost_wakeup", ...), or "unknown". */
const char *mprof_finding_kind_name(mprof_finding_kind_t kind);

/* Name of a severity ("error", "warning", "info"), or "unknown". */
const char *mprof_severity_name(mprof_severity_t severity);

/* What one piece of evidence is. */
typedef enum mprof_evidence_kind_e {
  MPROF_EVIDENCE_ARROW = 0, /* arrow `arrow` (a signal, a create, ...) */
  MPROF_EVIDENCE_RAN,       /* `thread` ran on the loop's OS thread */
  MPROF_EVIDENCE_QUEUED,    /* `thread` waited in the thread pool's queue */
  MPROF_EVIDENCE_PENDING,   /* `thread` was pending (waiting for its turn) */
  MPROF_EVIDENCE_SPUN,      /* `thread`'s callback ran `count` times */
  MPROF_EVIDENCE_WAITED,    /* `thread` waited on the next one of a cycle */
  MPROF_EVIDENCE_KIND_COUNT
} mprof_evidence_kind_t;

/* Name of an evidence kind ("arrow", "ran", "queued", "pending", "spun",
 * "waited"). */
const char *mprof_evidence_kind_name(mprof_evidence_kind_t kind);

/* One thing the trace holds that proves a finding: during [start_ns,
 * end_ns) (an instant for an arrow). */
typedef struct mprof_evidence_s {
  uint32_t kind;   /* mprof_evidence_kind_t */
  uint32_t thread; /* the thread it is about (an arrow's source) */
  uint32_t arrow;  /* ARROW: its index; else MPROF_NO_THREAD */
  uint32_t count;  /* SPUN: callbacks run; else 1 */
  int64_t start_ns, end_ns;
} mprof_evidence_t;

/* A finding.  threads[0] is the thread at fault (the one a view selects);
 * [start_ns, end_ns) is what to zoom to; value_ns its measure (how long
 * the loop was blocked, the longest queue wait, ...; 0 where none). */
typedef struct mprof_finding_s {
  uint32_t kind;     /* mprof_finding_kind_t */
  uint32_t severity; /* mprof_severity_t */
  uint32_t summary;  /* one line for a person: analysis.text + summary */
  uint32_t first_thread, thread_count;     /* analysis.finding_threads */
  uint32_t first_evidence, evidence_count; /* analysis.evidence */
  int64_t start_ns, end_ns;
  int64_t value_ns;
} mprof_finding_t;

/* --- Requests: latency and failures by kind ------------------------------- */

/* Requests (libuv's fs, write, connect, work, ... threads) grouped by
 * kind: their type and first label with numbers, paths and addresses left
 * out ("fs open /tmp/x/f3" -> "fs open").  Times are lives, creation to
 * end; for thread-pool work (type work) also its wait in the pool's queue
 * (creation to the first run off the loop) and its run there; -1 where
 * the trace does not tell. */
typedef struct mprof_request_group_s {
  uint32_t name; /* analysis.text + name */
  uint16_t type; /* mprof_type_t */
  uint32_t count, failed, pending;
  int64_t p50_ns, p90_ns, p99_ns, max_ns; /* of the ended ones */
  int64_t queue_p50_ns, queue_max_ns, run_p50_ns, run_max_ns;
  uint32_t first_failure, failure_count; /* analysis.failures */
  uint32_t slowest;              /* the longest-lived (to the recording's end if
                                    it never ended), a thread index */
  uint32_t first_hop, hop_count; /* why it took so long: its why chain
                                    (mprof_model_why), analysis.why_hops */
} mprof_request_group_t;

/* How many requests of a group failed with one error. */
typedef struct mprof_failure_count_s {
  uint32_t error; /* the failure text: model strings + error */
  uint32_t count;
  uint32_t example; /* one of them (the first), a thread index */
} mprof_failure_count_t;

typedef struct mprof_analysis_s {
  mprof_finding_t *findings;
  size_t finding_count; /* most severe first */
  uint32_t *finding_threads;
  size_t finding_thread_count;
  mprof_evidence_t *evidence;
  size_t evidence_count;
  char *text;
  size_t text_size; /* summaries and group names, NUL-ended */
  mprof_request_group_t *requests;
  size_t request_count; /* most first */
  mprof_failure_count_t *failures;
  size_t failure_count;
  mprof_stall_t *stalls;
  size_t stall_count;
  mprof_lost_wakeup_t *lost_wakeups;
  size_t lost_wakeup_count;
  mprof_thread_time_t *times;
  size_t time_count; /* by thread index */
  mprof_wait_t *waits;
  size_t wait_count;
  mprof_chain_t *chains;
  size_t chain_count; /* longest first */
  mprof_chain_t *cycles;
  size_t cycle_count; /* waits in a circle, each
                         thread on the next, the
                         last on the first, open
                         at the trace's end */
  uint32_t *chain_threads;
  size_t chain_thread_count;
  uint32_t *arrow_refs;
  size_t arrow_ref_count;
  uint32_t path_target; /* the thread whose critical path is given */
  mprof_path_step_t *path;
  size_t path_count;
  mprof_why_hop_t *why_hops;
  size_t why_hop_count; /* the requests' chains */
} mprof_analysis_t;

/* How many interactions to keep before each stall, and chains to keep. */
#define MPROF_STALL_CONTEXT 5
#define MPROF_CHAIN_LIMIT 10

/* Thresholds of the detectors; 0 takes the default. */
typedef struct mprof_analysis_options_s {
  int64_t loop_blocked_ns; /* a callback this long blocks its loop: 20 ms */
  int64_t busy_loop_ns;    /* a loop spinning this long is busy: 200 ms */
  int events_missing;      /* nonzero: the caller knows the trace lost
                              events (damaged packets), so a thread that
                              never ended may have ended among them: its
                              stall or lost wake-up is only an info */
} mprof_analysis_options_t;

#define MPROF_LOOP_BLOCKED_NS 20000000
#define MPROF_BUSY_LOOP_NS 200000000

/* Analyse a finished model with the default thresholds.  Returns 0 or
 * MPROF_ENOMEM; free with mprof_analysis_free(). */
int mprof_model_analyse(const mprof_model_t *model, mprof_analysis_t *out);

/* mprof_model_analyse() with thresholds (options NULL: the defaults).
 * Returns 0, MPROF_EINVAL (a negative threshold, an unfinished model) or
 * MPROF_ENOMEM. */
int mprof_model_analyse_with(const mprof_model_t *model,
                             const mprof_analysis_options_t *options,
                             mprof_analysis_t *out);

void mprof_analysis_free(mprof_analysis_t *analysis);

/* --- Streaming analysis: a trace of any size, in bounded memory ----------- */

/* How mprof_analysis_stream() runs; every field may be 0 (NULL). */
typedef struct mprof_stream_options_s {
  mprof_analysis_options_t analysis; /* the detectors' thresholds */
  size_t top;                 /* the longest-lived threads whose times to keep
                                 (0: all of them, in memory that grows) */
  const int64_t *offsets_ns;  /* per trace, as for mprof_model_load_many */
  mprof_progress_fn progress; /* told after each packet is decoded */
  void *progress_context;
  const int *damage; /* the caller's count of damage its reader found,
                        read once the events are in: above 0, as
                        analysis.events_missing (NULL: none) */
} mprof_stream_options_t;

/* What a streaming analysis found.  analysis's thread indexes are into
 * `named`: a finished model of only the threads the analysis names (with
 * their labels, creators and endings), whose view holds the whole trace's
 * events, stream_count, discarded, duration_ns and end_ns.  Filled as by
 * mprof_model_analyse_with(): the requests (latency percentiles exact up
 * to 65536 ended requests of a kind, then within 1/128 below; no why
 * chains: hop_count 0), failures, stalls (the arrows before them in
 * named's arrows), the `top` threads' times (times[0] is the root's),
 * the lost wake-ups, the wait cycles, and the findings lost_wakeup,
 * wait_cycle, stalled, pool_saturated, retry_storm, write_backlog,
 * leaked and cannot_tell.  Left empty: wait chains, the critical path,
 * the findings loop_blocked and busy_loop (docs/analysis.md,
 * "Streaming"). */
typedef struct mprof_stream_result_s {
  mprof_model_t *named;
  mprof_analysis_t analysis;
  uint64_t thread_count; /* threads of the whole trace, not the root */
  uint64_t late;         /* events that named a thread already retired
                            (0: what is filled is the model's, exactly) */
} mprof_stream_result_t;

/* Analyse traces (on one time axis, as mprof_model_load_many) in one pass
 * over their events, in memory bounded by the threads alive at a time,
 * not by the trace's size.  Returns 0, MPROF_EINVAL (no trace, mixed
 * legacy and not, a negative threshold) or MPROF_ENOMEM; free *out with
 * mprof_stream_result_free(). */
int mprof_analysis_stream(const mprof_trace_t *const *traces, size_t count,
                          const mprof_stream_options_t *options,
                          mprof_stream_result_t *out);

void mprof_stream_result_free(mprof_stream_result_t *result);

#ifdef __cplusplus
}
#endif

#endif /* MPROF_MODEL_H */
