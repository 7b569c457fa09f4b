/* analysis_internal.h -- what the parts of the analysis share: analysis.c
 * (waits, times, stalls, lost wake-ups, chains and cycles, the critical
 * path) calls requests.c (the facts found once, latency and failures by
 * kind of request) and findings.c (the findings every view lists, with
 * findings_loops.c and findings_requests.c), which read what it found. */
#ifndef MPROF_ANALYSIS_INTERNAL_H
#define MPROF_ANALYSIS_INTERNAL_H

#include "model_internal.h"

/* Arrows by thread: adj[first[t] .. first[t+1]) are the arrows from or to
 * thread t, in time order. */
typedef struct mprof__adjacency_s {
  uint32_t *first, *adj;
} mprof__adjacency_t;

/* The arrows of a finished model by thread.  Returns 0 or MPROF_ENOMEM. */
int mprof__adjacency_make(const mprof_model_t *m, mprof__adjacency_t *out);
void mprof__adjacency_free(mprof__adjacency_t *adjacency);

/* A thread that never ends: still pending, or stalled. */
static inline int mprof__never_ends(const mprof_thread_t *t) {
  return t->ending == MPROF_ENDING_PENDING || (t->flags & MPROF_THREAD_STALLED);
}

/* When thread i stopped being able to wait: its end, or the recording's
 * if it never ended (inline: every part asks it of every thread). */
static inline int64_t mprof__effective_end(const mprof_model_t *m, uint32_t i) {
  const mprof_thread_t *t = &m->view.threads[i];
  return mprof__never_ends(t) ? m->view.end_ns : t->end_ns;
}

/* The end of the wait that try_read arrow a begins: the waiter reads its
 * input, the input ends, or the waiter does. */
int64_t mprof__wait_end(const mprof_model_t *m,
                        const mprof__adjacency_t *adjacency,
                        const mprof_arrow_t *a);

/* When a wait begun at start_ns ends: at the read that answered it
 * (read_ns; INT64_MAX: none), or when its input or its waiter stopped
 * (their effective ends), whichever came first, and not before it
 * began. */
int64_t mprof__wait_settle(int64_t start_ns, int64_t input_end_ns,
                           int64_t waiter_end_ns, int64_t read_ns);

/* The part of a wait [start_ns, end_ns) within a life ending at
 * life_end_ns not covered yet by the waits before it (*covered, moved on):
 * each moment counts once, for the wait that began first. */
int64_t mprof__wait_part(int64_t *covered, int64_t start_ns, int64_t end_ns,
                         int64_t life_end_ns);

/* Split what is left of a life (tt's life, running and waiting) into in
 * poll (poll_ns of it at most, for a loop) and not running. */
void mprof__split_idle(mprof_thread_time_t *tt, int loop, int64_t poll_ns);

/* The 50th, 90th and 99th percentiles (nearest rank) and the maximum of
 * values[0..n) into out, the -1s (unknown) left out (-1 each if none is
 * known); values is reordered (requests.c). */
void mprof__percentiles(int64_t *values, size_t n, int64_t out[4]);

/* The thresholds an analysis takes where options leave them 0. */
void mprof__analysis_defaults(mprof_analysis_options_t *o);

/* The nearest-rank index of the q-th percentile of n values. */
size_t mprof__rank_of(size_t n, unsigned q);

/* The kind of request a thread of this type with this first label (NULL:
 * none) is, as its group's name, into buf (NUL-terminated). */
void mprof__request_kind_of(const char *label, uint16_t type, char *buf,
                            size_t size);

/* What a why chain walks (why.c): the arrows by thread, and the messages
 * between the processes of a merged trace by receiver, then time. */
typedef struct mprof__why_s {
  const mprof_model_t *model;
  const mprof__adjacency_t *adjacency;
  mprof_message_t *messages;
  size_t message_count;
} mprof__why_t;

/* Ready a walker over m (adjacency stays the caller's).  Returns 0 or
 * MPROF_ENOMEM. */
int mprof__why_make(const mprof_model_t *m, const mprof__adjacency_t *adjacency,
                    mprof__why_t *out);
void mprof__why_free(mprof__why_t *why);

/* The why chain of thread into hops (room for MPROF_WHY_LIMIT), *count of
 * them.  Returns 0. */
int mprof__why_chain(const mprof__why_t *why, uint32_t thread,
                     mprof_why_hop_t *hops, size_t *count);

/* The stream index thread t first ran on, or MPROF_NO_THREAD. */
uint32_t mprof__thread_stream(const mprof_model_t *m, uint32_t t);

/* The types of requests (fs, write, connect, work, ...), as bits. */
#define MPROF__REQUEST_TYPES                                                   \
  ((1ull << MPROF_REQUEST) | (1ull << MPROF_WORK) | (1ull << MPROF_FS) |       \
   (1ull << MPROF_CONNECT) | (1ull << MPROF_WRITE) |                           \
   (1ull << MPROF_SHUTDOWN) | (1ull << MPROF_GETADDRINFO) |                    \
   (1ull << MPROF_GETNAMEINFO) | (1ull << MPROF_UDP_SEND) |                    \
   (1ull << MPROF_RANDOM))

/* Is a thread of this type a request?  Inline: the streamed analysis asks
 * a few times a thread. */
static inline int mprof__is_request_type(uint16_t type) {
  return type < 64 && (MPROF__REQUEST_TYPES >> type & 1);
}

/* The kind of request t is, as its group's name: its label without the
 * numbers, paths and addresses in it, into buf (NUL-terminated). */
void mprof__request_kind(const mprof_model_t *m, uint32_t t, char *buf,
                         size_t size);

/* A write request: from its creation to its end (the recording's end if
 * it never ended). */
typedef struct mprof__write_s {
  int64_t start_ns, end_ns;
  uint32_t thread;
} mprof__write_t;

/* A write backlog is this many writes pending at once (at least). */
#define BACKLOG_WRITES 64

/* The most writes pending at once (peak), first at `at`, and the writes
 * pending then (and maybe more), by start: found already where the facts
 * carry it (a streaming analysis). */
typedef struct mprof__backlog_s {
  const mprof__write_t *writes;
  size_t count, peak;
  int64_t at;
} mprof__backlog_t;

/* Failures in a row of one kind of request, with one error, each made
 * again soon after the one before failed (a retry storm's run). */
typedef struct mprof__storm_s {
  char kind[128];
  uint32_t error;       /* string offset of the failure text */
  uint32_t first, last; /* thread indexes */
  uint32_t count;
  int64_t last_end_ns;
} mprof__storm_t;

/* Failed request t (made by creator, from start_ns to end_ns), the next
 * of its kind and error in creation order, goes on the storm's run or
 * begins another; *worst keeps the longest run (findings_requests.c). */
void mprof__storm_step(mprof__storm_t *run, mprof__storm_t *worst, uint32_t t,
                       uint32_t creator, int64_t start_ns, int64_t end_ns);

/* A work request that waited in the pool's queue longer than it ran. */
typedef struct mprof__late_s {
  int64_t created_ns, queue_ns, run_ns;
  uint32_t thread;
  void *ref; /* the caller's, moved along with it */
} mprof__late_t;

/* A saturated pool: its size (OS threads that ran work), how many
 * requests were late, when the first of them was made and the last ran,
 * and the longest waits first (queue desc, then thread; up to
 * POOL_LONGEST). */
#define POOL_LONGEST 8
#define POOL_LATE_NS 1000000 /* a late request waited this long at least */
typedef struct mprof__pool_s {
  uint32_t size;
  size_t late_count;
  int64_t start_ns, end_ns;
  mprof__late_t longest[POOL_LONGEST];
  size_t longest_count;
} mprof__pool_t;

/* Does late a come before b (the longer queue wait, then the lower
 * thread)? */
static inline int mprof__late_before(const mprof__late_t *a,
                                     const mprof__late_t *b) {
  if (a->queue_ns != b->queue_ns) return a->queue_ns > b->queue_ns;
  return a->thread < b->thread;
}

/* Count a late request into p (findings_requests.c); the one left out
 * of the longest (it, or one it put out) into *dropped: returns whether
 * one was. */
int mprof__pool_add(mprof__pool_t *p, const mprof__late_t *late,
                    mprof__late_t *dropped);

/* What the parts read of the loops and the thread pool, found once. */
typedef struct mprof__facts_s {
  uint8_t *loop_stream;       /* by stream index: a loop ran there (a loop
                                 thread, or, but in legacy traces, something
                                 slept there in an idle band) */
  int64_t *queue_ns, *run_ns; /* by thread: each work request's wait in the
                              pool's queue (creation to its first run off a
                              loop's OS thread) and its run there (-1: not
                              work, or never ran); NULL if no work ran */
  uint32_t *loops;
  size_t loop_count; /* threads of type loop */
  uint32_t *pending;
  size_t pending_count; /* requests that never ended
                          (not stalled, not from before
                          the trace), by index */
  uint32_t *failed;
  size_t failed_count; /* requests that failed */
  uint32_t *writes;
  size_t write_count;                      /* write and udp send requests */
  uint32_t preexisting, first_preexisting; /* threads from before the trace */
  const mprof__backlog_t *backlog;         /* NULL: found from writes */
  const mprof__storm_t *storms; /* the longest run of each kind and error,
                                   found already; NULL: from failed */
  size_t storm_count;
  const mprof__pool_t *pool; /* the pool's late work found already
                                (NULL: from queue_ns and run_ns) */
} mprof__facts_t;

/* Find the facts of a model.  Returns 0 or MPROF_ENOMEM. */
int mprof__facts_make(const mprof_model_t *m, mprof__facts_t *facts);

void mprof__facts_free(mprof__facts_t *facts);

/* Fill out->requests and out->failures (requests.c).  Returns 0 or
 * MPROF_ENOMEM. */
int mprof__summarise_requests(const mprof_model_t *m,
                              const mprof__facts_t *facts,
                              mprof_analysis_t *out);

/* Fill out->findings from the rest of out, sorted most severe first
 * (findings.c).  Returns 0 or MPROF_ENOMEM. */
int mprof__find_findings(const mprof_model_t *m,
                         const mprof_analysis_options_t *options,
                         const mprof__facts_t *facts, mprof_analysis_t *out);

/* Append a NUL-terminated text to out->text; its offset in *at.  Returns
 * 0 or MPROF_ENOMEM. */
int mprof__analysis_text(mprof_analysis_t *out, const char *text, uint32_t *at);

#endif /* MPROF_ANALYSIS_INTERNAL_H */
