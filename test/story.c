/* story.c -- a traced program whose trace tells a known story, for the
 * report test: a lost wake-up, a stalled request, a wait chain and a
 * resolved request whose critical path runs through a read, and a counter
 * whose name is not valid UTF-8.
 *
 *   story OUT
 *
 * Two OS threads share the condition "ready": the producer notifies it
 * before the consumer starts waiting, so the consumer's wait never ends.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "mprof.h"
#include "mprof/unix.h"

static uint64_t ready, job;

static void pause_ms(long ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

static void *producer(void *arg) {
  (void)arg;
  uint64_t self = mprof_named_task("producer");
  mprof_switch(self);
  mprof_condition_notify(ready); /* nobody waits yet: lost */
  mprof_suspend();
  return NULL;
}

static void consumer(void) {
  uint64_t self = mprof_named_task("consumer");
  mprof_switch(self);
  mprof_condition_wait(ready, "wait for ready"); /* never ends */
  mprof_suspend();
}

/* Request "GET /" waits on a lookup, which waits on a disk read.  The loop
 * resolves the disk read 20 ms later; the lookup reads it and resolves;
 * the request reads the lookup and resolves: its critical path is
 * request <- lookup <- loop. */
static void request(void) {
  uint64_t loop = mprof_named_task("loop");
  mprof_switch(loop);
  uint64_t req = mprof_named_task("GET /");
  uint64_t lookup = mprof_named_wait("lookup");
  uint64_t disk = mprof_named_wait("disk read");
  mprof_switch(req);
  mprof_try_read(lookup);
  mprof_switch(lookup);
  mprof_try_read(disk);
  mprof_suspend();
  pause_ms(20);
  mprof_switch(loop);
  mprof_resolve(disk);
  mprof_switch(lookup);
  mprof_read(disk);
  mprof_resolve(lookup);
  mprof_switch(req);
  mprof_read(lookup);
  mprof_resolve(req);
  mprof_suspend();
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: story OUT\n");
    return 2;
  }
  if (mprof_unix_start_file(argv[1], 1 << 20)) return 1;
  /* a counter whose name is not UTF-8 and holds an escape sequence */
  mprof_counter_increase(mprof_counter_make("queue\xff\x1b[31m"), 3);
  ready = mprof_named_condition("ready");
  job = mprof_named_task("stuck job");
  mprof_should_resolve(job);
  pthread_t t;
  pthread_create(&t, NULL, producer, NULL);
  pthread_join(t, NULL);
  pause_ms(5);
  consumer();
  request();
  mprof_unix_stop();
  return 0;
}
