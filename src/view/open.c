/* open.c -- the view state (timeline.h) the window and --png start from:
 * the documents' models, whole, in panes of a given size; or, for --png
 * of a trace too big to model whole, a document of the packets a range
 * needs, chosen by the trace's index, or the whole trace's summary made
 * in one pass (docs/index.md).
 */
#include <stdlib.h>
#include <string.h>

#include "../scene/cells.h"
#include "pyramid.h"
#include "view.h"

mprof_timeline_t *mprof__view_timeline(mprof_view_doc_t *const *docs, int count,
                                       int width, int height) {
  mprof_timeline_t *tl = mprof_timeline_new();
  if (!tl || mprof_timeline_show(tl, docs[0]->model,
                                 count > 1 ? docs[1]->model : NULL)) {
    mprof_timeline_free(tl);
    return NULL;
  }
  for (int i = 0; i < count; i++) mprof_timeline_resize(tl, i, width, height);
  mprof_timeline_fit(tl);
  return tl;
}

/* --- A window of a big trace ---------------------------------------------- */

/* The clock value ns after start; a time past the clock's range (a fast
 * clock, a range given far past the trace) is the clock's end. */
static uint64_t ns_ticks(int64_t ns, uint64_t start, uint64_t freq) {
  double ticks = (double)(ns > 0 ? ns : 0) * (double)freq / 1e9;
  if (!(ticks < 0x1p64)) return UINT64_MAX;
  uint64_t after = (uint64_t)ticks;
  return after > UINT64_MAX - start ? UINT64_MAX : start + after;
}

/* The packets trace's part [t0_ns, t1_ns) needs, as its index says (a
 * tick more each side: ns and ticks round). */
static int window_packets(const mprof_index_t *index, int64_t t0_ns,
                          int64_t t1_ns, size_t **packets, size_t *count) {
  uint64_t start = mprof_index_first_ticks(index);
  uint64_t freq = mprof_index_clock_freq_hz(index);
  uint64_t from = ns_ticks(t0_ns, start, freq),
           to = ns_ticks(t1_ns, start, freq);
  return mprof_index_window(index, from > 0 ? from - 1 : 0,
                            to < UINT64_MAX ? to + 1 : to, packets, count);
}

int mprof__view_window_bytes(const mprof_index_t *index, int64_t t0_ns,
                             int64_t t1_ns, uint64_t *bytes) {
  size_t *packets, count;
  int err = window_packets(index, t0_ns, t1_ns, &packets, &count);
  if (err) return err;
  *bytes = mprof_model_bytes_of_content(
      mprof_index_content_bytes(index, packets, count));
  free(packets);
  return 0;
}

/* The model of trace's part [t0_ns, t1_ns), from the packets it needs. */
static int load_window(const mprof_trace_t *trace, const mprof_index_t *index,
                       int64_t t0_ns, int64_t t1_ns, mprof_view_range_t *w,
                       mprof_model_t **out) {
  size_t *packets, count;
  int err = window_packets(index, t0_ns, t1_ns, &packets, &count);
  if (err) return err;
  w->packets = count;
  w->packets_total = mprof_index_packet_count(index);
  w->events = mprof_index_events(index);
  err = mprof_model_load_packets(trace, packets, count,
                                 mprof_index_first_ticks(index), out);
  free(packets);
  return err;
}

int mprof__view_window_doc(const char *path, const mprof_trace_t *trace,
                           const mprof_index_t *index, int64_t t0_ns,
                           int64_t t1_ns, mprof_view_doc_t **out) {
  mprof_view_range_t w;
  mprof_model_t *model;
  int err = load_window(trace, index, t0_ns, t1_ns, &w, &model);
  return err ? err : mprof__view_doc_make(path, model, out);
}

/* The problems an open tells, held until it is known who tells them:
 * the open kept, or the whole load that follows. */
typedef struct held_s {
  char **messages;
  size_t count;
} held_t;

static void hold(void *context, const char *message) {
  held_t *h = context;
  size_t length = strlen(message) + 1;
  char *copy = malloc(length);
  char **messages = realloc(h->messages, (h->count + 1) * sizeof *messages);
  if (messages) h->messages = messages;
  if (!copy || !messages) {
    free(copy);
    return;
  }
  memcpy(copy, message, length);
  h->messages[h->count++] = copy;
}

/* Tell the held problems to diag (NULL: to nobody), and free them. */
static void tell_held(held_t *h, mprof_diag_fn diag, void *diag_context) {
  for (size_t i = 0; i < h->count; i++) {
    if (diag) diag(diag_context, h->messages[i]);
    free(h->messages[i]);
  }
  free(h->messages);
}

int mprof__view_open_too_big(const char *path, uint64_t budget_bytes,
                             mprof_diag_fn diag, void *diag_context,
                             uint64_t *bytes, mprof_trace_t **out) {
  *out = NULL;
  *bytes = 0;
  if (!strcmp(path, "-") || mprof_trace_is_merged(path)) return 0;
  held_t held = {NULL, 0};
  mprof_trace_t *trace;
  if (mprof_trace_open(path, hold, &held, &trace)) {
    tell_held(&held, NULL, NULL);
    return 0;
  }
  *bytes = mprof_model_bytes_estimate(trace, NULL, 0);
  int big = *bytes > budget_bytes && !mprof_trace_info(trace)->legacy;
  tell_held(&held, big ? diag : NULL, diag_context);
  if (big) {
    mprof_trace_set_diag(trace, diag, diag_context); /* held is gone */
    *out = trace;
  } else {
    mprof_trace_close(trace);
  }
  return big;
}

int mprof__view_range_doc(const char *path, int64_t t0_ns, int64_t t1_ns,
                          uint64_t budget_bytes, mprof_diag_fn diag,
                          void *diag_context, mprof_view_range_t *window,
                          mprof_view_doc_t **out) {
  *out = NULL;
  memset(window, 0, sizeof *window);
  mprof_trace_t *trace;
  if (!mprof__view_open_too_big(path, budget_bytes, diag, diag_context,
                                &window->model_bytes, &trace))
    return 0;
  mprof_index_t *index = NULL;
  mprof_model_t *model = NULL;
  int err = mprof_index_open(path, trace, 0, NULL, NULL, &index);
  if (!err) err = load_window(trace, index, t0_ns, t1_ns, window, &model);
  mprof_index_free(index);
  mprof_trace_close(trace);
  return err ? err : mprof__view_doc_make(path, model, out);
}

/* --- The whole of a big trace --------------------------------------------- */

void mprof__view_whole_range(const mprof_index_t *index, int64_t *t0_ns,
                             int64_t *t1_ns) {
  uint64_t first = mprof_index_first_ticks(index),
           last = mprof_index_last_ticks(index);
  double span = last > first ? (double)(last - first) * 1e9 /
                                   (double)mprof_index_clock_freq_hz(index)
                             : 0;
  /* a damaged clock's span is held where the model holds times */
  if (span > (double)(INT64_MAX / 4)) span = (double)(INT64_MAX / 4);
  double margin = span * MPROF_TIMELINE_FIT_MARGIN;
  *t0_ns = -(int64_t)margin;
  *t1_ns = (int64_t)(span + margin) + 1;
}

int mprof__view_whole_cells(const char *path, uint64_t budget_bytes, int width,
                            int height, mprof_diag_fn diag, void *diag_context,
                            mprof_progress_fn progress, void *progress_context,
                            uint64_t *model_bytes, mprof_cells_t **out) {
  *out = NULL;
  mprof_trace_t *trace;
  if (!mprof__view_open_too_big(path, budget_bytes, diag, diag_context,
                                model_bytes, &trace))
    return 0;
  mprof_index_t *index = NULL;
  int64_t t0, t1;
  int err = mprof_index_open(path, trace, 0, NULL, NULL, &index);
  if (!err) {
    mprof__view_whole_range(index, &t0, &t1);
    mprof_index_free(index); /* the pass needs its memory more */
    err = mprof_cells_new(t0, t1, mprof_scene_cells_columns((uint32_t)width),
                          mprof_scene_cells_rows((uint32_t)height), out);
  }
  if (!err) err = mprof_cells_stream(trace, *out, progress, progress_context);
  mprof_trace_close(trace);
  if (err) {
    mprof_cells_free(*out);
    *out = NULL;
  }
  return err;
}
