/* test_trace_end.c -- when a trace's recording ended (the header's
 * end_ticks): mprof_stop() writes it; a writer killed without stopping
 * leaves none, until mprof_trace_mark_ended() (what mprof record calls
 * when its program is gone) writes the time given; a trace that says its
 * end keeps it, and a live writer's is left alone. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "mprof.h"
#include "mprof/read.h"
#include "mprof/unix.h"

static char path[256];

static int64_t wall_now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* The trace's end, as wall-clock ns (through its anchor), or 0. */
static int64_t end_wall_ns(void) {
  mprof_trace_t *trace;
  assert_int_equal(mprof_trace_open(path, NULL, NULL, &trace), 0);
  const mprof_trace_info_t *info = mprof_trace_info(trace);
  int64_t end = info->end_ticks
                    ? info->clock_offset_ns +
                          (int64_t)((unsigned __int128)info->end_ticks *
                                    1000000000u / info->clock_freq_hz)
                    : 0;
  mprof_trace_close(trace);
  return end;
}

/* A child records a task into path on the monotonic clock, then stops
 * (stop) or is killed at once. */
static void record_child(int stop) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    mprof_unix_options_t options = {path, 1 << 20, MPROF_RING_OVERWRITE,
                                    0,    1,       0};
    if (mprof_unix_start(&options)) _exit(1);
    mprof_switch(mprof_named_task("work"));
    if (stop) {
      mprof_unix_stop();
      _exit(0);
    }
    raise(SIGKILL);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
}

static void test_stop_writes_the_end(void **state) {
  (void)state;
  int64_t before = wall_now_ns();
  record_child(1);
  int64_t end = end_wall_ns(), after = wall_now_ns();
  assert_true(end >= before - 1000000 && end <= after + 1000000);
  /* a trace that says its end keeps it */
  assert_int_equal(mprof_trace_mark_ended(path, after + 5000000000), 0);
  assert_true(end_wall_ns() == end);
}

static void test_killed_writer_ends_when_marked(void **state) {
  (void)state;
  record_child(0);
  assert_int_equal(end_wall_ns(), 0);
  int64_t gone = wall_now_ns() + 3000000000; /* seen gone 3 s later */
  assert_int_equal(mprof_trace_mark_ended(path, gone), 0);
  int64_t end = end_wall_ns();
  assert_true(end > gone - 1000 && end < gone + 1000);
  assert_int_equal(mprof_trace_mark_ended("/nonexistent/trace.ctf", gone),
                   MPROF_EIO);
}

int main(void) {
  snprintf(path, sizeof path, "%s/mprof-trace-end-%d.ctf",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stop_writes_the_end),
      cmocka_unit_test(test_killed_writer_ends_when_marked),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  unlink(path);
  return failed;
}
