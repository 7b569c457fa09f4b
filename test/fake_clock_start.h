/* fake_clock_start.h -- a start shared by the cmocka tests of the recorder's
 * internals (test_net_label.c, test_record_group.c): recording into a
 * caller's buffer with a clock that advances 10 ticks a reading, from
 * 1000, running thread 42, so that times and the running thread are known.
 */
#ifndef MPROF_TEST_FAKE_CLOCK_START_H
#define MPROF_TEST_FAKE_CLOCK_START_H

#include <stdint.h>
#include <string.h>

#include "mprof.h"

static uint64_t clock_ticks;
static uint64_t fake_clock(void) { return clock_ticks += 10; }

/* Starts recording in buffer (packet_size 0: the default), running thread
 * 42; the start's result, 0 when it started. */
static inline int fake_clock_start(void *buffer, size_t size,
                                   uint32_t packet_size, mprof_ring_mode_t mode,
                                   const char *name) {
  mprof_config_t config;
  memset(&config, 0, sizeof config);
  config.buffer = buffer;
  config.size = size;
  config.packet_size = packet_size;
  config.ring_mode = mode;
  config.clock = fake_clock;
  config.clock_freq_hz = 1000000000u;
  config.name = name;
  clock_ticks = 1000;
  int err = mprof_start(&config);
  if (!err) mprof_switch(42);
  return err;
}

#endif /* MPROF_TEST_FAKE_CLOCK_START_H */
