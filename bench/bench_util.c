/* bench_util.c -- see bench_util.h. */
#define _GNU_SOURCE
#include "bench_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <mprof/unix.h>

static void usage(const char *program) {
  fprintf(stderr,
          "usage: %s [--rounds N] [--events N] [--dir DIR] [--threads N]\n",
          program);
  exit(2);
}

static const char *default_dir(void) {
  if (access("/dev/shm", W_OK) == 0) return "/dev/shm";
  const char *tmp = getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

void bench_parse_args(int argc, char **argv, bench_args_t *args) {
  args->rounds = 15;
  args->events = 10000000;
  args->dir = default_dir();
  args->threads = 0;
  for (int i = 1; i < argc; i += 2) {
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (!value) usage(argv[0]);
    if (strcmp(argv[i], "--rounds") == 0)
      args->rounds = atoi(value);
    else if (strcmp(argv[i], "--events") == 0)
      args->events = strtoull(value, NULL, 10);
    else if (strcmp(argv[i], "--dir") == 0)
      args->dir = value;
    else if (strcmp(argv[i], "--threads") == 0)
      args->threads = atoi(value);
    else
      usage(argv[0]);
  }
  if (args->rounds < 1 || args->rounds > BENCH_MAX_ROUNDS ||
      args->events < 1000)
    usage(argv[0]);
}

uint64_t bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(const double *values, int n) {
  double v[BENCH_MAX_ROUNDS];
  if (n > BENCH_MAX_ROUNDS) n = BENCH_MAX_ROUNDS;
  memcpy(v, values, (size_t)n * sizeof *v);
  qsort(v, (size_t)n, sizeof *v, compare_doubles);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bench_note_paired(const char *what, const double *a, const double *b,
                       int rounds) {
  double ratio[BENCH_MAX_ROUNDS];
  for (int r = 0; r < rounds && r < BENCH_MAX_ROUNDS; r++)
    ratio[r] = b[r] > 0 ? a[r] / b[r] : 0;
  bench_note("%s: median of the per-round ratios %.3f (ratio of medians %.3f)",
             what, bench_median(ratio, rounds),
             bench_median(a, rounds) / bench_median(b, rounds));
}

double bench_min(const double *values, int n) {
  double m = values[0];
  for (int i = 1; i < n; i++)
    if (values[i] < m) m = values[i];
  return m;
}

void bench_json(const char *bench, const char *metric, double value,
                const char *baseline, double baseline_value) {
  double ratio = baseline_value > 0 ? value / baseline_value : 0;
  printf("{\"bench\":\"%s\",\"metric\":\"%s\",\"value\":%.6g,"
         "\"baseline\":\"%s\",\"baseline_value\":%.6g,\"ratio\":%.4g}\n",
         bench, metric, value, baseline, baseline_value, ratio);
  fflush(stdout);
}

void bench_note(const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  fprintf(stderr, "%s: ", program_invocation_short_name);
  vfprintf(stderr, format, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void bench_interleave(const bench_loop_fn *loops, int k, uint64_t n, int rounds,
                      double (*ns)[BENCH_MAX_ROUNDS]) {
  uint64_t chunk = n / BENCH_CHUNKS;
  if (chunk == 0) chunk = 1;
  for (int j = 0; j < k; j++) loops[j](n / 4);
  for (int r = 0; r < rounds; r++) {
    uint64_t elapsed[8] = {0};
    for (int c = 0; c < BENCH_CHUNKS; c++)
      for (int i = 0; i < k; i++) {
        int j = (i + r + c) % k; /* rotate which loop goes first */
        elapsed[j] += loops[j](chunk);
      }
    for (int j = 0; j < k; j++)
      ns[j][r] = (double)elapsed[j] / (double)(chunk * BENCH_CHUNKS);
  }
}

void bench_compare(bench_loop_fn a, bench_loop_fn b, uint64_t n, int rounds,
                   double *ns_a, double *ns_b) {
  static double ns[2][BENCH_MAX_ROUNDS];
  bench_loop_fn loops[2] = {a, b};
  bench_interleave(loops, 2, n, rounds, ns);
  for (int r = 0; r < rounds; r++) {
    ns_a[r] = ns[0][r];
    ns_b[r] = ns[1][r];
  }
}

void bench_note_rounds(const char *what, const double *values, int rounds) {
  char line[1024];
  int at = snprintf(line, sizeof line, "%-22s", what);
  for (int r = 0; r < rounds && at < (int)sizeof line - 16; r++)
    at += snprintf(line + at, sizeof line - (size_t)at, " %7.3f", values[r]);
  bench_note("%s", line);
}

void *bench_map_buffer(const char *dir, const char *name, size_t size) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%ld.buf", dir, name, (long)getpid());
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
    bench_note("cannot create %s: %s", path, strerror(errno));
    exit(1);
  }
  void *map = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_POPULATE, fd, 0);
  int saved = errno;
  unlink(path);
  close(fd);
  if (map == MAP_FAILED) {
    bench_note("cannot map %s: %s", path, strerror(saved));
    exit(1);
  }
  for (size_t off = 0; off < size; off += 4096) ((volatile char *)map)[off] = 0;
  return map;
}

void bench_trace_path(char *out, size_t capacity, const char *dir,
                      const char *name) {
  snprintf(out, capacity, "%s/%s.%ld.ctf", dir, name, (long)getpid());
}

const char *bench_start_mprof(const char *dir, const char *name) {
  static char path[4096];
  bench_trace_path(path, sizeof path, dir, name);
  mprof_unix_options_t options;
  memset(&options, 0, sizeof options);
  options.path = path;
  options.size = BENCH_BUFFER_SIZE;
  options.ring_mode = MPROF_RING_OVERWRITE;
  /* The TSC, as the floor loops read it: measured here where the CPU does
   * not declare its frequency (mprof record passes it down instead). */
  mprof_unix_tsc_freq();
  int err = mprof_unix_start(&options);
  if (err) {
    bench_note("mprof_unix_start(%s): %s (%s)", path, mprof_strerror(err),
               strerror(errno));
    exit(1);
  }
  return path;
}

/* --- Timed loops ------------------------------------------------------------
 */

BENCH_NOINLINE uint64_t bench_loop_idle(uint64_t n) {
  uint64_t t0 = bench_now_ns();
  for (uint64_t i = 0; i < n; i++) __asm__ volatile("" : : "r"(i));
  return bench_now_ns() - t0;
}

BENCH_NOINLINE uint64_t bench_loop_mprof(uint64_t n) {
  uint64_t t0 = bench_now_ns();
  for (uint64_t i = 0; i < n; i++) {
    uint32_t a = (uint32_t)(i & 1023) + 1;
    mprof_becomes(a, a + 1);
  }
  return bench_now_ns() - t0;
}

/* Out of line, with a body the compiler cannot see through, so the call
 * stays in the loop. */
BENCH_NOINLINE void bench_empty_function(uint64_t a, uint64_t b);
BENCH_NOINLINE void bench_empty_function(uint64_t a, uint64_t b) {
  __asm__ volatile("" : : "r"(a), "r"(b) : "memory");
}

BENCH_NOINLINE uint64_t bench_loop_empty_call(uint64_t n) {
  uint64_t t0 = bench_now_ns();
  for (uint64_t i = 0; i < n; i++) {
    uint32_t a = (uint32_t)(i & 1023) + 1;
    bench_empty_function(a, a + 1);
  }
  return bench_now_ns() - t0;
}

void bench_floor_init(bench_floor_t *ring, void *buffer, size_t size) {
  ring->begin = ring->pos = buffer;
  ring->end = ring->begin + size / 24 * 3;
}

BENCH_NOINLINE uint64_t bench_loop_floor(bench_floor_t *ring, uint64_t n) {
  uint64_t *p = ring->pos, *begin = ring->begin, *end = ring->end;
  uint64_t t0 = bench_now_ns();
  for (uint64_t i = 0; i < n; i++) {
    uint32_t a = (uint32_t)(i & 1023) + 1;
    p[0] = bench_ticks();
    p[1] = a;
    p[2] = a + 1;
    p += 3;
    if (BENCH_UNLIKELY(p >= end)) p = begin;
  }
  uint64_t elapsed = bench_now_ns() - t0;
  ring->pos = p;
  return elapsed;
}
