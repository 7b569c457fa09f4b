/* seq_check.c -- check a trace written by seq_writer against what the
 * writer reported through its side file.
 *
 *   seq_check [--live] TRACE SIDE THREADS
 *
 * Per thread (counter t+1), the values must all be in one stream (its OS
 * thread's) and contiguous (each one more than the previous: nothing torn,
 * duplicated, reordered or lost in the surviving suffix of the overwrite
 * ring), and the last must be the last value the writer reported
 * completed, or the one after it (in flight at the kill: committed, not yet
 * reported).  One exception, the ring's own: a thread stalled just after
 * it opened a new packet (and before its next event) may find its previous
 * packet overwritten by the others, its newest events being the oldest of
 * the ring.  Such a thread's newest values may be missing only if its own
 * stream shows exactly that: a newest packet with no value and its
 * predecessor gone (a thread with no value left: a stream like that which
 * holds no other thread's values).  And the ring reuses packets by
 * position, skipping those still held: a packet held while the others
 * lapped it outlives its stream's next ones, so values may jump forward,
 * never back, where the stream's sequence numbers show packets missing
 * (the reader sees the same gap), by no more values than those packets
 * could hold.  Any diagnostic from the reader fails
 * too.  --live: the trace was copied while the writer ran on, so a packet
 * may have been reused between two packet copies: values must be
 * contiguous within a packet and increasing across packets, and none may be
 * past what the writer reported (SIDE read after the copy) plus one.  Prints
 * "events N values V" on success; exit 1 on a failure.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mprof/read.h"

#define MAX_THREADS 16
#define MAX_STREAMS 64
/* The fewest bytes a counter_value event takes (docs/FORMAT.md 4.1: the
 * compact form), and a packet's header. */
#define MIN_VALUE_BYTES 10u
#define PACKET_HEADER_BYTES 92u

typedef struct check_s {
  int threads, live;
  int packet_start;      /* no value of this packet seen yet */
  uint64_t packets_lost; /* packets of this stream missing before this one */
  uint64_t packet_values_max;      /* the most values one packet can hold */
  uint64_t stream;                 /* this packet's stream */
  uint64_t gaps;                   /* values jumped over at such gaps */
  int64_t last[MAX_THREADS];       /* -1: none seen */
  uint64_t stream_of[MAX_THREADS]; /* 1 + the stream of its values, 0: none */
  uint64_t events, values;
  int failed;
  int packet_values; /* values in the packet being read */
  /* Streams whose newest events the ring overwrote (see above), and
   * whether a thread with no value left was given each one. */
  uint64_t overwritten[MAX_STREAMS];
  int overwritten_taken[MAX_STREAMS];
  int overwritten_count;
} check_t;

static void on_diag(void *context, const char *message) {
  ((check_t *)context)->failed = 1;
  fprintf(stderr, "seq_check: reader: %s\n", message);
}

static int on_event(void *context, const mprof_event_t *ev) {
  check_t *c = context;
  c->events++;
  if (ev->kind != MPROF_EVENT_COUNTER_VALUE) return 0;
  if (ev->counter < 1 || ev->counter > (uint32_t)c->threads) {
    fprintf(stderr, "seq_check: unknown counter %u\n", ev->counter);
    return c->failed = 1;
  }
  int64_t *last = &c->last[ev->counter - 1];
  uint64_t *stream = &c->stream_of[ev->counter - 1];
  if (*stream && *stream != c->stream + 1) {
    fprintf(stderr,
            "seq_check: thread %u: values in streams %" PRIu64 " and %" PRIu64
            "\n",
            ev->counter - 1, *stream - 1, c->stream);
    return c->failed = 1;
  }
  *stream = c->stream + 1;
  int gap_allowed = (c->live || c->packets_lost) && c->packet_start;
  c->packet_start = 0;
  if (*last >= 0 &&
      (gap_allowed ? ev->value <= *last : ev->value != *last + 1)) {
    fprintf(stderr,
            "seq_check: thread %u: value %" PRId64 " after %" PRId64 "\n",
            ev->counter - 1, ev->value, *last);
    return c->failed = 1;
  }
  uint64_t jumped = *last >= 0 ? (uint64_t)(ev->value - *last - 1) : 0;
  if (!c->live && jumped > c->packets_lost * c->packet_values_max) {
    fprintf(stderr,
            "seq_check: thread %u: value %" PRId64 " after %" PRId64
            ": %" PRIu64 " values jumped over, %" PRIu64 " packets missing "
            "hold at most %" PRIu64 "\n",
            ev->counter - 1, ev->value, *last, jumped, c->packets_lost,
            c->packets_lost * c->packet_values_max);
    return c->failed = 1;
  }
  if (!c->live) c->gaps += jumped;
  *last = ev->value;
  c->values++;
  c->packet_values++;
  return 0;
}

/* Read every packet; note the ring streams whose newest packet holds no
 * value while the one before it is gone. */
static void read_packets(const mprof_trace_t *trace, check_t *c) {
  size_t packets = mprof_trace_packet_count(trace);
  c->packet_values_max =
      (mprof_trace_info(trace)->packet_size - PACKET_HEADER_BYTES) /
      MIN_VALUE_BYTES;
  for (size_t i = 0; i < packets && !c->failed; i++) {
    const mprof_packet_info_t *p = mprof_trace_packet(trace, i);
    const mprof_packet_info_t *next = mprof_trace_packet(trace, i + 1);
    const mprof_packet_info_t *before =
        i ? mprof_trace_packet(trace, i - 1) : NULL;
    int newest = !next || next->stream_class != p->stream_class ||
                 next->stream_instance != p->stream_instance;
    int same_stream = before && before->stream_class == p->stream_class &&
                      before->stream_instance == p->stream_instance;
    int predecessor = same_stream && before->seq_num + 1 == p->seq_num;
    c->packet_start = 1;
    c->packet_values = 0;
    c->stream = p->stream_instance;
    c->packets_lost = same_stream ? p->seq_num - before->seq_num - 1 : 0;
    if (mprof_trace_packet_events(trace, i, on_event, c) < 0) c->failed = 1;
    if (p->stream_class == 0 && newest && !c->packet_values && !predecessor &&
        c->overwritten_count < MAX_STREAMS)
      c->overwritten[c->overwritten_count++] = p->stream_instance;
  }
}

/* Whether thread t's newest values may be missing: its stream is one whose
 * newest events were overwritten, or it has no value left and such a
 * stream holds no other thread's values (and no other such thread was
 * given it). */
static int newest_overwritten(check_t *c, int t) {
  for (int i = 0; i < c->overwritten_count; i++) {
    uint64_t stream = c->overwritten[i] + 1;
    if (c->stream_of[t]) {
      if (c->stream_of[t] == stream) return 1;
      continue;
    }
    int claimed = c->overwritten_taken[i];
    for (int u = 0; u < c->threads; u++) claimed |= c->stream_of[u] == stream;
    if (!claimed) return c->overwritten_taken[i] = 1;
  }
  return 0;
}

static int read_side(const char *path, uint64_t *side, int count) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t n = fread(side, 8, (size_t)count, f);
  fclose(f);
  return n == (size_t)count ? 0 : -1;
}

int main(int argc, char **argv) {
  check_t c = {.live = argc == 5 && !strcmp(argv[1], "--live")};
  argv += c.live;
  if (argc - c.live != 4)
    return fputs("usage: seq_check [--live] TRACE SIDE THREADS\n", stderr), 2;
  c.threads = atoi(argv[3]);
  if (c.threads < 1 || c.threads > MAX_THREADS) return 2;
  uint64_t side[1 + MAX_THREADS];
  if (read_side(argv[2], side, 1 + c.threads)) return perror(argv[2]), 2;
  for (int t = 0; t < c.threads; t++) c.last[t] = -1;
  mprof_trace_t *trace;
  if (mprof_trace_open(argv[1], on_diag, &c, &trace)) return 1;
  read_packets(trace, &c);
  mprof_trace_close(trace);
  for (int t = 0; t < c.threads && !c.failed; t++) {
    int64_t done = (int64_t)side[1 + t]; /* values 0 .. done-1 completed */
    if (!c.live && c.last[t] < done - 1 && newest_overwritten(&c, t)) {
      /* its newest packet was reused: see above */
      printf("thread %d: values %" PRId64 "..%" PRId64 " overwritten\n", t,
             c.last[t] + 1, done - 1);
      continue;
    }
    if ((!c.live && c.last[t] < done - 1) || c.last[t] > done) {
      fprintf(stderr,
              "seq_check: thread %d: last value %" PRId64
              " in the trace, %" PRId64 " completed\n",
              t, c.last[t], done);
      c.failed = 1;
    }
  }
  if (c.failed) return 1;
  if (c.gaps)
    printf("%" PRIu64 " values in packets the ring reused (a sequence gap)\n",
           c.gaps);
  printf("events %" PRIu64 " values %" PRIu64 "\n", c.events, c.values);
  return 0;
}
