/* follow.c -- `mprof view --follow`: re-read each trace on a timer while a
 * program writes it.  mprof_trace_open() copies a live trace as a
 * consistent snapshot; the new document and its state are built aside and
 * swapped in whole, so no frame mixes two reads. */
#include <string.h>

#include "window.h"

/* Show the trace's new end: all of it if all was shown, else the same
 * span ending there. */
static void keep_newest(mprof_view_state_t *state, int64_t end) {
  int64_t span = state->t0_ns <= 0 ? end : state->t1_ns - state->t0_ns;
  state->t1_ns = end > 0 ? end : 1;
  state->t0_ns = state->t1_ns - (span > 0 ? span : 1);
}

/* A state for doc showing what old showed: the same range (or, following,
 * the same span ending at the newest time), the same thread selected (by
 * id: indexes change), the same search and counters. */
static int carry_state(mprof_view_window_t *w, const mprof_view_doc_t *old,
                       mprof_view_state_t *from, const mprof_view_doc_t *doc,
                       mprof_view_state_t *to) {
  if (mprof__view_state_init(to, doc, from->width, from->height)) return -1;
  to->t0_ns = from->t0_ns;
  to->t1_ns = from->t1_ns;
  to->scroll_y = from->scroll_y;
  if (w->follow) keep_newest(to, mprof_model_view(doc->model)->duration_ns);
  size_t counters = mprof_model_view(old->model)->counter_count;
  if (counters > mprof_model_view(doc->model)->counter_count)
    counters = mprof_model_view(doc->model)->counter_count;
  memcpy(to->counters_shown, from->counters_shown, counters);
  uint32_t selected = from->selected;
  if (selected != MPROF_NO_THREAD)
    selected = mprof_model_find(
        doc->model, mprof_model_view(old->model)->threads[selected].id);
  if (mprof__view_state_select(to, doc, selected) ||
      mprof__view_state_search(to, doc, w->search_text) < 0) {
    mprof__view_state_free(to);
    return -1;
  }
  return 0;
}

/* Replace pane's document by a fresh read of its file; the old one is
 * freed only after the new one is complete, so no frame mixes them. */
static void reload_pane(mprof_view_window_t *w, mprof_view_pane_t *pane) {
  mprof_view_doc_t *doc;
  mprof_view_state_t state;
  if (mprof__view_doc_load(pane->doc->path, NULL, NULL, NULL, NULL, &doc)) return;
  if (carry_state(w, pane->doc, &pane->state, doc, &state)) {
    mprof__view_doc_free(doc);
    return;
  }
  mprof__view_state_free(&pane->state);
  mprof__view_doc_free(pane->doc);
  pane->state = state;
  pane->doc = doc;
  if (state.selected != MPROF_NO_THREAD) mprof__view_window_details(w, doc, state.selected);
}

static gboolean on_tick(gpointer data) {
  mprof_view_window_t *w = data;
  for (int i = 0; i < w->pane_count; i++) {
    reload_pane(w, &w->panes[i]);
    gtk_widget_queue_draw(w->panes[i].area);
  }
  return G_SOURCE_CONTINUE;
}

void mprof__view_follow_start(mprof_view_window_t *w) {
  g_timeout_add(w->options->follow_ms, on_tick, w);
}
