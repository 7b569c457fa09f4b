/* mprof/unix.h -- record into an mmapped trace file on Unix.
 *
 * The file is the trace: another process can read it while the program
 * runs (`mprof snapshot`), and it stays readable if the program crashes,
 * from the moment it has its name.  The clock is the raw TSC on x86-64
 * where its frequency is known without waiting (MPROF_TSC_HZ, the CPU, or
 * mprof_unix_tsc_freq() before the start; in the trace's clock
 * declaration), else CLOCK_MONOTONIC.
 *
 * With libmprof linked in, no code is needed at all:
 *
 *   MPROF_TRACE=trace.ctf MPROF_SIZE=8M ./prog
 *
 * Environment (read once, at program start):
 *   MPROF_TRACE   trace file path; "%p" in it becomes the process id
 *   MPROF_SIZE    buffer size, with an optional K, M or G suffix (8M)
 *   MPROF_MODE    "overwrite" (flight recorder, default) or "discard"
 *   MPROF_CLOCK   "tsc" (default on x86-64 with an invariant TSC) or
 *                 "monotonic"
 *   MPROF_FORK    "follow" (default: a forked child writes PATH.PID, made
 *                 at its first event) or "stop" (the child records nothing)
 *   MPROF_TSC_HZ  the TSC's frequency in Hz (0: no usable TSC), which
 *                 `mprof record` measures once for the whole process tree
 */
#ifndef MPROF_UNIX_H
#define MPROF_UNIX_H

#include <stddef.h>

#include "../mprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How to record into a file.  Zero what you do not set. */
typedef struct mprof_unix_options_s {
  const char *path;            /* trace file to create (mode 0600) */
  size_t size;                 /* file size; 0: 8 MiB */
  mprof_ring_mode_t ring_mode; /* default MPROF_RING_OVERWRITE */
  uint32_t packet_size;        /* 0: chosen from size */
  int monotonic_clock;         /* nonzero: CLOCK_MONOTONIC, not the TSC */
  int fork_stop;               /* nonzero: forked children record nothing */
} mprof_unix_options_t;

#ifdef MPROF_TRACING

/* Create path (size bytes) and start recording into it, without waiting:
 * the file gets its name once its header is whole, replacing a file there
 * that no live process writes.  Returns 0 or a negative mprof error; on
 * MPROF_EIO, errno says why (EBUSY: a live process writes path). */
int mprof_unix_start_file(const char *path, size_t size);

/* mprof_unix_start_file() with every option. */
int mprof_unix_start(const mprof_unix_options_t *options);

/* Stop recording and flush the file.  The mapping stays in place, so OS
 * threads still inside an mprof call never touch unmapped memory. */
void mprof_unix_stop(void);

/* Start from the MPROF_* environment variables, as happens by itself at
 * program start.  Returns 0 if MPROF_TRACE is unset or tracing started; on
 * failure prints one line to stderr, returns the error, and the program
 * runs on untraced. */
int mprof_unix_start_from_env(void);

/* Ticks per second of the raw TSC (0 if there is none): MPROF_TSC_HZ, else
 * what the CPU declares, else measured now, over 10 ms.  Later starts in
 * this process and its forked children record with it. */
uint64_t mprof_unix_tsc_freq(void);

#else

static inline int mprof_unix_start_file(const char *path, size_t size) {
  (void)path;
  (void)size;
  return MPROF_ENOTSUP;
}
static inline int mprof_unix_start(const mprof_unix_options_t *options) {
  (void)options;
  return MPROF_ENOTSUP;
}
static inline void mprof_unix_stop(void) {}
static inline int mprof_unix_start_from_env(void) { return 0; }
static inline uint64_t mprof_unix_tsc_freq(void) { return 0; }

#endif /* MPROF_TRACING */

#ifdef __cplusplus
}
#endif

#endif /* MPROF_UNIX_H */
