/* bench_start.c -- what recording adds to a process's start: uv_tiny (a
 * libuv program that runs one timer and exits) started by turns plain and
 * under the LD_PRELOAD shim recording as `mprof record` runs it (with
 * MPROF_TSC_HZ, the TSC frequency measured once here), each run timed from
 * spawn to exit.  One JSON line: record_start ms_more_than_plain, the
 * median traced run minus the median plain run, against budget_1ms: target
 * ratio <= 1.  A note on stderr gives the CPU time of each too (steadier
 * on a busy machine), and the same without MPROF_TSC_HZ (a process on its
 * own, on a machine whose CPU does not declare its TSC frequency, records
 * with CLOCK_MONOTONIC).
 *
 *   mprof_bench_start --prog UV_TINY --shim SHIM [--runs N] [--dir DIR]
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <mprof/unix.h>

#include "../bench_util.h"

#define MAX_RUNS 1000

typedef struct options_s {
  const char *prog, *shim, *dir;
  int runs;
} options_t;

static void usage(void) {
  fprintf(stderr, "usage: mprof_bench_start --prog UV_TINY --shim SHIM "
                  "[--runs N] [--dir DIR]\n");
  exit(2);
}

static void parse(int argc, char **argv, options_t *o) {
  *o = (options_t){NULL, NULL, "/tmp", 100};
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *value = argv[i + 1];
    if (!strcmp(argv[i], "--prog"))
      o->prog = value;
    else if (!strcmp(argv[i], "--shim"))
      o->shim = value;
    else if (!strcmp(argv[i], "--dir"))
      o->dir = value;
    else if (!strcmp(argv[i], "--runs"))
      o->runs = atoi(value);
    else
      usage();
  }
  if (argc % 2 == 0 || !o->prog || !o->shim || o->runs < 1 ||
      o->runs > MAX_RUNS)
    usage();
}

/* One run of prog with environment env: ms from spawn to exit, and the
 * CPU ms (user and system) it took into *cpu_ms; or exits. */
static double run_ms(const char *prog, char **env, double *cpu_ms) {
  char *argv[] = {(char *)prog, NULL};
  pid_t pid;
  int status;
  struct rusage usage;
  uint64_t t0 = bench_now_ns();
  if (posix_spawn(&pid, prog, NULL, NULL, argv, env) ||
      wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status)) {
    bench_note("%s failed", prog);
    exit(1);
  }
  double wall_ms = (double)(bench_now_ns() - t0) / 1e6;
  *cpu_ms = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 +
            (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
  return wall_ms;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of n values (sorted in place). */
static double median_of(double *values, int n) {
  qsort(values, (size_t)n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

int main(int argc, char **argv) {
  options_t o;
  parse(argc, argv, &o);
  static char preload[4200], trace[4200], tsc[64];
  snprintf(preload, sizeof preload, "LD_PRELOAD=%s", o.shim);
  snprintf(trace, sizeof trace, "MPROF_TRACE=%s/bench-start.ctf", o.dir);
  snprintf(tsc, sizeof tsc, "MPROF_TSC_HZ=%llu",
           (unsigned long long)mprof_unix_tsc_freq());
  char *plain_env[] = {NULL};
  char *traced_env[] = {preload, trace, tsc, NULL};
  char *alone_env[] = {preload, trace, NULL};
  char **envs[3] = {plain_env, traced_env, alone_env};
  static double wall[3][MAX_RUNS], cpu[3][MAX_RUNS];
  double unused;
  run_ms(o.prog, traced_env, &unused); /* warm the page cache */
  for (int r = 0; r < o.runs; r++)
    for (int k = 0; k < 3; k++) { /* by turns, the first of three rotating */
      int which = (r + k) % 3;
      wall[which][r] = run_ms(o.prog, envs[which], &cpu[which][r]);
    }
  remove(trace + strlen("MPROF_TRACE="));
  double median_wall[3], median_cpu[3];
  for (int i = 0; i < 3; i++) {
    median_wall[i] = median_of(wall[i], o.runs);
    median_cpu[i] = median_of(cpu[i], o.runs);
  }
  bench_note("uv_tiny, median ms (wall, CPU): plain %.3f, %.3f; recording as "
             "mprof record runs it %.3f, %.3f; recording without "
             "MPROF_TSC_HZ %.3f, %.3f",
             median_wall[0], median_cpu[0], median_wall[1], median_cpu[1],
             median_wall[2], median_cpu[2]);
  bench_json("record_start", "ms_more_than_plain",
             median_wall[1] - median_wall[0], "budget_1ms", 1.0);
  return 0;
}
