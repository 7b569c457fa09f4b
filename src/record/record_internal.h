/* record_internal.h -- what the recorder's files share: the trace being
 * written, each OS thread's stream, and the steps of the hot path that
 * they both take inline (the clock).  record.c turns calls into events in
 * packets, record_start.c starts and stops the trace.  Freestanding; not
 * installed.
 */
#ifndef MPROF_RECORD_INTERNAL_H
#define MPROF_RECORD_INTERNAL_H

#include <stdint.h>

#include "format.h"
#include "mprof.h"
#include "record.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Rare paths stay out of line, so the hot path needs few registers. */
#define COLD __attribute__((noinline, cold))
/* Shared by the recorder's files, and by nothing outside them. */
#define INTERNAL __attribute__((visibility("hidden")))

/* Each stream remembers this many label strings (open addressing by hash,
 * INTERN_PROBES slots tried), to write a repeated label as a 2-byte string
 * id.  Small enough that the whole TLS stays near 1 KiB, so a dlopen'd
 * libmprof still finds room in glibc's static TLS surplus. */
#define INTERN_SLOTS 64u
#define INTERN_PROBES 4u

/* One open packet of a stream. */
typedef struct cursor_s {
  uint8_t *packet;   /* packet start, or 0 when none is open */
  uint8_t *pos;      /* where the next event goes */
  uint8_t *end;      /* packet end */
  uint64_t last_ts;  /* clock of the previous event (or timestamp_begin) */
  uint64_t next_seq; /* packet_seq_num of the next packet opened */
  uint32_t slot;     /* packet index in the buffer */
} cursor_t;

/* A label string this stream has defined (MPROF__EV_STRING). */
typedef struct interned_s {
  uint64_t hash;
  uint32_t id; /* 0: slot empty */
} interned_t;

/* An OS thread's recording state. */
typedef struct stream_s {
  uint64_t session; /* the mprof_start() this state belongs to */
  cursor_t ring;
  cursor_t names;
  uint64_t instance;  /* stream_instance_id */
  uint64_t current;   /* async thread running now */
  uint64_t discarded; /* events this stream could not write */
  uint32_t os_thread_id;
  uint32_t next_string_id;
  interned_t interned[INTERN_SLOTS];
} stream_t;

/* The trace being written.  Written by mprof_start() before mprof__recording is
 * set (release); read by recording threads after they see it (acquire). */
typedef struct recorder_s {
  uint64_t session;
  uint8_t *buffer;
  uint8_t *header;
  uint8_t *packets;
  uint64_t *slots;
  uint32_t packet_size;
  uint32_t ring_count;
  uint32_t names_count;
  mprof_ring_mode_t ring_mode;
  mprof_clock_fn clock;
  uint8_t uuid[16];
  uint32_t (*os_thread_id)(void);
  void (*on_new_stream)(void);
  int (*prepare_packet)(uint8_t *packet, uint32_t size);
  /* The session while recording is on with the TSC as its clock, else
   * NO_FAST_SESSION: a stream begun in it may take the events' fast
   * paths (record.c) on this one test.  Atomic, relaxed: a stream that
   * matches began after the start it synchronised with. */
  uint64_t fast_session;
} recorder_t;

/* recorder_t.fast_session when no stream may take a fast path: no
 * session has that number, and a stream never begun has 0. */
#define NO_FAST_SESSION UINT64_MAX

/* The values of mprof__recording.  PENDING: a forked child's trace starts
 * at its first event (mprof__start_pending()); STARTING while it does.
 * Both read as started to the inline gates of mprof.h, so the event reaches
 * its mprof__ function, whose one test for ON is the same as for nonzero. */
enum { STATE_OFF = 0, STATE_ON = 1, STATE_PENDING = 2, STATE_STARTING = 3 };

INTERNAL extern recorder_t mprof__recorder;
/* This OS thread's stream. */
INTERNAL extern _Thread_local stream_t mprof__self
    __attribute__((tls_model("initial-exec")));

static inline void fast_session_set(uint64_t session) {
  __atomic_store_n(&mprof__recorder.fast_session, session, __ATOMIC_RELAXED);
}

static inline int state_now(void) {
  return __atomic_load_n(&mprof__recording, __ATOMIC_ACQUIRE);
}

static inline uint64_t clock_now(void) {
#if defined(__x86_64__)
  if (LIKELY(mprof__recorder.clock == 0)) return __builtin_ia32_rdtsc();
#endif
  return mprof__recorder.clock();
}

static inline void bytes_copy(uint8_t *to, const void *from, size_t n) {
  const uint8_t *f = from;
  for (size_t i = 0; i < n; i++) to[i] = f[i];
}

static inline void bytes_zero(uint8_t *to, size_t n) {
  for (size_t i = 0; i < n; i++) to[i] = 0;
}

/* Events up to event_end exist: a release store of content_size. */
static inline void commit(cursor_t *c, uint8_t *event_end) {
  c->pos = event_end;
  __atomic_store_n((uint64_t *)(c->packet + MPROF__PH_CONTENT_SIZE),
                   (uint64_t)(event_end - c->packet) * 8, __ATOMIC_RELEASE);
}

/* --- record_start.c --- */

/* A stream's first event in this session: its stream number taken. */
INTERNAL COLD void mprof__stream_begin(stream_t *s);

/* Room for an event of `size` payload bytes in cursor c (names: the
 * names area's) at clock value now, its header written, when the open
 * packet has none or the header must be extended: where the payload goes,
 * or 0 if the event is dropped (counted, but in the names area, whose
 * caller falls back to the ring). */
INTERNAL COLD uint8_t *mprof__reserve_slow(stream_t *s, cursor_t *c, int names,
                                           uint32_t id, uint32_t size,
                                           uint64_t now);

/* A full (or finished) packet given back: readers may now see it whole. */
INTERNAL void mprof__close_packet(cursor_t *c);

/* A dropped event, counted. */
INTERNAL void mprof__count_discarded(stream_t *s);

/* The first event after mprof__start_pending(): runs the start (one OS
 * thread; the others wait for it); nonzero if recording is on. */
INTERNAL COLD int mprof__start_pending_now(void);

/* --- record.c --- */

/* Write the names of counters made before this start into the trace. */
INTERNAL void mprof__replay_counter_names(void);

#endif /* MPROF_RECORD_INTERNAL_H */
