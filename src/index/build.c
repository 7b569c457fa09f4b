/* build.c -- mprof_index_build(): one pass over a trace's packets, split
 * across OS threads, that counts each packet's events and their times
 * and bins them per stream at the pyramid's finest level; the coarser
 * levels are then summed from it.
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

/* What all workers share. */
typedef struct job_s {
  const mprof_trace_t *trace;
  mprof_index_t *index;
  const uint32_t *stream_of; /* per packet, its stream's number */
  double ns_per_tick;
  size_t next; /* the next packet to take (atomic) */
} job_t;

/* One worker: its packets' bins, in the order it made them. */
typedef struct worker_s {
  job_t *job;
  pthread_t thread;
  mprof_index_bin_t *bins;
  size_t bin_count, bin_capacity;
  mprof_pass_t pass;            /* a packet's bytes and events */
  mprof_index_packet_t *packet; /* the one being counted */
  int failed;                   /* out of memory */
} worker_t;

/* --- Counting a packet ---------------------------------------------------- */

/* One more event of the packet's stream in bin: added to the last cell if
 * it is that bin's (events come in time order, mostly), else a new one. */
static void add_to_bin(worker_t *w, uint32_t stream, uint64_t bin) {
  mprof_index_bin_t *last = w->bin_count ? &w->bins[w->bin_count - 1] : NULL;
  if (last && last->bin == bin && last->stream == stream) {
    last->events++;
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
  w->bins[w->bin_count++] = (mprof_index_bin_t){bin, 1, stream, 0};
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
  add_to_bin(w, p->stream, ns >> job->index->finest_log2_ns);
}

/* A run of the packet's events, counted. */
static void note_run(void *context, const mprof_event_t *events, size_t count) {
  for (size_t i = 0; i < count; i++) note_event(context, &events[i]);
}

static void count_packet(worker_t *w, size_t i) {
  const mprof_trace_t *t = w->job->trace;
  const mprof_packet_info_t *pk = mprof_trace_packet(t, i);
  mprof_index_packet_t *p = &w->job->index->packets[i];
  *p = (mprof_index_packet_t){pk->offset,           0, 0, 0, pk->content_bytes,
                              w->job->stream_of[i], 0};
  w->packet = p;
  p->damaged = (uint32_t)mprof_pass_packet(&w->pass, t, i, note_run, w);
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

/* Gather the workers' cells into the finest level, then sum the levels
 * above it until each stream has one bin (or bins reach 2^63 ns). */
static int make_pyramid(mprof_index_t *index, worker_t *workers,
                        unsigned count) {
  size_t total = 0;
  for (unsigned i = 0; i < count; i++) total += workers[i].bin_count;
  size_t capacity = 2 * total + 1;
  index->bins = malloc(capacity * sizeof *index->bins);
  if (!index->bins) return -1;
  size_t n = 0;
  for (unsigned i = 0; i < count; i++)
    for (size_t j = 0; j < workers[i].bin_count; j++)
      index->bins[n++] = workers[i].bins[j];
  qsort(index->bins, n, sizeof *index->bins, bin_order);
  n = merge_bins(index->bins, n);
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
  for (unsigned i = 0; i < count; i++) workers[i].job = job;
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

static int build(const mprof_trace_t *t, mprof_index_t *index,
                 unsigned threads) {
  const mprof_trace_info_t *info = mprof_trace_info(t);
  index->packet_count = mprof_trace_packet_count(t);
  index->start_ticks = info->start_ticks;
  index->clock_freq_hz = info->clock_freq_hz;
  index->recording = info->recording;
  index->packets = calloc(index->packet_count + 1, sizeof *index->packets);
  uint32_t *stream_of = calloc(index->packet_count + 1, sizeof *stream_of);
  unsigned count = worker_count(threads, index->packet_count);
  worker_t *workers = calloc(count, sizeof *workers);
  int err = !index->packets || !stream_of || !workers ||
            number_streams(t, index, stream_of);
  job_t job = {t, index, stream_of, 1e9 / (double)info->clock_freq_hz, 0};
  if (!err) {
    index->finest_log2_ns = finest_log2_ns(
        t, job.ns_per_tick, index->start_ticks, index->stream_count);
    err = run_workers(&job, workers, count) ||
          make_pyramid(index, workers, count);
  }
  if (!err) sum_events(index);
  for (unsigned i = 0; workers && i < count; i++) free(workers[i].bins);
  free(workers);
  free(stream_of);
  return err ? MPROF_ENOMEM : 0;
}

int mprof_index_build(const mprof_trace_t *t, const mprof_index_key_t *key,
                      unsigned threads, mprof_index_t **out) {
  mprof_index_t *index = calloc(1, sizeof *index);
  if (!index) return MPROF_ENOMEM;
  index->key = *key;
  int err = build(t, index, threads);
  if (err) {
    mprof_index_free(index);
    return err;
  }
  *out = index;
  return 0;
}
