/* state.c -- what the viewer shows of a document: the time range and its
 * arithmetic (fit, zoom around a point, pan), the selection and what it
 * touched, search matches and the counters graphed; the scene's viewport
 * made from it. */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

int mprof__view_state_init(mprof_view_state_t *state,
                           const mprof_view_doc_t *doc, int width, int height) {
  const mprof_model_view_t *v = mprof_model_view(doc->model);
  memset(state, 0, sizeof *state);
  state->selected = MPROF_NO_THREAD;
  state->rows = v->row_count;
  state->counters_shown = malloc(v->counter_count + 1);
  if (!state->counters_shown || mprof_scene_new(&state->scene)) {
    mprof__view_state_free(state);
    return MPROF_ENOMEM;
  }
  memset(state->counters_shown, 1, v->counter_count + 1);
  mprof__view_state_fit(state, doc, width, height);
  return 0;
}

void mprof__view_state_free(mprof_view_state_t *state) {
  free(state->highlighted);
  free(state->matches);
  free(state->counters_shown);
  mprof_scene_free(state->scene);
  memset(state, 0, sizeof *state);
}

int mprof__view_state_select(mprof_view_state_t *state,
                             const mprof_view_doc_t *doc, uint32_t t) {
  free(state->highlighted);
  state->highlighted = NULL;
  state->selected = t;
  if (t == MPROF_NO_THREAD) return 0;
  state->highlighted = calloc(mprof_model_view(doc->model)->thread_count, 1);
  if (!state->highlighted) return MPROF_ENOMEM;
  mprof_scene_touched(doc->model, t, state->highlighted);
  return 0;
}

/* Whether text holds needle, ASCII letters in any case (labels are bytes,
 * not always UTF-8). */
static int contains(const char *text, const char *needle, size_t length) {
  for (; *text; text++)
    if (!g_ascii_strncasecmp(text, needle, length)) return 1;
  return 0;
}

static int thread_matches(const mprof_model_t *model, uint32_t t,
                          const char *text, size_t length) {
  const mprof_model_view_t *v = mprof_model_view(model);
  const mprof_thread_t *th = &v->threads[t];
  char name[256];
  if (contains(mprof_model_thread_name(model, t, name, sizeof name), text, length))
    return 1;
  for (uint32_t i = 0; i < th->label_count; i++)
    if (contains(v->strings + v->labels[th->first_label + i].text, text, length))
      return 1;
  return 0;
}

long mprof__view_state_search(mprof_view_state_t *state,
                              const mprof_view_doc_t *doc, const char *text) {
  free(state->matches);
  state->matches = NULL;
  if (!text || !*text) return 0;
  const mprof_model_view_t *v = mprof_model_view(doc->model);
  state->matches = calloc(v->thread_count, 1);
  if (!state->matches) return MPROF_ENOMEM;
  long count = 0;
  size_t length = strlen(text);
  for (uint32_t t = 1; t < v->thread_count; t++)
    count += state->matches[t] = (uint8_t)thread_matches(doc->model, t, text, length);
  return count;
}

mprof_viewport_t mprof__view_viewport(const mprof_view_state_t *state) {
  mprof_viewport_t vp = {state->t0_ns, state->t1_ns, (uint32_t)state->width,
                         (uint32_t)state->height, (uint32_t)state->scroll_y,
                         MPROF_VIEW_ROW_PX};
  return vp;
}

void mprof__view_state_fit(mprof_view_state_t *state,
                           const mprof_view_doc_t *doc, int width, int height) {
  int64_t duration = mprof_model_view(doc->model)->duration_ns;
  state->t0_ns = 0;
  state->t1_ns = duration > 0 ? duration : 1;
  state->scroll_y = 0;
  state->width = width;
  state->height = height;
}

/* The narrowest range shown: 10 ns over the whole width. */
#define MIN_SPAN_NS 10

static double ns_per_pixel(const mprof_view_state_t *state) {
  return (double)(state->t1_ns - state->t0_ns) /
         (state->width > 0 ? state->width : 1);
}

void mprof__view_state_zoom(mprof_view_state_t *state, double factor,
                            double x) {
  double scale = ns_per_pixel(state);
  double at = (double)state->t0_ns + scale * x;
  double new_scale = scale * factor;
  if (new_scale * state->width < MIN_SPAN_NS)
    new_scale = (double)MIN_SPAN_NS / (state->width > 0 ? state->width : 1);
  state->t0_ns = (int64_t)(at - new_scale * x);
  state->t1_ns = state->t0_ns + (int64_t)(new_scale * state->width);
}

void mprof__view_state_pan(mprof_view_state_t *state, double dx, double dy) {
  int64_t shift = (int64_t)(dx * ns_per_pixel(state));
  state->t0_ns -= shift;
  state->t1_ns -= shift;
  double last = (double)state->rows * MPROF_VIEW_ROW_PX - MPROF_VIEW_ROW_PX;
  state->scroll_y -= dy;
  if (state->scroll_y > last) state->scroll_y = last;
  if (state->scroll_y < 0) state->scroll_y = 0;
}
