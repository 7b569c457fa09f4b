/* in_memory.h -- start recording into a malloc'd buffer, as a program does
 * that writes no trace file (for the reliability tests and the tests that
 * read back a trace they record). */
#ifndef MPROF_TEST_IN_MEMORY_H
#define MPROF_TEST_IN_MEMORY_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mprof.h"

static inline uint64_t in_memory_clock_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A zeroed buffer of settings.size bytes, recording as settings say (buffer
 * and, if unset, clock and name filled in here); NULL if the allocation or
 * the start fails. */
static inline void *in_memory_start_with(mprof_config_t settings) {
  void *buffer = aligned_alloc(4096, settings.size);
  if (!buffer) return NULL;
  memset(buffer, 0, settings.size);
  settings.buffer = buffer;
  if (!settings.clock) {
    settings.clock = in_memory_clock_ns;
    settings.clock_freq_hz = 1000000000u;
  }
  if (!settings.name) settings.name = "in_memory";
  if (mprof_start(&settings) == 0) return buffer;
  free(buffer);
  return NULL;
}

/* A zeroed buffer of size bytes, recording in overwrite mode; NULL if the
 * allocation or the start fails. */
static inline void *in_memory_start(size_t size) {
  mprof_config_t settings;
  memset(&settings, 0, sizeof settings);
  settings.size = size;
  return in_memory_start_with(settings);
}

#endif
