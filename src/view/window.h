/* window.h -- the viewer's GTK window, as its event handlers and the test
 * script (script.c) act on it: both go through the same calls, so a script
 * exercises what a person's input does. */
#ifndef MPROF_VIEW_WINDOW_H
#define MPROF_VIEW_WINDOW_H

#include <gtk/gtk.h>

#include "big.h"
#include "view.h"

/* One timeline: a document, shown as its pane of the window's view state. */
typedef struct mprof_view_pane_s {
  GtkWidget *area; /* the GtkDrawingArea */
  mprof_view_doc_t *doc;
  double drag_x, drag_y; /* pointer at the last drag step */
  int dragging;
} mprof_view_pane_t;

/* A window: one pane, or two for --compare, on one time axis; or, for a
 * trace too big to model, one pane showing its view (big.h: no document,
 * no view state, no findings or search). */
typedef struct mprof_view_window_s {
  GtkWidget *window, *search, *details, *details_box, *help, *counters;
  GtkWidget *findings; /* the findings panel's GtkListBox */
  mprof_view_pane_t panes[MPROF_TIMELINE_PANES];
  int pane_count;
  mprof_timeline_t *timeline; /* what is shown, and how (timeline.h) */
  int follow;                 /* keep the newest time in view */
  guint script_source;        /* the script's timer, or 0 */
  const mprof_view_options_t *options;
  mprof_view_big_t *big; /* a trace too big to model's view, or NULL */
  GtkWidget *status;     /* a big trace's warning line (hidden: none) */
} mprof_view_window_t;

/* Zoom pane p by factor around its pixel x (all panes follow). */
void mprof__view_window_zoom(mprof_view_window_t *w, int p, double factor,
                             double x);
/* Pan pane p by dx, dy pixels (all panes follow in time). */
void mprof__view_window_pan(mprof_view_window_t *w, int p, double dx,
                            double dy);
/* Show the whole trace(s). */
void mprof__view_window_fit(mprof_view_window_t *w);
/* Show the time range [t0, t1) in every pane. */
void mprof__view_window_range(mprof_view_window_t *w, int64_t t0, int64_t t1);
/* Search threads for text (highlighted as they match). */
void mprof__view_window_search(mprof_view_window_t *w, const char *text);
/* Double-click at pixel (x, y) of pane p: select what is there and show
 * its details, or clear the selection. */
void mprof__view_window_select_at(mprof_view_window_t *w, int p, double x,
                                  double y);
/* A key press, as GDK names its keyval; returns TRUE if it was used. */
gboolean mprof__view_window_key(mprof_view_window_t *w, guint keyval);

/* Show thread t of doc in the details panel; MPROF_NO_THREAD hides it. */
void mprof__view_window_details(mprof_view_window_t *w,
                                const mprof_view_doc_t *doc, uint32_t t);

/* The findings panel (findings.c): its frame, filled; filled again with
 * the documents' findings after a re-read. */
GtkWidget *mprof__view_findings_new(mprof_view_window_t *w);
void mprof__view_findings_fill(mprof_view_window_t *w);
/* Show finding i of pane p's analysis (a click on its row): its range,
 * its thread at fault selected with its details, its evidence
 * highlighted. */
void mprof__view_window_show_finding(mprof_view_window_t *w, int p, size_t i);
/* Finding i of doc as the panel shows it, "severity kind: summary",
 * escaped; g_free() it. */
char *mprof__view_finding_text(const mprof_view_doc_t *doc, size_t i);

/* Re-read w's traces every options->follow_ms (follow.c); the timer stops
 * with the window (its user data is w). */
void mprof__view_follow_start(mprof_view_window_t *w);

/* A strip naming the colours of what w's traces hold (legend.c,
 * mprof__view_legend_paint()). */
GtkWidget *mprof__view_legend_new(mprof_view_window_t *w);

/* Run the actions of the script file path on w (script.c). */
void mprof__view_script_start(mprof_view_window_t *w, const char *path);

/* The details of thread t of doc as plain text, for the side panel
 * (details.c); g_free() it. */
char *mprof__view_details(const mprof_view_doc_t *doc, uint32_t t);

#endif /* MPROF_VIEW_WINDOW_H */
