/* census_check.h -- a check shared by the cmocka tests that decode
 * packets: mprof_trace_packet_census() counts, kind by kind, exactly the
 * events the packet's decoding delivered (events[0 .. n)). */
#ifndef MPROF_TEST_CENSUS_CHECK_H
#define MPROF_TEST_CENSUS_CHECK_H

#include "mprof/read.h"

static inline void check_census(const mprof_trace_t *trace, size_t packet,
                                const mprof_event_t *events, size_t n) {
  uint64_t want[MPROF_EVENT_KIND_COUNT] = {0};
  uint64_t got[MPROF_EVENT_KIND_COUNT] = {0};
  for (size_t k = 0; k < n; k++) want[events[k].kind]++;
  assert_int_equal(mprof_trace_packet_census(trace, packet, got), n);
  assert_memory_equal(got, want, sizeof want);
}

#endif
