/* in_memory.h -- start recording into a malloc'd buffer, as a program does
 * that writes no trace file (for the reliability tests). */
#ifndef MPROF_TEST_IN_MEMORY_H
#define MPROF_TEST_IN_MEMORY_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mprof.h"

static uint64_t in_memory_clock_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A zeroed buffer of size bytes, recording in overwrite mode; NULL if the
 * allocation or the start fails. */
static void *in_memory_start(size_t size) {
  void *buffer = aligned_alloc(4096, size);
  if (!buffer) return NULL;
  memset(buffer, 0, size);
  mprof_config_t config;
  memset(&config, 0, sizeof config);
  config.buffer = buffer;
  config.size = size;
  config.clock = in_memory_clock_ns;
  config.clock_freq_hz = 1000000000u;
  config.name = "in_memory";
  if (mprof_start(&config) == 0) return buffer;
  free(buffer);
  return NULL;
}

#endif
