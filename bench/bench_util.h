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
 *   --rounds N    timed rounds per measurement (median reported), default 15
 *                 (many short rounds, interleaved, ride out the bursts of
 *                 a noisy machine better than a few long ones)
 *   --events N    events (loop iterations) per round, default 10000000
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

/* Most rounds a measurement may have. */
#define BENCH_MAX_ROUNDS 99

/* Median of n values (1 <= n <= BENCH_MAX_ROUNDS). */
double bench_median(const double *values, int n);

/* A stderr line: the median of a[r] / b[r], the rounds of two interleaved
 * loops paired, next to the ratio of their medians (the reported ratio). */
void bench_note_paired(const char *what, const double *a, const double *b,
                       int rounds);

/* Smallest of n values. */
double bench_min(const double *values, int n);

/* Print one result line on stdout (and flush). */
void bench_json(const char *bench, const char *metric, double value,
                const char *baseline, double baseline_value);

/* printf to stderr, prefixed with the program name. */
void bench_note(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Map size bytes of a new file in dir, MAP_SHARED, every page faulted in for
 * writing, the file unlinked at once: the same kind of memory mprof's Unix
 * layer records into.  Exits on failure. */
void *bench_map_buffer(const char *dir, const char *name, size_t size);

/* A timed loop: elapsed ns for n iterations. */
typedef uint64_t (*bench_loop_fn)(uint64_t n);

/* A round of a measurement runs its loops (k <= 8) by turns in
 * BENCH_CHUNKS chunks of n / BENCH_CHUNKS iterations each, the loop that
 * goes first rotating, so that a burst of noise on the machine (a few ms to
 * seconds) falls on every loop alike.  ns[j][r]: ns per iteration of loop j
 * in round r.  An untimed warm-up of n / 4 iterations of each comes first. */
#define BENCH_CHUNKS 50
void bench_interleave(const bench_loop_fn *loops, int k, uint64_t n, int rounds,
                      double (*ns)[BENCH_MAX_ROUNDS]);

/* bench_interleave() of two loops. */
void bench_compare(bench_loop_fn a, bench_loop_fn b, uint64_t n, int rounds,
                   double *ns_a, double *ns_b);

/* One stderr line: what, then each round's figure. */
void bench_note_rounds(const char *what, const double *values, int rounds);

/* Path of a fresh trace file in dir for mprof_unix_start_file(); the caller
 * unlinks it when done. */
void bench_trace_path(char *out, size_t capacity, const char *dir,
                      const char *name);

/* Start mprof into a 64 MiB overwrite-mode trace file in dir; exits on
 * failure.  Returns the file's path (static storage). */
const char *bench_start_mprof(const char *dir, const char *name);

/* Size of every trace buffer in these benchmarks. */
#define BENCH_BUFFER_SIZE ((size_t)64 * 1024 * 1024)

/* --- Timed loops (elapsed ns for n iterations) -----------------------------
 */

/* An empty loop: the noise line. */
uint64_t bench_loop_idle(uint64_t n);

/* mprof_becomes(a, b) per iteration: recording when mprof is started, the
 * "compiled in, not started" cost when it is not. */
uint64_t bench_loop_mprof(uint64_t n);

/* A call to an empty out-of-line function with the same arguments. */
uint64_t bench_loop_empty_call(uint64_t n);

/* The floor of recording an event: read the clock (bench_ticks()) and store
 * 24 bytes (clock, a, b as u64) at a pointer that advances through a buffer
 * and wraps at its end. */
typedef struct bench_floor_s {
  uint64_t *begin, *end, *pos;
} bench_floor_t;

void bench_floor_init(bench_floor_t *ring, void *buffer, size_t size);
uint64_t bench_loop_floor(bench_floor_t *ring, uint64_t n);

#endif /* MPROF_BENCH_UTIL_H */
