/* bench_util.h -- what the recorder benchmarks share: timing, medians, JSON
 * result lines, trace-like buffers, and the timed loops every benchmark
 * compares against.
 *
 * Every timed loop has the same shape: a noinline function that runs n
 * iterations of one call (or one floor operation) and returns the elapsed
 * CLOCK_MONOTONIC nanoseconds.  The event is always the same: two small
 * 32-bit integers, a = (i & 1023) + 1 and b = a + 1, so mprof_becomes(a, b),
 * the LTTng tracepoint and the barectf tracing function record the same
 * information.
 *
 * Result lines go to stdout, one JSON object per line, and nothing else does:
 *   {"bench":..,"metric":..,"value":..,"baseline":..,"baseline_value":..,
 *    "ratio":..}
 * with ratio = value / baseline_value, both measured in the same process and
 * run.  Human notes go to stderr.
 */
#ifndef MPROF_BENCH_UTIL_H
#define MPROF_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_NOINLINE __attribute__((noinline))
#define BENCH_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Command line shared by the benchmark programs:
 *   --rounds N    timed rounds per measurement (median reported), default 7
 *   --events N    events (loop iterations) per round, default 20000000
 *   --dir DIR     where trace and buffer files go, default /dev/shm or /tmp
 *   --threads N   (threads benchmark) extra thread count to measure */
typedef struct bench_args_s {
  int rounds;
  uint64_t events;
  const char *dir;
  int threads;
} bench_args_t;

void bench_parse_args(int argc, char **argv, bench_args_t *args);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench_now_ns(void);

/* The clock the floor loops read: the TSC on x86-64 (what mprof reads),
 * CLOCK_MONOTONIC elsewhere (what mprof's Unix layer reads there). */
static inline uint64_t bench_ticks(void) {
#if defined(__x86_64__)
  return __builtin_ia32_rdtsc();
#else
  return bench_now_ns();
#endif
}

/* Median of n values (n >= 1); values is left sorted. */
double bench_median(double *values, int n);

/* Smallest of n values. */
double bench_min(const double *values, int n);

/* Print one result line on stdout (and flush). */
void bench_json(const char *bench, const char *metric, double value,
                const char *baseline, double baseline_value);

/* printf to stderr, prefixed with the program name. */
void bench_note(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/* Map size bytes of a new file in dir, MAP_SHARED, every page faulted in for
 * writing, the file unlinked at once: the same kind of memory mprof's Unix
 * layer records into.  Exits on failure. */
void *bench_map_buffer(const char *dir, const char *name, size_t size);

/* Path of a fresh trace file in dir for mprof_unix_start_file(); the caller
 * unlinks it when done. */
void bench_trace_path(char *out, size_t capacity, const char *dir,
                      const char *name);

/* Start mprof into a 64 MiB overwrite-mode trace file in dir; exits on
 * failure.  Returns the file's path (static storage). */
const char *bench_start_mprof(const char *dir, const char *name);

/* Size of every trace buffer in these benchmarks. */
#define BENCH_BUFFER_SIZE ((size_t)64 * 1024 * 1024)

/* --- Timed loops (elapsed ns for n iterations) ----------------------------- */

/* An empty loop: the noise line. */
uint64_t bench_loop_idle(uint64_t n);

/* mprof_becomes(a, b) per iteration: recording when mprof is started, the
 * "compiled in, not started" cost when it is not. */
uint64_t bench_loop_mprof(uint64_t n);

/* A call to an empty out-of-line function with the same arguments. */
uint64_t bench_loop_empty_call(uint64_t n);

#endif /* MPROF_BENCH_UTIL_H */
