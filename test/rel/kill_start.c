/* kill_start.c -- a trace killed at any instant of its process's start
 * reads back: a traced writer (this program, "write": it records from its
 * first instruction under MPROF_TRACE, until killed) is SIGKILLed at 1, 2,
 * 3, 5, 8, 13 and 21 ms after it was spawned, ROUNDS times each.  Whenever
 * the trace exists under its name, `mprof check` passes (zero events is
 * fine); nothing else is ever left in the directory (no half-made file
 * under another name).
 *
 *   kill_start MPROF ROUNDS   (in a new directory under TMPDIR or /tmp)
 *   kill_start write
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mprof.h"

static const int delays_ms[] = {1, 2, 3, 5, 8, 13, 21};
#define DELAYS (sizeof delays_ms / sizeof delays_ms[0])

static _Noreturn void write_forever(void) {
  for (;;) {
    uint64_t task = mprof_create(MPROF_TASK);
    mprof_label(task, "task");
    mprof_resolve(task);
  }
}

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "FAIL: %s%s%s\n", what, detail ? ": " : "",
          detail ? detail : "");
  exit(1);
}

/* Spawn "self write" recording into trace, kill it delay_ms after. */
static void spawn_and_kill(const char *self, const char *trace, int delay_ms) {
  char variable[4200];
  snprintf(variable, sizeof variable, "MPROF_TRACE=%s", trace);
  char *env[] = {variable, NULL};
  char *argv[] = {(char *)self, "write", NULL};
  pid_t pid;
  struct timespec at;
  clock_gettime(CLOCK_MONOTONIC, &at);
  if (posix_spawn(&pid, self, NULL, NULL, argv, env)) fail("spawn", self);
  at.tv_nsec += (long)delay_ms * 1000000;
  if (at.tv_nsec >= 1000000000) {
    at.tv_sec++;
    at.tv_nsec -= 1000000000;
  }
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL)) {
  }
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
}

/* Names in dir other than "." and ".."; the first in *name. */
static int entries(const char *dir, char *name, size_t size) {
  DIR *d = opendir(dir);
  if (!d) fail("opendir", dir);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (!n++) snprintf(name, size, "%s", e->d_name);
  }
  closedir(d);
  return n;
}

/* mprof check of trace: its event count, or fails with its output. */
static long check(const char *mprof, const char *trace) {
  char command[8400], out[4096] = "";
  snprintf(command, sizeof command, "'%s' check '%s' 2>&1", mprof, trace);
  FILE *p = popen(command, "r");
  size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
  out[n] = 0;
  if (!p || pclose(p) != 0) fail("mprof check", out);
  const char *ok = strstr(out, ": ok, ");
  return ok ? atol(ok + 6) : -1;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "write")) write_forever();
  if (argc != 3) {
    fprintf(stderr, "usage: kill_start MPROF ROUNDS | kill_start write\n");
    return 2;
  }
  const char *mprof = argv[1], *tmp = getenv("TMPDIR");
  int rounds = atoi(argv[2]);
  char dir[4000], trace[4096], name[256];
  snprintf(dir, sizeof dir, "%s/mprof-kill.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) fail("mkdtemp", dir);
  snprintf(trace, sizeof trace, "%s/k.ctf", dir);
  for (size_t d = 0; d < DELAYS; d++) {
    int files = 0, empty = 0;
    for (int r = 0; r < rounds; r++) {
      spawn_and_kill("/proc/self/exe", trace, delays_ms[d]);
      int n = entries(dir, name, sizeof name);
      if (n > 1 || (n == 1 && strcmp(name, "k.ctf")))
        fail("a killed start left a file not under the trace's name", name);
      if (n == 0) continue;
      files++;
      empty += check(mprof, trace) == 0;
      unlink(trace);
    }
    printf("killed at %2d ms: %d times, %d traces (%d with no events), all "
           "pass mprof check\n",
           delays_ms[d], rounds, files, empty);
  }
  rmdir(dir);
  return 0;
}
