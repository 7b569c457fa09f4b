/* seq_writer.c -- a traced program that writes numbered events at full
 * speed, for the reliability tests (crash survival, live reads, snapshots
 * of a process's memory).
 *
 *   seq_writer file TRACE SIDE THREADS SIZE   trace into an mmapped file
 *   seq_writer memory SIDE THREADS SIZE       trace into a malloc'd buffer
 *
 * Each of THREADS OS threads owns counter t+1 and records its values 0, 1,
 * 2, ... with mprof_counter_value(), a label and a create now and then.
 * After each value is recorded (returned from the call) the thread stores it
 * in SIDE, a shared mapped file of u64: [0] = 1 once tracing started,
 * [1 + t] = 1 + the last value thread t completed (0: none yet).  SIDE
 * outlives a SIGKILL, so a checker knows what the trace must hold.  The
 * program runs until killed.  The ring is in overwrite mode.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mprof.h"
#include "mprof/unix.h"
#include "in_memory.h"

#define MAX_THREADS 16

static uint64_t *side;

static void *run(void *arg) {
  uintptr_t t = (uintptr_t)arg;
  mprof_counter_t counter = (mprof_counter_t)(t + 1);
  char label[32];
  for (uint64_t seq = 0;; seq++) {
    mprof_counter_value(counter, (int64_t)seq);
    __atomic_store_n(&side[1 + t], seq + 1, __ATOMIC_RELEASE);
    if (seq % 64 == 0) {
      uint64_t task = mprof_create(MPROF_TASK);
      snprintf(label, sizeof label, "t%u #%llu", (unsigned)t,
               (unsigned long long)seq);
      mprof_label(task, label);
    }
  }
  return NULL;
}

static uint64_t *map_side(const char *path, int threads) {
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  size_t size = 8 * (size_t)(1 + threads);
  if (fd < 0 || ftruncate(fd, (off_t)size) < 0) return NULL;
  void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  return m == MAP_FAILED ? NULL : m;
}

int main(int argc, char **argv) {
  int file = argc == 6 && !strcmp(argv[1], "file");
  if (!file && !(argc == 5 && !strcmp(argv[1], "memory"))) {
    fprintf(stderr, "usage: seq_writer file TRACE SIDE THREADS SIZE\n"
                    "       seq_writer memory SIDE THREADS SIZE\n");
    return 2;
  }
  char **args = argv + 2 + file;
  int threads = atoi(args[1]);
  size_t size = strtoul(args[2], NULL, 0);
  if (threads < 1 || threads > MAX_THREADS) return 2;
  if (!(side = map_side(args[0], threads))) return perror(args[0]), 1;
  mprof_unix_options_t options;
  memset(&options, 0, sizeof options);
  options.path = argv[2];
  options.size = size;
  int err = file                    ? mprof_unix_start(&options)
            : in_memory_start(size) ? 0
                                    : MPROF_ENOMEM;
  if (err) {
    fprintf(stderr, "seq_writer: %s\n", mprof_strerror(err));
    return 1;
  }
  for (int t = 0; t < threads; t++) mprof_counter_make("seq");
  __atomic_store_n(&side[0], 1, __ATOMIC_RELEASE);
  pthread_t id;
  for (int t = 1; t < threads; t++)
    pthread_create(&id, NULL, run, (void *)(uintptr_t)t);
  run((void *)0);
  return 0;
}
