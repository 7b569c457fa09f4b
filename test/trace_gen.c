/* trace_gen.c -- record a known pattern into a trace file, for the tests
 * that read traces back with other tools (babeltrace2, mprof, install).
 *
 *   trace_gen OUT MODE SIZE ROUNDS THREADS [PACKET_SIZE]
 *
 * MODE is overwrite, discard, or sparse: discard mode recorded into
 * anonymous memory that only the pages written take up, then written to
 * OUT as a sparse file of SIZE bytes with only those pages, for traces
 * (over 4 GiB) bigger than the test's disk and memory budget.
 * PACKET_SIZE (bytes, a power of two) is chosen from SIZE when left out.  Each
 * OS thread runs ROUNDS rounds of a small async story of 15 events (create,
 * label, switch, try_read, signal, resolve, read, counters, becomes, fail,
 * suspend).  Prints "events N" (all events attempted) and "discarded N" on
 * stdout.
 */
#define _GNU_SOURCE /* mincore, MAP_NORESERVE */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mprof.h"
#include "mprof/unix.h"

static long rounds;
static mprof_counter_t bytes_counter;
static uint64_t discarded_total;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* One round: 15 events. */
static void one_round(long i) {
  uint64_t task = mprof_create(MPROF_TASK);
  mprof_label(task, i % 2 ? "odd \"request\"" : "even\trequest");
  mprof_switch(task);
  uint64_t wait = mprof_create(MPROF_WAIT);
  mprof_try_read(wait);
  mprof_signal(wait);
  mprof_resolve(wait);
  mprof_read(wait);
  mprof_counter_increase(bytes_counter, i);
  mprof_counter_value(bytes_counter, (int64_t)i << 33);
  uint64_t bind = mprof_create(MPROF_BIND);
  mprof_becomes(bind, wait);
  mprof_fail(task, "failed");
  mprof_should_resolve(task);
  mprof_suspend();
}

static void *run(void *arg) {
  (void)arg;
  for (long i = 0; i < rounds; i++) one_round(i);
  pthread_mutex_lock(&lock);
  discarded_total += mprof_discarded();
  pthread_mutex_unlock(&lock);
  mprof_thread_exit();
  return NULL;
}

static uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sparse mode: start recording into anonymous memory of options' size. */
static void *sparse_start(const mprof_unix_options_t *options) {
  void *buffer = mmap(NULL, options->size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (buffer == MAP_FAILED) return NULL;
  mprof_config_t config;
  memset(&config, 0, sizeof config);
  config.buffer = buffer;
  config.size = options->size;
  config.packet_size = options->packet_size;
  config.ring_mode = MPROF_RING_DISCARD;
  config.clock = monotonic_ns;
  config.clock_freq_hz = 1000000000u;
  config.name = "trace_gen";
  if (mprof_start(&config) == 0) return buffer;
  munmap(buffer, options->size);
  return NULL;
}

/* Write the pages of buffer that recording touched (mincore() says which)
 * to path, a file of size bytes whose other pages are holes. */
static int sparse_write(const char *path, const uint8_t *buffer, size_t size) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (size + page - 1) / page;
  unsigned char *resident = malloc(pages);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), err = -1;
  if (resident && fd >= 0 && mincore((void *)buffer, size, resident) == 0 &&
      ftruncate(fd, (off_t)size) == 0) {
    err = 0;
    for (size_t i = 0; i < pages && !err; i++) {
      size_t length = i + 1 < pages ? page : size - i * page;
      if ((resident[i] & 1) && pwrite(fd, buffer + i * page, length,
                                      (off_t)(i * page)) != (ssize_t)length)
        err = -1;
    }
  }
  if (fd >= 0 && close(fd) < 0) err = -1;
  free(resident);
  return err;
}

int main(int argc, char **argv) {
  if (argc != 6 && argc != 7) {
    fprintf(stderr,
            "usage: trace_gen OUT MODE SIZE ROUNDS THREADS [PACKET_SIZE]\n");
    return 2;
  }
  mprof_unix_options_t options;
  memset(&options, 0, sizeof options);
  options.path = argv[1];
  int sparse = strcmp(argv[2], "sparse") == 0;
  options.ring_mode = strcmp(argv[2], "overwrite") == 0 ? MPROF_RING_OVERWRITE
                                                        : MPROF_RING_DISCARD;
  options.size = strtoul(argv[3], NULL, 0);
  options.packet_size = argc == 7 ? (uint32_t)strtoul(argv[6], NULL, 0) : 0;
  rounds = strtol(argv[4], NULL, 0);
  int threads = atoi(argv[5]);
  void *buffer = NULL;
  int err = sparse ? ((buffer = sparse_start(&options)) ? 0 : MPROF_EINVAL)
                   : mprof_unix_start(&options);
  if (err) {
    fprintf(stderr, "trace_gen: %s: %s\n", argv[1], mprof_strerror(err));
    return 1;
  }
  bytes_counter = mprof_counter_make("bytes");
  pthread_t ids[64];
  for (int t = 0; t < threads && t < 64; t++)
    pthread_create(&ids[t], NULL, run, NULL);
  for (int t = 0; t < threads && t < 64; t++) pthread_join(ids[t], NULL);
  if (!sparse) {
    mprof_unix_stop();
  } else {
    mprof_stop();
    if (sparse_write(argv[1], buffer, options.size)) {
      perror(argv[1]);
      return 1;
    }
  }
  printf("events %ld\ndiscarded %llu\n", 15 * rounds * threads + 1,
         (unsigned long long)discarded_total);
  return 0;
}
