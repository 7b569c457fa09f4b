/* mprof/census.h -- what a trace holds, in numbers, in one pass over its
 * events with memory bounded by what is counted, not by the trace: events
 * by kind, distinct threads, labels, counters' final values, the time
 * span.  `mprof stats` prints it (docs/model.md, "The census").
 *
 *   mprof_census_t census;
 *   mprof_census_init(&census);
 *   size_t damaged = mprof_census_trace(&census, trace, NULL, NULL);
 *   printf("%llu events\n", (unsigned long long)census.events);
 *   mprof_census_free(&census);
 *
 * Distinct thread ids are counted exactly up to exact_ids_max words of 64
 * ids (a trace's ids, handed out from 1 up, fill few); past that the set
 * turns into a HyperLogLog sketch of 2^14 registers, whose estimate has a
 * relative standard error of 1.04 / 2^7 = 0.81% (threads_estimated and
 * threads_error say so).
 */
#ifndef MPROF_CENSUS_H
#define MPROF_CENSUS_H

#include <stddef.h>
#include <stdint.h>

#include "read.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The relative standard error of the distinct-thread estimate. */
#define MPROF_CENSUS_THREADS_ERROR 0.008125

typedef struct mprof_census_s {
  uint64_t events, labels;
  uint64_t first_ticks, last_ticks; /* the earliest and latest event's */
  uint64_t by_kind[MPROF_EVENT_KIND_COUNT];
  uint64_t threads;      /* distinct thread ids named by events */
  int threads_estimated; /* threads is the sketch's estimate */
  double threads_error;  /* its relative standard error (0: exact) */
  size_t exact_ids_max;  /* words of the exact set before it turns into
                            the sketch (mprof_census_init: 2^20, in a
                            table of 32 MiB);
                            set it after init to change it */
  int events_only;       /* mprof_census_trace() counts events and damage,
                            nothing else (set it after init) */
  int out_of_memory;     /* some counts are short */
  struct mprof__census_state_s *state;
} mprof_census_t;

/* A counter's final value, named by its counter_name event's text (NULL
 * if it had none: then by its id), or a legacy trace's counter, named by
 * text. */
typedef struct mprof_census_counter_s {
  const char *name; /* not NUL-terminated: name_length bytes */
  size_t name_length;
  uint32_t id; /* 0 for a legacy counter */
  int64_t value;
} mprof_census_counter_t;

/* Start an empty census.  Returns 0 or MPROF_ENOMEM. */
int mprof_census_init(mprof_census_t *census);

/* Count one event: an mprof_event_fn with the census as context (it
 * never stops the decoding; a failure to allocate sets out_of_memory). */
int mprof_census_event(void *census, const mprof_event_t *event);

/* Count every event of trace, packet by packet, each read into a buffer of
 * the census's (the file is never mapped whole: mprof_trace_packet_decode_
 * copy), telling progress (may be NULL) after each packet.  Returns how
 * many packets were damaged (reported through the trace's diag). */
size_t mprof_census_trace(mprof_census_t *census, const mprof_trace_t *trace,
                          mprof_progress_fn progress, void *context);

/* Bring threads up to date after events were counted one by one
 * (mprof_census_trace() does it). */
void mprof_census_finish(mprof_census_t *census);

/* The counters with a value, one per call: the legacy ones first, in the
 * order they were first seen, then the others by id.  *cursor starts at 0.
 * Returns 1 with *out filled, or 0 when there are no more. */
int mprof_census_counter_next(const mprof_census_t *census, size_t *cursor,
                              mprof_census_counter_t *out);

void mprof_census_free(mprof_census_t *census);

/* --- One pass over a trace's packets, in bounded memory -------------------
 *
 * Each packet is decoded into buffers of the pass's, which grow to the
 * largest packet only (read with pread() where the trace is a file, never
 * through a mapping of it), and its events handed on as one run; a packet
 * that may hold more than 64 MiB of events is handed on one event at a
 * time.  Start with a zeroed mprof_pass_t; one per OS thread. */
typedef struct mprof_pass_s {
  mprof_decoded_t decoded; /* the packet's events and bytes */
} mprof_pass_t;

/* Receives a run of count events, valid until it returns. */
typedef void (*mprof_events_fn)(void *context, const mprof_event_t *events,
                                size_t count);

/* Hand the events of packet index of trace to fn.  Returns 1 if damage
 * ended the packet early (reported through the trace's diag), else 0. */
int mprof_pass_packet(mprof_pass_t *pass, const mprof_trace_t *trace,
                      size_t index, mprof_events_fn fn, void *context);

void mprof_pass_free(mprof_pass_t *pass);

#ifdef __cplusplus
}
#endif

#endif /* MPROF_CENSUS_H */
