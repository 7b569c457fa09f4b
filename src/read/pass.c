/* pass.c -- one pass over a trace's packets in bounded memory (mprof/
 * census.h): each packet decoded into buffers that grow to the largest
 * packet only, read with pread() where the trace is a file, and handed on
 * as a run of events.  The census and the index's workers read this way.
 */

#include "mprof/census.h"
#include "trace_internal.h"

/* The most events decoded into an array at once (64 MiB of them); a
 * packet that may hold more is handed on one event at a time. */
#define ARRAY_EVENTS_MAX (((size_t)64 << 20) / sizeof(mprof_event_t))

/* A run's function, called with runs of one event. */
typedef struct one_by_one_s {
  mprof_events_fn fn;
  void *context;
} one_by_one_t;

static int hand_one(void *context, const mprof_event_t *ev) {
  const one_by_one_t *to = context;
  to->fn(to->context, ev, 1);
  return 0;
}

int mprof_pass_packet(mprof_pass_t *pass, const mprof_trace_t *trace,
                      size_t index, mprof_events_fn fn, void *context) {
  size_t most = mprof_trace_packet_max_events(trace, index);
  size_t bytes = mprof_trace_copies_packets(trace)
                     ? (size_t)mprof_trace_packet(trace, index)->content_bytes
                     : 0;
  if (most > ARRAY_EVENTS_MAX ||
      mprof__decoded_room(&pass->decoded, most, bytes)) {
    one_by_one_t to = {fn, context};
    return mprof_trace_packet_events(trace, index, hand_one, &to) < 0;
  }
  int damaged = 0;
  mprof_decoded_t *d = &pass->decoded;
  size_t n = mprof_trace_packet_decode_copy(trace, index, d->bytes, d->events,
                                            most, &damaged);
  fn(context, d->events, n);
  return damaged;
}

void mprof_pass_free(mprof_pass_t *pass) { mprof_decoded_free(&pass->decoded); }
