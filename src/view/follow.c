/* follow.c -- `mprof view --follow`: re-read each trace on a timer while a
 * program writes it.  mprof_trace_open() copies a live trace as a
 * consistent snapshot; the new document is built aside and swapped in
 * whole, so no frame mixes two reads. */
#include "window.h"

/* Where the traces end on the shared time axis. */
static double traces_end(const mprof_view_window_t *w) {
  double end = 0;
  for (int i = 0; i < w->pane_count; i++) {
    double e = mprof_timeline_offset(w->timeline, i) +
               (double)mprof_model_view(w->panes[i].doc->model)->duration_ns;
    if (e > end) end = e;
  }
  return end;
}

/* Show the traces' new end: all of them if all was shown (the rows
 * scrolled as they were), else the same span ending there. */
static void keep_newest(mprof_view_window_t *w, double old_end) {
  mprof_timeline_t *tl = w->timeline;
  double t0 = mprof_timeline_t0(tl), t1 = mprof_timeline_t1(tl);
  if (t0 <= 0 && t1 >= old_end) {
    double scroll = mprof_timeline_scroll(tl, 0);
    mprof_timeline_fit(tl);
    mprof_timeline_scroll_to(tl, scroll);
  } else {
    double end = traces_end(w);
    mprof_timeline_set_range(tl, end - (t1 - t0), end);
  }
}

/* Replace pane p's document by a fresh read of its file; the view state
 * moves to it (timeline.h: range, scroll, selection, search, counters)
 * and the old one is freed only then, so no frame mixes them. */
static void reload_pane(mprof_view_window_t *w, int p) {
  mprof_view_pane_t *pane = &w->panes[p];
  mprof_view_doc_t *doc;
  if (mprof__view_doc_load(pane->doc->path, NULL, NULL, NULL, NULL, &doc))
    return;
  if (mprof_timeline_replace(w->timeline, p, doc->model)) {
    mprof__view_doc_free(doc);
    return;
  }
  mprof__view_doc_free(pane->doc);
  pane->doc = doc;
  int selected = mprof_timeline_selected(w->timeline, p);
  if (selected >= 0) mprof__view_window_details(w, doc, (uint32_t)selected);
}

static gboolean on_tick(gpointer data) {
  mprof_view_window_t *w = data;
  double old_end = traces_end(w);
  for (int i = 0; i < w->pane_count; i++) reload_pane(w, i);
  mprof__view_findings_fill(w);
  if (w->follow) keep_newest(w, old_end);
  for (int i = 0; i < w->pane_count; i++)
    gtk_widget_queue_draw(w->panes[i].area);
  return G_SOURCE_CONTINUE;
}

void mprof__view_follow_start(mprof_view_window_t *w) {
  g_timeout_add(w->options->follow_ms, on_tick, w);
}
