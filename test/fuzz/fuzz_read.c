/* fuzz_read.c -- libFuzzer target over the reader and the model: any
 * bytes, opened as a trace (mprof or legacy), every event of every packet
 * decoded, then the model built, laid out, queried and analysed.  Nothing
 * may crash, hang or read out of bounds (ASan+UBSan), and each packet's
 * census must count what its decoding delivers.
 * `make check` runs it briefly from the seed corpus (test/fuzz/corpus);
 * `make fuzz` runs it at length. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mprof/model.h"

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

/* Abort unless the census of packet i counts, kind by kind, the events
 * that decoding it delivers. */
static void check_census(const mprof_trace_t *trace, size_t i) {
  size_t most = mprof_trace_packet_max_events(trace, i) + 1;
  mprof_event_t *events = malloc(most * sizeof *events);
  if (!events) return;
  size_t n = mprof_trace_packet_decode(trace, i, events, most, NULL);
  uint64_t want[MPROF_EVENT_KIND_COUNT] = {0},
           got[MPROF_EVENT_KIND_COUNT] = {0};
  for (size_t k = 0; k < n; k++) want[events[k].kind]++;
  if (mprof_trace_packet_census(trace, i, got) != n ||
      memcmp(got, want, sizeof got) != 0)
    abort();
  free(events);
}

/* Build the model and ask it everything a view or the report would. */
static void model_everything(const mprof_trace_t *trace) {
  mprof_model_t *m;
  if (mprof_model_load(trace, &m)) return;
  const mprof_model_view_t *v = mprof_model_view(m);
  mprof_lod_item_t items[64];
  int64_t t1 = v->duration_ns + 1, step = t1 / 100 + 1;
  for (uint32_t row = 0; row < v->row_count && row < 64; row++) {
    mprof_model_row_threads(m, row, 0, t1, step, items, 64);
    mprof_model_row_running(m, row, 0, t1, step, items, 64);
  }
  mprof_model_arrows(m, 0, t1, step, items, 64);
  int64_t min[16], max[16];
  for (uint32_t c = 0; c < v->counter_count; c++)
    mprof_model_counter_range(m, c, 0, t1, 16, min, max);
  char name[64];
  for (uint32_t t = 0; t < v->thread_count && t < 64; t++)
    mprof_model_thread_name(m, t, name, sizeof name);
  mprof_analysis_t a;
  if (mprof_model_analyse(m, &a) == 0) mprof_analysis_free(&a);
  mprof_model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The reader wants 8-byte alignment for its atomic loads, as a mapping
   * gives it; malloc's is 16. */
  void *copy = malloc(size + 1);
  if (!copy) return 0;
  memcpy(copy, data, size);
  mprof_trace_t *trace;
  if (mprof_trace_open_memory(copy, size, "fuzz", ignore_diag, NULL, &trace) ==
      0) {
    uint64_t sum = 0;
    for (size_t i = 0; i < mprof_trace_packet_count(trace); i++) {
      mprof_trace_packet_events(trace, i, touch_event, &sum);
      check_census(trace, i);
    }
    model_everything(trace);
    mprof_trace_close(trace);
  }
  free(copy);
  return 0;
}
