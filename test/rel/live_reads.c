/* live_reads.c -- consistent live reads: two OS threads record numbered
 * events at full speed into an overwrite ring in memory while this thread
 * takes SNAPSHOTS snapshots of it with the reader (mprof_trace_open_memory()
 * copies a live trace packet by packet, see docs/FORMAT.md section 9).
 *
 *   live_reads SNAPSHOTS [DIR]
 *
 * In every snapshot each thread's values must be contiguous within a packet
 * and increasing from packet to packet (no torn, duplicated or reordered
 * event; a gap only where a packet was reused between two packet copies),
 * every event must decode, and the reader must report nothing but packets
 * it could not copy.  And a snapshot holds what was written before it:
 * each writer publishes the value it last wrote, and a snapshot's newest
 * value of each writer must be at least the one published before the
 * snapshot began, unless the writers wrote enough during the snapshot to
 * lap the ring (then the packet that held it may have been reused), or the
 * writer's own stream shows the ring's one exception (docs/FORMAT.md 9.2):
 * a writer stalled just after it opened a new packet, before the event
 * that needed it, has closed the packet with its newest values, which the
 * other writer may have lapped before the snapshot began; its newest
 * packet then holds no value and its predecessor is gone.  Both kinds of
 * snapshot are counted, and must be fewer than half.  With DIR, every
 * 1000th snapshot is saved there as snap-N.ctf, for `mprof check`.  Prints
 * the figures; exit 1 on a failure.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mprof.h"
#include "mprof/read.h"
#include "in_memory.h"

#define BUFFER_BYTES (256u * 1024u)
#define WRITERS 2
/* The most ring streams a snapshot may hold: the writers' and the main
 * thread's, with room to spare. */
#define MAX_STREAMS 8
/* No counter_value event takes more bytes (docs/FORMAT.md, 4.1: 23 for
 * the widest form). */
#define MAX_EVENT_BYTES 32u

static int stop;
/* Per counter, the value its writer last wrote (mprof_counter_value()
 * returned: committed), -1 before the first. */
static int64_t written[WRITERS + 1] = {-1, -1, -1};

static void *write_values(void *arg) {
  mprof_counter_t counter = (mprof_counter_t)(uintptr_t)arg;
  for (int64_t seq = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); seq++) {
    mprof_counter_value(counter, seq);
    __atomic_store_n(&written[counter], seq, __ATOMIC_RELEASE);
  }
  mprof_thread_exit();
  return NULL;
}

typedef struct snapshot_check_s {
  int64_t last[WRITERS + 1]; /* last value of each counter, -1: none */
  int64_t packet_first;      /* this packet's previous value, -1: none */
  uint64_t packet_stream;    /* this packet's stream */
  uint64_t packet_values;    /* values in this packet */
  /* 1 + the stream of each counter's values, 0: none seen yet (kept from
   * snapshot to snapshot: a writer keeps its OS thread's stream). */
  uint64_t stream_of[WRITERS + 1];
  /* Ring streams whose newest packet holds no value while the one before
   * it is gone: a writer stalled in a new packet, lapped (see above). */
  uint64_t overwritten[MAX_STREAMS];
  int overwritten_count;
  uint64_t values, left_out_lines;
  uint64_t lapped;  /* snapshots the writers could have lapped */
  uint64_t stalled; /* snapshots with a stalled writer lapped */
  int failed;
} snapshot_check_t;

static void on_diag(void *context, const char *message) {
  snapshot_check_t *c = context;
  if (strstr(message, "changed faster than they could be copied")) {
    c->left_out_lines++;
    return;
  }
  fprintf(stderr, "live_reads: reader: %s\n", message);
  c->failed = 1;
}

static int on_event(void *context, const mprof_event_t *ev) {
  snapshot_check_t *c = context;
  if (ev->kind != MPROF_EVENT_COUNTER_VALUE) return 0;
  if (ev->counter < 1 || ev->counter > WRITERS) return c->failed = 1;
  int64_t *last = &c->last[ev->counter];
  int torn = c->packet_first >= 0 && ev->value != c->packet_first + 1;
  if (torn || ev->value <= *last) {
    fprintf(stderr, "live_reads: counter %u: %" PRId64 " after %" PRId64 "%s\n",
            ev->counter, ev->value, *last, torn ? " in one packet" : "");
    return c->failed = 1;
  }
  *last = c->packet_first = ev->value;
  c->stream_of[ev->counter] = 1 + c->packet_stream;
  c->packet_values++;
  c->values++;
  return 0;
}

/* Decode packet i, and note its stream if the packet is its stream's
 * newest, in the ring, holds no value and its predecessor is gone. */
static void read_packet(const mprof_trace_t *trace, size_t i,
                        snapshot_check_t *c) {
  const mprof_packet_info_t *p = mprof_trace_packet(trace, i);
  const mprof_packet_info_t *next = mprof_trace_packet(trace, i + 1);
  const mprof_packet_info_t *prev = i ? mprof_trace_packet(trace, i - 1) : NULL;
  c->packet_first = -1;
  c->packet_stream = p->stream_instance;
  c->packet_values = 0;
  if (mprof_trace_packet_events(trace, i, on_event, c) < 0) c->failed = 1;
  int newest = !next || next->stream_class != p->stream_class ||
               next->stream_instance != p->stream_instance;
  int predecessor = prev && prev->stream_class == p->stream_class &&
                    prev->stream_instance == p->stream_instance &&
                    prev->seq_num + 1 == p->seq_num;
  if (p->stream_class == 0 && newest && !c->packet_values && !predecessor &&
      c->overwritten_count < MAX_STREAMS)
    c->overwritten[c->overwritten_count++] = p->stream_instance;
}

/* Whether writer w's newest values may be missing: its stream is one whose
 * newest values were overwritten, or no snapshot showed its stream yet and
 * such a stream is no other writer's. */
static int newest_overwritten(const snapshot_check_t *c, int w) {
  for (int i = 0; i < c->overwritten_count; i++) {
    uint64_t stream = c->overwritten[i] + 1;
    if (c->stream_of[w]) {
      if (c->stream_of[w] == stream) return 1;
      continue;
    }
    int other = 0;
    for (int u = 1; u <= WRITERS; u++) other |= c->stream_of[u] == stream;
    if (!other) return 1;
  }
  return 0;
}

static void read_written(int64_t *values) {
  for (int w = 1; w <= WRITERS; w++)
    values[w] = __atomic_load_n(&written[w], __ATOMIC_ACQUIRE);
}

/* Events the writers can write without reusing a packet that was open or
 * newest when the snapshot began: every ring packet but one per writer and
 * one being claimed, each filled with the widest events. */
static int64_t lap_events(const mprof_trace_info_t *info) {
  uint32_t names = info->packet_count / 16 > 2 ? info->packet_count / 16 : 2;
  uint32_t ring = info->packet_count - names;
  return (int64_t)(ring - WRITERS - 1) *
         (int64_t)((info->packet_size - 92) / MAX_EVENT_BYTES);
}

/* The snapshot holds, of each writer, at least the value it had written
 * before the snapshot began, unless the writers wrote enough meanwhile to
 * lap the ring, or the writer's stream shows it stalled and lapped. */
static void check_lower_bounds(snapshot_check_t *c, const int64_t *before,
                               const int64_t *after,
                               const mprof_trace_info_t *info) {
  int64_t during = 0;
  for (int w = 1; w <= WRITERS; w++) during += after[w] - before[w];
  if (during >= lap_events(info)) {
    c->lapped++;
    return;
  }
  int stalled = 0;
  for (int w = 1; w <= WRITERS; w++) {
    if (c->last[w] >= before[w]) continue;
    if (newest_overwritten(c, w)) {
      stalled = 1;
      continue;
    }
    fprintf(stderr,
            "live_reads: counter %d: newest value %" PRId64
            " in the snapshot, %" PRId64 " written before it began\n",
            w, c->last[w], before[w]);
    c->failed = 1;
  }
  c->stalled += stalled;
}

/* One snapshot of the live buffer, checked.  Returns 0 if good. */
static int take_snapshot(const void *buffer, snapshot_check_t *c,
                         const char *save_path) {
  memset(c->last, 0xff, sizeof c->last); /* all -1 */
  c->overwritten_count = 0;
  int64_t before[WRITERS + 1], after[WRITERS + 1];
  read_written(before);
  mprof_trace_t *trace;
  if (mprof_trace_open_memory(buffer, BUFFER_BYTES, "live", on_diag, c, &trace))
    return fprintf(stderr, "live_reads: snapshot unreadable\n"), -1;
  read_written(after);
  size_t packets = mprof_trace_packet_count(trace);
  for (size_t i = 0; i < packets && !c->failed; i++) read_packet(trace, i, c);
  if (!c->failed) check_lower_bounds(c, before, after, mprof_trace_info(trace));
  if (save_path && mprof_trace_save(trace, save_path)) c->failed = 1;
  mprof_trace_close(trace);
  return c->failed ? -1 : 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return fputs("usage: live_reads SNAPSHOTS [DIR]\n", stderr), 2;
  long snapshots = atol(argv[1]);
  void *buffer = in_memory_start(BUFFER_BYTES);
  if (!buffer) return fputs("live_reads: start failed\n", stderr), 1;
  pthread_t writers[WRITERS];
  for (uintptr_t w = 0; w < WRITERS; w++)
    pthread_create(&writers[w], NULL, write_values,
                   (void *)(uintptr_t)mprof_counter_make("seq"));
  snapshot_check_t c = {0};
  long taken = 0;
  for (; taken < snapshots && !c.failed; taken++) {
    char path[4096];
    int save = argc > 2 && taken % 1000 == 0;
    if (save) snprintf(path, sizeof path, "%s/snap-%ld.ctf", argv[2], taken);
    take_snapshot(buffer, &c, save ? path : NULL);
  }
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  for (int w = 0; w < WRITERS; w++) pthread_join(writers[w], NULL);
  mprof_stop();
  free(buffer);
  if (c.failed)
    return fprintf(stderr, "live_reads: snapshot %ld failed\n", taken), 1;
  printf("snapshots %ld values %" PRIu64 " packets-left-out-lines %" PRIu64
         " lapped %" PRIu64 " stalled %" PRIu64 "\n",
         taken, c.values, c.left_out_lines, c.lapped, c.stalled);
  if (2 * (c.lapped + c.stalled) >= (uint64_t)taken)
    return fprintf(stderr, "live_reads: the lower bound held for too few "
                           "snapshots\n"),
           1;
  return 0;
}
