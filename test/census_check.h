/* census_check.h -- a check shared by the cmocka tests that decode
 * packets: mprof_trace_packet_census() counts, kind by kind, exactly the
 * events the packet's decoding delivered (events[0 .. n)), whatever the
 * stack held before (a field the census failed to clear would read it). */
#ifndef MPROF_TEST_CENSUS_CHECK_H
#define MPROF_TEST_CENSUS_CHECK_H

#include <string.h>

#include "mprof/read.h"

/* Leave the stack below the caller's frame all ones: the census, called
 * next from the same frame, runs where this did. */
static __attribute__((noinline)) void census_check_dirty_stack(void) {
  volatile unsigned char junk[16384];
  memset((unsigned char *)junk, 0xff, sizeof junk);
}

static inline void check_census(const mprof_trace_t *trace, size_t packet,
                                const mprof_event_t *events, size_t n) {
  uint64_t want[MPROF_EVENT_KIND_COUNT] = {0};
  uint64_t got[MPROF_EVENT_KIND_COUNT] = {0};
  for (size_t k = 0; k < n; k++) want[events[k].kind]++;
  census_check_dirty_stack();
  assert_int_equal(mprof_trace_packet_census(trace, packet, got), n);
  assert_memory_equal(got, want, sizeof want);
}

#endif
