/* mprof.h -- record the life of asynchronous "threads" (promises, requests,
 * callbacks, tasks) into a compact CTF 1.8 trace.
 *
 * A "thread" here is an async unit of work, not an OS thread: a promise, a
 * libuv request, a callback.  Each gets a 64-bit id from mprof_create(); the
 * other calls record how threads interact (who reads, resolves, signals whom).
 * An id a program makes itself must stay below 2^56: readers take larger
 * ones for damage.
 * Every OS thread records into its own CTF stream; the current async thread
 * of an OS thread is set by mprof_switch().
 *
 * Three builds of the same source:
 *   - without MPROF_TRACING defined: every call below is a static inline
 *     no-op (or the untraced operation) and no mprof symbol is referenced;
 *   - with MPROF_TRACING, before mprof_start(): each call costs one
 *     predictable branch;
 *   - with MPROF_TRACING, started: each call appends one event to the calling
 *     OS thread's packet in the caller-supplied buffer (no lock, no atomic,
 *     no allocation per event).
 *
 * The core is freestanding: the caller supplies the buffer and the clock.
 * On Unix, include <mprof/unix.h> for an mmapped trace file and a calibrated
 * TSC clock, or set MPROF_TRACE=trace.ctf in the environment.
 */
#ifndef MPROF_H
#define MPROF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds of async thread, one table for the whole project.  Values 0-19
 * are those of mirage-profile and Eio (so legacy traces keep their meaning);
 * 32 and up are the C world's kinds, used by the libuv integration.
 * X(ENUM_SUFFIX, value, "name shown by viewers") */
#define MPROF_THREAD_TYPES(X)                                                  \
  X(WAIT, 0, "wait")                                                           \
  X(TASK, 1, "task")                                                           \
  X(BIND, 2, "bind")                                                           \
  X(TRY, 3, "try")                                                             \
  X(CHOOSE, 4, "choose")                                                       \
  X(PICK, 5, "pick")                                                           \
  X(JOIN, 6, "join")                                                           \
  X(MAP, 7, "map")                                                             \
  X(CONDITION, 8, "condition")                                                 \
  X(ON_SUCCESS, 9, "on_success")                                               \
  X(ON_FAILURE, 10, "on_failure")                                              \
  X(ON_TERMINATION, 11, "on_termination")                                      \
  X(ON_ANY, 12, "on_any")                                                      \
  X(IGNORE_RESULT, 13, "ignore_result")                                        \
  X(ASYNC, 14, "async")                                                        \
  X(PROMISE, 15, "promise")                                                    \
  X(SEMAPHORE, 16, "semaphore")                                                \
  X(SWITCH, 17, "switch")                                                      \
  X(STREAM, 18, "stream")                                                      \
  X(MUTEX, 19, "mutex")                                                        \
  X(REQUEST, 32, "request")                                                    \
  X(HANDLE, 33, "handle")                                                      \
  X(WORK, 34, "work")                                                          \
  X(TIMER, 35, "timer")                                                        \
  X(CALLBACK, 36, "callback")                                                  \
  X(FS, 37, "fs")                                                              \
  X(CONNECT, 38, "connect")                                                    \
  X(WRITE, 39, "write")                                                        \
  X(SHUTDOWN, 40, "shutdown")                                                  \
  X(GETADDRINFO, 41, "getaddrinfo")                                            \
  X(GETNAMEINFO, 42, "getnameinfo")                                            \
  X(UDP_SEND, 43, "udp_send")                                                  \
  X(RANDOM, 44, "random")                                                      \
  X(LOOP, 45, "loop")                                                          \
  X(UNKNOWN, 99, "unknown")

typedef enum mprof_type_e {
#define MPROF__TYPE_ENUM(name, value, text) MPROF_##name = value,
  MPROF_THREAD_TYPES(MPROF__TYPE_ENUM)
#undef MPROF__TYPE_ENUM
} mprof_type_t;

/* Error codes: every fallible call returns 0 or one of these. */
#define MPROF_ERRORS(X)                                                        \
  X(EINVAL, -1, "invalid argument")                                            \
  X(ENOSPC, -2, "buffer too small for a trace")                                \
  X(EBUSY, -3, "tracing already started")                                      \
  X(EIO, -4, "cannot create or map the trace file")                            \
  X(ENOCLOCK, -5, "no clock: give one in mprof_config_t")                      \
  X(ENOTSUP, -6, "not supported in this build")                                \
  X(ENOMEM, -7, "out of memory")

typedef enum mprof_error_e {
#define MPROF__ERROR_ENUM(name, value, text) MPROF_##name = value,
  MPROF_ERRORS(MPROF__ERROR_ENUM)
#undef MPROF__ERROR_ENUM
} mprof_error_t;

/* What happens when the buffer is full. */
typedef enum mprof_ring_mode_e {
  /* Flight recorder: reuse the oldest packets, keep the newest events. */
  MPROF_RING_OVERWRITE = 0,
  /* Keep the oldest events; count the new ones as discarded. */
  MPROF_RING_DISCARD = 1
} mprof_ring_mode_t;

/* A clock: returns ticks of a monotonic clock of clock_freq_hz. */
typedef uint64_t (*mprof_clock_fn)(void);

/* Everything mprof_start() needs.  Zero what you do not set. */
typedef struct mprof_config_s {
  void *buffer;                /* where the trace goes; caller-owned */
  size_t size;                 /* bytes in buffer (at least MPROF_MIN_SIZE) */
  uint32_t packet_size;        /* bytes per packet, power of two, or 0 */
  mprof_ring_mode_t ring_mode; /* default MPROF_RING_OVERWRITE */
  mprof_clock_fn clock;        /* NULL: raw TSC (x86-64 only) */
  uint64_t clock_freq_hz;      /* ticks per second of clock (required) */
  int64_t clock_offset_ns;     /* wall-clock ns (Unix epoch) at tick 0 */
  uint8_t uuid[16];            /* trace uuid; all zero: derived */
  const char *name;            /* program name, stored in the metadata */
  uint32_t (*os_thread_id)(void); /* optional: OS thread id for packets */
  void (*on_new_stream)(void);    /* optional: an OS thread's first event */
} mprof_config_t;

/* Smallest buffer mprof_start() accepts. */
#define MPROF_MIN_SIZE (64u * 1024u)

/* A counter made by mprof_counter_make(); 0 means "none". */
typedef uint32_t mprof_counter_t;

/* Thread id meaning "no thread": the loop is idle. */
#define MPROF_NONE ((uint64_t)0)

/* Text for an error code returned by any mprof call.  This and
 * mprof_type_name() are plain functions in every build: calling them
 * needs libmprof even with tracing compiled out. */
const char *mprof_strerror(int error);

/* Name of a thread type ("wait", "request", ...), or "unknown". */
const char *mprof_type_name(mprof_type_t type);

#ifdef MPROF_TRACING

/* Nonzero while recording.  The calls below test it inline, so a program
 * built with tracing pays one load and one predictable branch per call
 * until mprof_start(); the mprof__ functions do the recording. */
extern int mprof__recording;
#define MPROF__RECORDING                                                       \
  __builtin_expect(__atomic_load_n(&mprof__recording, __ATOMIC_RELAXED), 0)

/* Start recording into config->buffer.  Writes the trace header and its CTF
 * metadata at once.  Returns 0, MPROF_EBUSY if already started,
 * MPROF_ENOSPC if the buffer is too small, MPROF_EINVAL, MPROF_ENOCLOCK. */
int mprof_start(const mprof_config_t *config);

/* Stop recording.  The buffer stays a complete trace; the caller may free
 * it only once no other OS thread can be inside an mprof call. */
void mprof_stop(void);

/* Nonzero while recording. */
int mprof_is_started(void);

/* A new thread of the given type, created by the current one; its id. */
uint64_t mprof__create(mprof_type_t type);
static inline uint64_t mprof_create(mprof_type_t type) {
  return MPROF__RECORDING ? mprof__create(type) : MPROF_NONE;
}

/* The current thread waits for (or reads the result of) source. */
void mprof__read(uint64_t source);
static inline void mprof_read(uint64_t source) {
  if (MPROF__RECORDING) mprof__read(source);
}

/* The current thread checks source and finds it still pending. */
void mprof__try_read(uint64_t source);
static inline void mprof_try_read(uint64_t source) {
  if (MPROF__RECORDING) mprof__try_read(source);
}

/* The current thread fulfils thread. */
void mprof__resolve(uint64_t thread);
static inline void mprof_resolve(uint64_t thread) {
  if (MPROF__RECORDING) mprof__resolve(thread);
}

/* The current thread fails thread with a reason (copied). */
void mprof__fail(uint64_t thread, const char *reason);
static inline void mprof_fail(uint64_t thread, const char *reason) {
  if (MPROF__RECORDING) mprof__fail(thread, reason);
}

/* Pending old_thread now behaves as new_thread (they merge). */
void mprof__becomes(uint64_t old_thread, uint64_t new_thread);
static inline void mprof_becomes(uint64_t old_thread, uint64_t new_thread) {
  if (MPROF__RECORDING) mprof__becomes(old_thread, new_thread);
}

/* Name a thread; the label is copied and survives the ring wrapping. */
void mprof__label(uint64_t thread, const char *label);
static inline void mprof_label(uint64_t thread, const char *label) {
  if (MPROF__RECORDING) mprof__label(thread, label);
}

/* The current thread wakes or notifies target. */
void mprof__signal(uint64_t target);
static inline void mprof_signal(uint64_t target) {
  if (MPROF__RECORDING) mprof__signal(target);
}

/* thread starts running on this OS thread (MPROF_NONE: nothing runs). */
void mprof__switch(uint64_t thread);
static inline void mprof_switch(uint64_t thread) {
  if (MPROF__RECORDING) mprof__switch(thread);
}

/* The loop goes idle (a hiatus) until the next mprof_switch(). */
void mprof__suspend(void);
static inline void mprof_suspend(void) {
  if (MPROF__RECORDING) mprof__suspend();
}

/* thread is expected to resolve: viewers flag it if it never does. */
void mprof__should_resolve(uint64_t thread);
static inline void mprof_should_resolve(uint64_t thread) {
  if (MPROF__RECORDING) mprof__should_resolve(thread);
}

/* A named counter; works before mprof_start() too.  The name is written
 * into the names area, so it survives the ring wrapping, and again at each
 * later start: it is not copied and must stay valid (a string literal).
 * Returns 0 when the counter table (4096) is full. */
mprof_counter_t mprof_counter_make(const char *name);

/* Add amount to a counter. */
void mprof__counter_increase(mprof_counter_t counter, int64_t amount);
static inline void mprof_counter_increase(mprof_counter_t counter,
                                          int64_t amount) {
  if (MPROF__RECORDING) mprof__counter_increase(counter, amount);
}

/* Set a counter's absolute value. */
void mprof__counter_value(mprof_counter_t counter, int64_t value);
static inline void mprof_counter_value(mprof_counter_t counter, int64_t value) {
  if (MPROF__RECORDING) mprof__counter_value(counter, value);
}

/* The thread running on this OS thread (MPROF_NONE if none). */
uint64_t mprof_current(void);

/* Events this OS thread could not record (discard mode, no packet free). */
uint64_t mprof_discarded(void);

/* Release this OS thread's packets; call before the OS thread exits.  The
 * Unix layer does it for you from a thread-exit hook. */
void mprof_thread_exit(void);

/* A thread created by creator rather than by the current thread. */
uint64_t mprof__create_by(uint64_t creator, mprof_type_t type);
static inline uint64_t mprof_create_by(uint64_t creator, mprof_type_t type) {
  return MPROF__RECORDING ? mprof__create_by(creator, type) : MPROF_NONE;
}

#else /* !MPROF_TRACING: every call compiles to nothing. */

static inline int mprof_start(const mprof_config_t *config) {
  (void)config;
  return MPROF_ENOTSUP;
}
static inline void mprof_stop(void) {}
static inline int mprof_is_started(void) { return 0; }
static inline uint64_t mprof_create(mprof_type_t type) {
  (void)type;
  return MPROF_NONE;
}
static inline void mprof_read(uint64_t source) { (void)source; }
static inline void mprof_try_read(uint64_t source) { (void)source; }
static inline void mprof_resolve(uint64_t thread) { (void)thread; }
static inline void mprof_fail(uint64_t thread, const char *reason) {
  (void)thread;
  (void)reason;
}
static inline void mprof_becomes(uint64_t old_thread, uint64_t new_thread) {
  (void)old_thread;
  (void)new_thread;
}
static inline void mprof_label(uint64_t thread, const char *label) {
  (void)thread;
  (void)label;
}
static inline void mprof_signal(uint64_t target) { (void)target; }
static inline void mprof_switch(uint64_t thread) { (void)thread; }
static inline void mprof_suspend(void) {}
static inline void mprof_should_resolve(uint64_t thread) { (void)thread; }
static inline mprof_counter_t mprof_counter_make(const char *name) {
  (void)name;
  return 0;
}
static inline void mprof_counter_increase(mprof_counter_t c, int64_t amount) {
  (void)c;
  (void)amount;
}
static inline void mprof_counter_value(mprof_counter_t c, int64_t value) {
  (void)c;
  (void)value;
}
static inline uint64_t mprof_current(void) { return MPROF_NONE; }
static inline uint64_t mprof_discarded(void) { return 0; }
static inline void mprof_thread_exit(void) {}
static inline uint64_t mprof_create_by(uint64_t creator, mprof_type_t type) {
  (void)creator;
  (void)type;
  return MPROF_NONE;
}

#endif /* MPROF_TRACING */

/* Named helpers, as MProf.Trace.named_* in the original.  They are built
 * from the calls above, so they vanish with them when compiled out. */

/* A new Wait thread (a promise the program will resolve), labelled. */
static inline uint64_t mprof_named_wait(const char *label) {
  uint64_t thread = mprof_create(MPROF_WAIT);
  mprof_label(thread, label);
  return thread;
}

/* A new Task thread (a cancellable promise), labelled. */
static inline uint64_t mprof_named_task(const char *label) {
  uint64_t thread = mprof_create(MPROF_TASK);
  mprof_label(thread, label);
  return thread;
}

/* A new Condition thread: the thing waiters wait on and notifiers signal. */
static inline uint64_t mprof_named_condition(const char *label) {
  uint64_t condition = mprof_create(MPROF_CONDITION);
  mprof_label(condition, label);
  return condition;
}

/* The current thread starts waiting on condition.  Returns the waiter (a
 * Wait thread created by the condition, labelled), which the program
 * resolves with mprof_resolve() when the wait ends; it is marked
 * should_resolve, so a wait that never ends is reported. */
static inline uint64_t mprof_condition_wait(uint64_t condition,
                                            const char *label) {
  uint64_t waiter = mprof_create_by(condition, MPROF_WAIT);
  mprof_label(waiter, label);
  mprof_should_resolve(waiter);
  mprof_try_read(waiter);
  return waiter;
}

/* The current thread notifies condition (whether or not anyone waits). */
static inline void mprof_condition_notify(uint64_t condition) {
  mprof_signal(condition);
}

#ifdef __cplusplus
}
#endif

#endif /* MPROF_H */
