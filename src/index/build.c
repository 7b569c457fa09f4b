/* build.c -- mprof_index_build() and mprof_index_extend(): one pass over
 * a trace's packets, split across OS threads, that counts each packet's
 * events and their times and bins them at the pyramid's finest level,
 * packet by packet; the finest level sums the packets' bins, and the
 * coarser levels are summed from it.  An extension takes an unchanged
 * packet's counts and bins from the index before, and decodes the rest.
 *
 * The finest bins are as narrow as keeps their number near FINE_BINS for
 * the whole trace (its streams times its span): a viewer zoomed in further
 * decodes the few packets in view, which the packet table finds.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index_internal.h"
#include "mprof/census.h"

/* About how many (stream, bin) cells the finest level may have. */
#define FINE_BINS ((uint64_t)1 << 20)
/* Packet bytes per finest cell, at least (about 30 events). */
#define BYTES_PER_CELL 256.0
/* Packets a worker takes at once. */
#define CHUNK 64

/* Where a packet's cells lie: in worker's bins, count from start. */
typedef struct placed_s {
  unsigned worker;
  size_t start, count;
} placed_t;

/* What all workers share. */
typedef struct job_s {
  const mprof_trace_t *trace;
  mprof_index_t *index;
  const uint32_t *stream_of; /* per packet, its stream's number */
  double ns_per_tick;
  const mprof_index_t *old; /* the index extended, or NULL */
  const size_t *reuse;      /* per packet, old's same one, or SIZE_MAX */
  unsigned shift;           /* old's finest bins are 2^shift times finer */
  placed_t *placed;         /* per packet */
  size_t next;              /* the next packet to take (atomic) */
  size_t decoded;           /* packets decoded (atomic) */
} job_t;

/* One worker: its packets' cells, packet after packet. */
typedef struct worker_s {
  job_t *job;
  unsigned number;
  pthread_t thread;
  mprof_index_bin_t *bins;
  size_t bin_count, bin_capacity;
  size_t packet_start;          /* the first cell of the packet counted */
  mprof_pass_t pass;            /* a packet's bytes and events */
  mprof_index_packet_t *packet; /* the one being counted */
  int failed;                   /* out of memory */
} worker_t;

/* --- Counting a packet ---------------------------------------------------- */

/* events more of the packet's stream in bin: added to the packet's last
 * cell if it is that bin's (events come in time order, mostly), else a
 * new one. */
static void add_to_bin(worker_t *w, uint32_t stream, uint64_t bin,
                       uint64_t events) {
  mprof_index_bin_t *last =
      w->bin_count > w->packet_start ? &w->bins[w->bin_count - 1] : NULL;
  if (last && last->bin == bin) {
    last->events += events;
    return;
  }
  if (w->bin_count == w->bin_capacity) {
    size_t capacity = w->bin_capacity ? 2 * w->bin_capacity : 4096;
    mprof_index_bin_t *bins = realloc(w->bins, capacity * sizeof *bins);
    if (!bins) {
      w->failed = 1;
      return;
    }
    w->bins = bins;
    w->bin_capacity = capacity;
  }
  w->bins[w->bin_count++] = (mprof_index_bin_t){bin, events, stream, 0};
}

static void note_event(worker_t *w, const mprof_event_t *ev) {
  mprof_index_packet_t *p = w->packet;
  if (!p->events || ev->time_ticks < p->first_ticks)
    p->first_ticks = ev->time_ticks;
  if (ev->time_ticks > p->last_ticks) p->last_ticks = ev->time_ticks;
  p->events++;
  const job_t *job = w->job;
  uint64_t start = job->index->start_ticks;
  uint64_t ticks = ev->time_ticks > start ? ev->time_ticks - start : 0;
  uint64_t ns = (uint64_t)((double)ticks * job->ns_per_tick);
  add_to_bin(w, p->stream, ns >> job->index->finest_log2_ns, 1);
}

/* A run of the packet's events, counted. */
static void note_run(void *context, const mprof_event_t *events, size_t count) {
  for (size_t i = 0; i < count; i++) note_event(context, &events[i]);
}

static void decode_packet(worker_t *w, size_t i) {
  const mprof_trace_t *t = w->job->trace;
  const mprof_packet_info_t *pk = mprof_trace_packet(t, i);
  mprof_index_packet_t *p = &w->job->index->packets[i];
  *p = (mprof_index_packet_t){pk->offset,
                              0,
                              0,
                              0,
                              pk->content_bytes,
                              w->job->stream_of[i],
                              0,
                              mprof__index_header_hash(pk)};
  w->packet = p;
  p->damaged = (uint32_t)mprof_pass_packet(&w->pass, t, i, note_run, w);
  __atomic_fetch_add(&w->job->decoded, 1, __ATOMIC_RELAXED);
}

/* Packet i as old packet j counted it, its cells made as wide as ours. */
static void take_old_packet(worker_t *w, size_t i, size_t j) {
  const job_t *job = w->job;
  mprof_index_packet_t *p = &job->index->packets[i];
  *p = job->old->packets[j];
  p->stream = job->stream_of[i];
  for (size_t c = job->old->cell_first[j]; c < job->old->cell_first[j + 1]; c++)
    add_to_bin(w, p->stream, job->old->cells[c].bin >> job->shift,
               job->old->cells[c].events);
}

static int bin_order(const void *a, const void *b) {
  const mprof_index_bin_t *x = a, *y = b;
  if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
  return x->bin < y->bin ? -1 : x->bin > y->bin;
}

/* bins[0 .. n), sorted, with the cells of one (stream, bin) summed into
 * one.  Returns how many are left. */
static size_t merge_bins(mprof_index_bin_t *bins, size_t n) {
  size_t kept = 0;
  for (size_t i = 0; i < n; i++)
    if (kept && !bin_order(&bins[kept - 1], &bins[i]))
      bins[kept - 1].events += bins[i].events;
    else
      bins[kept++] = bins[i];
  return kept;
}

/* The packet's cells sorted by bin, one per bin. */
static void sort_packet_cells(worker_t *w) {
  size_t n = w->bin_count - w->packet_start, i = 1;
  if (n < 2) return; /* and bins may be NULL yet */
  mprof_index_bin_t *cells = w->bins + w->packet_start;
  while (i < n && cells[i - 1].bin < cells[i].bin) i++;
  if (i >= n) return;
  qsort(cells, n, sizeof *cells, bin_order);
  w->bin_count = w->packet_start + merge_bins(cells, n);
}

static void count_packet(worker_t *w, size_t i) {
  job_t *job = w->job;
  w->packet_start = w->bin_count;
  size_t same = job->reuse ? job->reuse[i] : SIZE_MAX;
  if (same != SIZE_MAX)
    take_old_packet(w, i, same);
  else
    decode_packet(w, i);
  sort_packet_cells(w);
  job->placed[i] =
      (placed_t){w->number, w->packet_start, w->bin_count - w->packet_start};
}

static void *work(void *context) {
  worker_t *w = context;
  job_t *job = w->job;
  size_t packets = job->index->packet_count;
  for (;;) {
    size_t first = __atomic_fetch_add(&job->next, CHUNK, __ATOMIC_RELAXED);
    if (first >= packets) break;
    size_t end = first + CHUNK < packets ? first + CHUNK : packets;
    for (size_t i = first; i < end; i++) count_packet(w, i);
  }
  mprof_pass_free(&w->pass);
  return NULL;
}

/* --- The streams, the span and the finest bins ---------------------------- */

/* Number the packets' streams in their order (packets come sorted by
 * class, then stream). */
static int number_streams(const mprof_trace_t *t, mprof_index_t *index,
                          uint32_t *stream_of) {
  index->streams = calloc(index->packet_count + 1, sizeof *index->streams);
  if (!index->streams) return -1;
  for (size_t i = 0; i < index->packet_count; i++) {
    const mprof_packet_info_t *pk = mprof_trace_packet(t, i);
    mprof_index_stream_t *last =
        index->stream_count ? &index->streams[index->stream_count - 1] : NULL;
    if (!last || last->stream_class != pk->stream_class ||
        last->instance != pk->stream_instance)
      index->streams[index->stream_count++] =
          (mprof_index_stream_t){pk->stream_class, pk->stream_instance};
    stream_of[i] = (uint32_t)(index->stream_count - 1);
  }
  return 0;
}

/* The finest level's bin width, 2^k ns: the smallest that keeps streams x
 * span / 2^k under FINE_BINS and under one cell per BYTES_PER_CELL of
 * packet content (a few dozen events), the span read from the packet
 * headers. */
static unsigned finest_log2_ns(const mprof_trace_t *t, double ns_per_tick,
                               uint64_t start, size_t streams) {
  uint64_t end = start, bytes = 0;
  for (size_t i = 0; i < mprof_trace_packet_count(t); i++) {
    const mprof_packet_info_t *pk = mprof_trace_packet(t, i);
    if (pk->timestamp_end > end) end = pk->timestamp_end;
    if (pk->timestamp_begin > end) end = pk->timestamp_begin;
    bytes += pk->content_bytes;
  }
  double most = (double)bytes / BYTES_PER_CELL;
  if (most > (double)FINE_BINS) most = (double)FINE_BINS;
  double cells = (double)(end - start) * ns_per_tick * (double)streams;
  unsigned k = 0;
  while (k < 63 && cells / (double)((uint64_t)1 << k) > most) k++;
  return k;
}

/* --- The pyramid ---------------------------------------------------------- */

/* Whether some stream has more than one bin among bins[0 .. n) (sorted). */
static int some_stream_spread(const mprof_index_bin_t *bins, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (bins[i].stream == bins[i - 1].stream) return 1;
  return 0;
}

/* Append to the index's bins (room for *capacity) the level above its
 * last: each bin's number halved, cells summed (the order stays sorted).
 * Returns 1 if a stream still has more than one bin, 0 at the top, -1
 * without memory. */
static int add_coarser_level(mprof_index_t *index, size_t *capacity) {
  size_t from = index->level_first[index->level_count - 1];
  size_t to = index->level_first[index->level_count];
  size_t n = to - from;
  if (to + n > *capacity) {
    size_t grown = 2 * (to + n);
    mprof_index_bin_t *bins = realloc(index->bins, grown * sizeof *bins);
    if (!bins) return -1;
    index->bins = bins;
    *capacity = grown;
  }
  mprof_index_bin_t *next = index->bins + to;
  for (size_t i = 0; i < n; i++) {
    next[i] = index->bins[from + i];
    next[i].bin >>= 1;
  }
  size_t kept = merge_bins(next, n);
  index->level_count++;
  index->level_first[index->level_count] = to + kept;
  index->bin_count = to + kept;
  return some_stream_spread(next, kept);
}

/* The workers' cells into the index, packet by packet. */
static int gather_cells(mprof_index_t *index, const worker_t *workers,
                        const placed_t *placed) {
  size_t total = 0, n = 0;
  for (size_t i = 0; i < index->packet_count; i++) total += placed[i].count;
  index->cells = malloc((total + 1) * sizeof *index->cells);
  index->cell_first =
      malloc((index->packet_count + 1) * sizeof *index->cell_first);
  if (!index->cells || !index->cell_first) return -1;
  for (size_t i = 0; i < index->packet_count; i++) {
    const mprof_index_bin_t *from = workers[placed[i].worker].bins;
    index->cell_first[i] = n;
    for (size_t c = placed[i].start; c < placed[i].start + placed[i].count; c++)
      index->cells[n++] = (mprof__index_cell_t){from[c].bin, from[c].events};
  }
  index->cell_first[index->packet_count] = index->cell_count = n;
  return 0;
}

/* Whether bins[0 .. n) are sorted already: a stream's packets come in
 * time order, each with its cells sorted, so they mostly are, and a sort
 * would take a serial n log n where this takes n. */
static int in_order(const mprof_index_bin_t *bins, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (bin_order(&bins[i - 1], &bins[i]) > 0) return 0;
  return 1;
}

int mprof__index_finest(const mprof_index_t *index, mprof_index_bin_t **out,
                        size_t *count) {
  size_t n = 0;
  mprof_index_bin_t *bins = malloc((2 * index->cell_count + 1) * sizeof *bins);
  if (!bins) return -1;
  for (size_t i = 0; i < index->packet_count; i++)
    for (size_t c = index->cell_first[i]; c < index->cell_first[i + 1]; c++)
      bins[n++] =
          (mprof_index_bin_t){index->cells[c].bin, index->cells[c].events,
                              index->packets[i].stream, 0};
  if (!in_order(bins, n)) qsort(bins, n, sizeof *bins, bin_order);
  *out = bins;
  *count = merge_bins(bins, n);
  return 0;
}

/* The finest level, then the levels above it until each stream has one
 * bin (or bins reach 2^63 ns). */
static int make_pyramid(mprof_index_t *index) {
  size_t capacity = 2 * index->cell_count + 1, n;
  if (mprof__index_finest(index, &index->bins, &n)) return -1;
  index->level_count = 1;
  index->level_first[0] = 0;
  index->level_first[1] = index->bin_count = n;
  size_t levels = MPROF__INDEX_LEVELS_MAX - index->finest_log2_ns;
  int more = some_stream_spread(index->bins, n);
  while (more > 0 && index->level_count < levels)
    more = add_coarser_level(index, &capacity);
  return more < 0 ? -1 : 0;
}

/* --- Building ------------------------------------------------------------- */

static unsigned worker_count(unsigned threads, size_t packets) {
  if (!threads) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    threads = cores > 0 ? (unsigned)cores : 1;
  }
  size_t chunks = (packets + CHUNK - 1) / CHUNK;
  if (threads > chunks) threads = chunks ? (unsigned)chunks : 1;
  return threads;
}

/* Count every packet on count workers (the first on this thread). */
static int run_workers(job_t *job, worker_t *workers, unsigned count) {
  unsigned started = 1;
  for (unsigned i = 0; i < count; i++) {
    workers[i].job = job;
    workers[i].number = i;
  }
  for (; started < count; started++)
    if (pthread_create(&workers[started].thread, NULL, work, &workers[started]))
      break;
  work(&workers[0]);
  int failed = workers[0].failed;
  for (unsigned i = 1; i < started; i++) {
    pthread_join(workers[i].thread, NULL);
    failed |= workers[i].failed;
  }
  return failed ? -1 : 0;
}

static void sum_events(mprof_index_t *index) {
  for (size_t i = 0; i < index->packet_count; i++)
    index->events += index->packets[i].events;
}

/* Whether old's packets can be taken into index: the same trace (uuid),
 * counted from the same start on the same clock, in bins no wider. */
static int can_take_from(const mprof_index_t *old, const mprof_index_t *index) {
  return old && !memcmp(old->key.uuid, index->key.uuid, 16) &&
         old->start_ticks == index->start_ticks &&
         old->clock_freq_hz == index->clock_freq_hz &&
         old->finest_log2_ns <= index->finest_log2_ns;
}

/* Which packets job takes from old, if any. */
static int plan_reuse(job_t *job, const mprof_index_t *old, size_t **reuse) {
  *reuse = NULL;
  if (!can_take_from(old, job->index)) return 0;
  *reuse = malloc((job->index->packet_count + 1) * sizeof **reuse);
  if (!*reuse || mprof__index_reuse(old, job->trace, *reuse)) return -1;
  job->old = old;
  job->reuse = *reuse;
  job->shift = job->index->finest_log2_ns - old->finest_log2_ns;
  return 0;
}

/* Count the packets on count workers, the cells gathered. */
static int count_all(job_t *job, const mprof_index_t *old, unsigned count) {
  worker_t *workers = calloc(count, sizeof *workers);
  size_t *reuse = NULL;
  int err = !workers || plan_reuse(job, old, &reuse) ||
            run_workers(job, workers, count) ||
            gather_cells(job->index, workers, job->placed);
  for (unsigned i = 0; workers && i < count; i++) free(workers[i].bins);
  free(workers);
  free(reuse);
  return err ? -1 : 0;
}

static int build(const mprof_trace_t *t, const mprof_index_t *old,
                 mprof_index_t *index, unsigned threads) {
  const mprof_trace_info_t *info = mprof_trace_info(t);
  index->packet_count = mprof_trace_packet_count(t);
  index->start_ticks = info->start_ticks;
  index->clock_freq_hz = info->clock_freq_hz;
  index->recording = info->recording;
  index->packets = calloc(index->packet_count + 1, sizeof *index->packets);
  uint32_t *stream_of = calloc(index->packet_count + 1, sizeof *stream_of);
  placed_t *placed = calloc(index->packet_count + 1, sizeof *placed);
  int err = !index->packets || !stream_of || !placed ||
            number_streams(t, index, stream_of);
  job_t job = {t,    index, stream_of, 1e9 / (double)info->clock_freq_hz,
               NULL, NULL,  0,         placed,
               0,    0};
  if (!err) {
    index->finest_log2_ns = finest_log2_ns(
        t, job.ns_per_tick, index->start_ticks, index->stream_count);
    err = count_all(&job, old, worker_count(threads, index->packet_count)) ||
          make_pyramid(index);
  }
  if (!err) sum_events(index);
  index->packets_decoded = job.decoded;
  free(placed);
  free(stream_of);
  return err ? MPROF_ENOMEM : 0;
}

int mprof_index_extend(const mprof_index_t *old, const mprof_trace_t *t,
                       const mprof_index_key_t *key, unsigned threads,
                       mprof_index_t **out) {
  mprof_index_t *index = calloc(1, sizeof *index);
  if (!index) return MPROF_ENOMEM;
  index->key = *key;
  int err = build(t, old, index, threads);
  if (err) {
    mprof_index_free(index);
    return err;
  }
  *out = index;
  return 0;
}

int mprof_index_build(const mprof_trace_t *t, const mprof_index_key_t *key,
                      unsigned threads, mprof_index_t **out) {
  return mprof_index_extend(NULL, t, key, threads, out);
}
