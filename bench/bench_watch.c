/* bench_watch.c -- what following a busy trace costs `mprof watch`: this
 * process records 1e6 events/s (a thread switched in and out, in bursts
 * each millisecond) into an 8 MiB trace file in overwrite mode while
 * `mprof watch --for` follows it, and the watch's processor time (user +
 * system, from wait4) is divided by the wall time it ran.  One JSON line:
 * watch core_fraction, against one_core (1.0); the target is 0.05 or less.
 *
 *   mprof_bench_watch --mprof MPROF [--seconds S] [--dir DIR]
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "mprof.h"
#include "mprof/unix.h"

#define EVENTS_PER_S 1000000.0
#define TRACE_BYTES (8u << 20)

extern char **environ;

/* Record EVENTS_PER_S until seconds have passed since start_ns. */
static void record_at_rate(uint64_t start_ns, double seconds) {
  uint64_t thread = mprof_named_task("work"), done = 0;
  for (;;) {
    double elapsed = (double)(bench_now_ns() - start_ns) / 1e9;
    if (elapsed > seconds) return;
    for (uint64_t want = (uint64_t)(elapsed * EVENTS_PER_S); done < want;
         done += 2) {
      mprof_switch(thread);
      mprof_switch(0);
    }
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
  }
}

int main(int argc, char **argv) {
  const char *mprof = NULL, *dir = "/tmp";
  double seconds = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--mprof"))
      mprof = argv[i + 1];
    else if (!strcmp(argv[i], "--seconds"))
      seconds = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--dir"))
      dir = argv[i + 1];
  }
  if (!mprof || seconds <= 0) {
    fputs("usage: mprof_bench_watch --mprof MPROF [--seconds S] [--dir DIR]\n",
          stderr);
    return 2;
  }
  char trace[4096], captures[4096], duration[32];
  snprintf(trace, sizeof trace, "%s/bench-watch-%d.ctf", dir, (int)getpid());
  snprintf(captures, sizeof captures, "%s/bench-watch-%d", dir, (int)getpid());
  snprintf(duration, sizeof duration, "%gs", seconds);
  if (mprof_unix_start_file(trace, TRACE_BYTES)) {
    bench_note("cannot record into %s", trace);
    return 1;
  }
  char *watch[] = {(char *)mprof, "watch",  "--for", duration,
                   "-o",          captures, trace,   NULL};
  pid_t pid;
  uint64_t start = bench_now_ns();
  if (posix_spawn(&pid, mprof, NULL, NULL, watch, environ)) {
    bench_note("cannot start %s", mprof);
    return 1;
  }
  record_at_rate(start, seconds);
  int status;
  struct rusage usage;
  pid_t ended = wait4(pid, &status, 0, &usage);
  double wall_s = (double)(bench_now_ns() - start) / 1e9;
  mprof_unix_stop();
  unlink(trace);
  rmdir(captures); /* empty: nothing in the trace is a finding */
  if (ended != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
    bench_note("mprof watch failed");
    return 1;
  }
  double cpu_s = (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
                 (double)usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
  bench_note("watch: %.3f s of processor time in %.3f s", cpu_s, wall_s);
  bench_json("watch", "core_fraction", cpu_s / wall_s, "one_core", 1.0);
  return 0;
}
