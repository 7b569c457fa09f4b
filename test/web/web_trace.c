/* web_trace.c -- traces for the browser viewer's tests and benchmark.
 *
 *   web_trace xss OUT          labels that are HTML and script
 *   web_trace load OUT EVENTS [N [PAUSE_US]]  about EVENTS events of many
 *                                  small requests, N in flight (default
 *                                  8), a pause of PAUSE_US µs before the
 *                                  10th (two runs of other N then diverge
 *                                  about the pause apart from their starts)
 *   web_trace phases OUT EVENTS    the same, 8 in flight, in two halves:
 *                                  "early phase" runs through the first,
 *                                  "late phase" starts after the second
 *                                  (and runs through a tenth more)
 *   web_trace idle OUT             every arrow kind, an idle hiatus of
 *                                  30 ms, two counters on one scale
 *   web_trace burst OUT            a start-up, 2 s asleep, then a burst of
 *                                  200 requests (load's, 8 in flight)
 *   web_trace streams OUT EVENTS   two OS threads one after the other,
 *                                  about EVENTS events each, 100 ms
 *                                  apart: "first N" tasks on the first,
 *                                  "second N" tasks on the second
 *
 * xss: a "client" task creates "<img src=x onerror=alert(1)>", which
 * creates "</script><script>alert(2)</script>"; the client waits for both;
 * the inner one resolves, the outer one fails with reason "<b>boom</b>";
 * a counter is named "<i>c</i>".
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mprof.h"
#include "mprof/unix.h"

static void xss(void) {
  mprof_counter_t c = mprof_counter_make("<i>c</i>");
  uint64_t client = mprof_named_task("client");
  mprof_switch(client);
  uint64_t img = mprof_named_task("<img src=x onerror=alert(1)>");
  mprof_switch(img);
  uint64_t script = mprof_named_task("</script><script>alert(2)</script>");
  mprof_switch(client);
  mprof_try_read(img);
  mprof_switch(script);
  mprof_counter_increase(c, 5);
  mprof_resolve(script);
  mprof_switch(img);
  mprof_read(script);
  mprof_fail(img, "<b>boom</b>");
  mprof_switch(client);
  mprof_read(img);
  mprof_resolve(client);
  mprof_suspend();
}

/* Wait us µs on the CPU: a sleep would give the CPU away, and on a loaded
 * machine come back milliseconds late. */
static void spin_us(long us) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 <
         us);
}

/* Requests of 10 events each, `width` in flight, a pause of pause_us
 * before the 10th. */
enum { MAX_IN_FLIGHT = 64 };
static void load(long events, long width, long pause_us) {
  mprof_counter_t queue = mprof_counter_make("in flight");
  uint64_t loop = mprof_named_task("loop");
  uint64_t flight[MAX_IN_FLIGHT] = {0};
  for (long i = 0; i * 10 < events; i++) {
    uint64_t *slot = &flight[i % width];
    if (i == 10) spin_us(pause_us);
    mprof_switch(loop);
    if (*slot) {
      mprof_resolve(*slot);
      mprof_counter_increase(queue, -1);
    }
    *slot = mprof_create(MPROF_TASK);
    mprof_label(*slot, i % 1000 ? "request" : "slow request");
    mprof_counter_increase(queue, 1);
    uint64_t io = mprof_create(MPROF_WAIT);
    mprof_switch(*slot);
    mprof_try_read(io);
    mprof_switch(loop);
    mprof_resolve(io);
    if (i % 64 == 0) mprof_suspend();
  }
}

/* A task that starts before the first half of the requests and ends after
 * it, and one that starts after the second half (for a trace read in
 * parts: the first is in its beginning, the second only at its end). */
static void phases(long events) {
  uint64_t early = mprof_named_task("early phase");
  mprof_switch(early);
  load(events / 2, 8, 0);
  mprof_switch(early);
  mprof_resolve(early);
  load(events / 2, 8, 0);
  uint64_t late = mprof_named_task("late phase");
  load(events / 10, 8, 0);
  mprof_switch(late);
  mprof_resolve(late);
}

/* Every arrow kind, then an idle hiatus: "before idle" (created, try_read
 * of "io", signalled, reads "io" resolved and "bad io" failed), "old"
 * becomes "new", "before idle" resolves and the loop is idle at once for
 * 30 ms (mprof_suspend: an idle band), then "after idle" is made and runs.
 * Counters "queue#1" (up to 10) and "queue#2" (up to 30) are named alike up to
 * the '#': one scale. */
static void idle(void) {
  mprof_counter_t q1 = mprof_counter_make("queue#1");
  mprof_counter_t q2 = mprof_counter_make("queue#2");
  uint64_t loop = mprof_named_task("loop");
  mprof_switch(loop);
  uint64_t before = mprof_named_task("before idle");
  spin_us(1000); /* each arrow a few pixels from the next in the fit view */
  uint64_t io = mprof_named_wait("io"), bad = mprof_named_wait("bad io");
  mprof_counter_increase(q1, 10);
  mprof_counter_increase(q2, 30);
  mprof_switch(before);
  spin_us(1000);
  mprof_try_read(io);
  spin_us(3000);
  mprof_switch(loop);
  mprof_resolve(io);
  mprof_fail(bad, "io error");
  spin_us(1000);
  mprof_signal(before);
  spin_us(1000);
  mprof_switch(before);
  mprof_read(io);
  spin_us(1000);
  mprof_read(bad);
  spin_us(3000);
  mprof_switch(loop);
  mprof_counter_increase(q2, -20);
  uint64_t old = mprof_named_task("old");
  spin_us(1000);
  uint64_t new_thread = mprof_named_task("new");
  spin_us(1000);
  mprof_becomes(old, new_thread);
  spin_us(2000);
  mprof_switch(before);
  mprof_resolve(before);
  mprof_suspend();
  spin_us(30000);
  mprof_switch(loop);
  uint64_t after = mprof_named_task("after idle");
  mprof_switch(after);
  mprof_counter_increase(q1, -5);
  spin_us(5000);
  mprof_resolve(after);
  mprof_switch(loop);
  mprof_resolve(loop);
}

/* A server as Node runs one: "main" starts "server" (pending to the end),
 * then the loop sleeps 2 s (an idle band); then a burst of 200 requests
 * (load()). */
static void burst(void) {
  uint64_t main_task = mprof_named_task("main");
  mprof_switch(main_task);
  mprof_named_task("server");
  mprof_suspend();
  struct timespec asleep = {2, 0};
  nanosleep(&asleep, NULL);
  load(2000, 8, 0);
}

/* Tasks named "NAME N" of 10 events each, 8 in flight, about `events`
 * events in all, then a wait of 100 ms. */
typedef struct named_load_s {
  const char *name;
  long events;
} named_load_t;

static void *named_load(void *context) {
  const named_load_t *l = context;
  uint64_t flight[8] = {0};
  for (long i = 0; i * 10 < l->events; i++) {
    uint64_t *slot = &flight[i % 8];
    if (*slot) mprof_resolve(*slot);
    char name[64];
    snprintf(name, sizeof name, "%s %ld", l->name, i);
    *slot = mprof_named_task(name);
    uint64_t io = mprof_create(MPROF_WAIT);
    mprof_switch(*slot);
    mprof_try_read(io);
    mprof_suspend();
    mprof_resolve(io);
  }
  for (int i = 0; i < 8; i++)
    if (flight[i]) mprof_resolve(flight[i]);
  struct timespec gap = {0, 100000000};
  nanosleep(&gap, NULL);
  return NULL;
}

/* "first" tasks on this OS thread, then "second" ones on another. */
static int streams(long events) {
  named_load_t first = {"first", events}, second = {"second", events};
  named_load(&first);
  pthread_t other;
  if (pthread_create(&other, NULL, named_load, &second)) return 1;
  return pthread_join(other, NULL);
}

int main(int argc, char **argv) {
  int is_load = argc >= 4 && argc <= 6 && strcmp(argv[1], "load") == 0;
  int is_phases = argc == 4 && strcmp(argv[1], "phases") == 0;
  int is_idle = argc == 3 && strcmp(argv[1], "idle") == 0;
  int is_burst = argc == 3 && strcmp(argv[1], "burst") == 0;
  int is_streams = argc == 4 && strcmp(argv[1], "streams") == 0;
  long width = argc >= 5 ? atol(argv[4]) : 8;
  long pause_us = argc == 6 ? atol(argv[5]) : 0;
  if ((!is_load && !is_phases && !is_idle && !is_burst && !is_streams &&
       !(argc == 3 && strcmp(argv[1], "xss") == 0)) ||
      width < 1 || width > MAX_IN_FLIGHT) {
    fprintf(stderr, "usage: web_trace xss OUT | web_trace load OUT EVENTS "
                    "[IN_FLIGHT <= 64 [PAUSE_US]] | web_trace phases OUT "
                    "EVENTS | web_trace idle OUT | web_trace burst OUT | "
                    "web_trace streams OUT EVENTS\n");
    return 2;
  }
  long events = is_load || is_phases || is_streams ? atol(argv[3]) : 100;
  mprof_unix_options_t opt = {.path = argv[2],
                              .size = (size_t)events * 48 + (8u << 20),
                              .ring_mode = MPROF_RING_DISCARD};
  if (mprof_unix_start(&opt)) return 1;
  if (is_load)
    load(events, width, pause_us);
  else if (is_phases)
    phases(events);
  else if (is_idle)
    idle();
  else if (is_burst)
    burst();
  else if (!is_streams)
    xss();
  else if (streams(events))
    return 1;
  mprof_unix_stop();
  return 0;
}
