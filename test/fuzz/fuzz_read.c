/* fuzz_read.c -- libFuzzer target over the reader: any bytes, opened as a
 * trace (mprof or legacy), every event of every packet decoded.  Nothing
 * may crash, hang or read out of bounds (ASan+UBSan).
 * `make check` runs it briefly from the seed corpus (test/fuzz/corpus);
 * `make fuzz` runs it at length. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mprof/read.h"

static void ignore_diag(void *context, const char *message) {
  (void)context;
  (void)message;
}

static int touch_event(void *context, const mprof_event_t *ev) {
  uint64_t *sum = context;
  *sum += ev->time_ticks ^ ev->a ^ ev->b ^ (uint64_t)ev->value;
  for (size_t i = 0; i < ev->text_length; i++) *sum += (uint8_t)ev->text[i];
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The reader wants 8-byte alignment for its atomic loads, as a mapping
   * gives it; malloc's is 16. */
  void *copy = malloc(size + 1);
  if (!copy) return 0;
  memcpy(copy, data, size);
  mprof_trace_t *trace;
  if (mprof_trace_open_memory(copy, size, "fuzz", ignore_diag, NULL, &trace) == 0) {
    uint64_t sum = 0;
    for (size_t i = 0; i < mprof_trace_packet_count(trace); i++)
      mprof_trace_packet_events(trace, i, touch_event, &sum);
    mprof_trace_close(trace);
  }
  free(copy);
  return 0;
}
