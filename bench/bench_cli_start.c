/* bench_cli_start.c -- how soon the mprof command is done with a small
 * trace: `mprof stats TRACE` against a plain C program that opens and
 * reads the same file (cli_read.c), started by turns, each run timed from
 * spawn to exit with its output thrown away.  One JSON line: cli_start
 * ms_to_exit, the median mprof run, against plain_c_read, the median plain
 * one; the target is a value of 3 ms or less (the ratio is information: a
 * plain read is about as fast as any process can be).
 *
 *   mprof_bench_cli_start --mprof MPROF --read CLI_READ --trace TRACE
 *                         [--runs N]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bench_util.h"

#define MAX_RUNS BENCH_MAX_ROUNDS

extern char **environ;

/* One run of argv, its stdout into /dev/null: ms from spawn to exit; or
 * exits. */
static double run_ms(char **argv) {
  posix_spawn_file_actions_t actions;
  pid_t pid;
  int status;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  uint64_t t0 = bench_now_ns();
  int failed = posix_spawn(&pid, argv[0], &actions, NULL, argv, environ) ||
               waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
               WEXITSTATUS(status);
  double ms = (double)(bench_now_ns() - t0) / 1e6;
  posix_spawn_file_actions_destroy(&actions);
  if (failed) {
    bench_note("%s failed", argv[0]);
    exit(1);
  }
  return ms;
}

int main(int argc, char **argv) {
  const char *mprof = NULL, *reader = NULL, *trace = NULL;
  int runs = 51;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--mprof"))
      mprof = argv[i + 1];
    else if (!strcmp(argv[i], "--read"))
      reader = argv[i + 1];
    else if (!strcmp(argv[i], "--trace"))
      trace = argv[i + 1];
    else if (!strcmp(argv[i], "--runs"))
      runs = atoi(argv[i + 1]);
  }
  if (argc % 2 == 0 || !mprof || !reader || !trace || runs < 1 ||
      runs > MAX_RUNS) {
    fprintf(stderr, "usage: mprof_bench_cli_start --mprof MPROF --read "
                    "CLI_READ --trace TRACE [--runs N]\n");
    return 2;
  }
  char *stats[] = {(char *)mprof, "stats", (char *)trace, NULL};
  char *plain[] = {(char *)reader, (char *)trace, NULL};
  char *help[] = {(char *)mprof, "--help", NULL};
  static double ms[3][MAX_RUNS];
  char **programs[3] = {stats, plain, help};
  run_ms(stats); /* the page cache warm for both */
  for (int r = 0; r < runs; r++)
    for (int k = 0; k < 3; k++) { /* by turns, the first rotating */
      int which = (r + k) % 3;
      ms[which][r] = run_ms(programs[which]);
    }
  double median[3];
  for (int i = 0; i < 3; i++) median[i] = bench_median(ms[i], runs);
  bench_note("median ms from spawn to exit: mprof stats %.3f, a plain read "
             "of the trace %.3f, mprof --help %.3f",
             median[0], median[1], median[2]);
  bench_json("cli_start", "ms_to_exit", median[0], "plain_c_read", median[1]);
  return 0;
}
