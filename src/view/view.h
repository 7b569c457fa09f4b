/* view.h -- the desktop viewer (`mprof view`): one trace's model drawn with
 * cairo, in a GTK 3 window or into a PNG file.
 *
 * Every picture comes from the scene (mprof/scene.h), the display list the
 * browser viewer draws too; this library only turns its primitives into
 * cairo calls (render.c) and adds the window around them (window.c).  It
 * lives apart from the core libraries so that they never need GTK.
 */
#ifndef MPROF_VIEW_H
#define MPROF_VIEW_H

#include <cairo.h>
#include <stdint.h>

#include "mprof/model.h"
#include "scene.h"

/* One trace as the viewer holds it: the model, its analysis, and where it
 * came from.  A document is replaced whole on reload (--follow), never
 * changed in place, so a frame never mixes two snapshots. */
typedef struct mprof_view_doc_s {
  char *path;                /* as given ("-" for stdin) */
  char *title;               /* the file name, for the window title */
  mprof_model_t *model;
  mprof_analysis_t analysis;
} mprof_view_doc_t;

/* Read path (a trace, or "-") and build its model and analysis.  Problems
 * in the trace go to diag (with diag_context), as mprof_trace_open() tells
 * them; progress (with progress_context) hears how far the model's load has
 * come, as mprof_model_load_with() tells it.  Either may be NULL.  Returns 0
 * or a negative mprof error. */
int mprof__view_doc_load(const char *path, mprof_diag_fn diag,
                         void *diag_context, mprof_progress_fn progress,
                         void *progress_context, mprof_view_doc_t **out);
void mprof__view_doc_free(mprof_view_doc_t *doc);

/* text from a trace, shown as text: valid UTF-8 kept, control characters,
 * backslashes and invalid bytes written as \n, \t, \\ or \xHH.  g_free()
 * the result. */
char *mprof__view_escape(const char *text);

/* Rows are this tall (the browser viewer's height too). */
#define MPROF_VIEW_ROW_PX 20

/* What is shown of a document, and how.  The arrays are per thread (or
 * counter) of the document, owned by the state: mprof__view_state_free(). */
typedef struct mprof_view_state_s {
  int64_t t0_ns, t1_ns;      /* visible time range */
  double scroll_y;           /* pixels scrolled down from the first row */
  uint32_t rows;             /* the document's rows: how far it scrolls */
  int width, height;         /* pixels */
  uint32_t selected;         /* double-clicked thread, or MPROF_NO_THREAD */
  uint8_t *highlighted;      /* selected and what it touched, or NULL */
  uint8_t *matches;          /* search matches, or NULL */
  uint8_t *counters_shown;   /* counters graphed, or NULL for none */
  mprof_scene_t *scene;      /* the display list, reused between frames */
} mprof_view_state_t;

/* A state for doc: the whole trace in width x height, every counter
 * graphed, nothing selected.  Returns 0 or MPROF_ENOMEM. */
int mprof__view_state_init(mprof_view_state_t *state,
                           const mprof_view_doc_t *doc, int width, int height);
void mprof__view_state_free(mprof_view_state_t *state);

/* Select thread t (MPROF_NO_THREAD: none): highlight it and what it
 * touched.  Returns 0 or MPROF_ENOMEM. */
int mprof__view_state_select(mprof_view_state_t *state,
                             const mprof_view_doc_t *doc, uint32_t t);

/* Mark the threads whose name or a label contains text (ASCII letters in
 * any case); NULL or "" clears.  Returns how many matched, or MPROF_ENOMEM. */
long mprof__view_state_search(mprof_view_state_t *state,
                              const mprof_view_doc_t *doc, const char *text);

/* The viewport the scene is built for. */
mprof_viewport_t mprof__view_viewport(const mprof_view_state_t *state);

/* The state showing the whole of doc in width x height. */
void mprof__view_state_fit(mprof_view_state_t *state,
                           const mprof_view_doc_t *doc, int width, int height);

/* Zoom by factor (< 1 zooms in) keeping the time under pixel x in place. */
void mprof__view_state_zoom(mprof_view_state_t *state, double factor,
                            double x);

/* Move the view by dx, dy pixels (the content follows the pointer); the
 * last row stays in view. */
void mprof__view_state_pan(mprof_view_state_t *state, double dx, double dy);

/* Draw doc as state says on cr (width x height from state).  Returns 0 or
 * MPROF_ENOMEM. */
int mprof__view_draw(cairo_t *cr, const mprof_view_doc_t *doc,
                     const mprof_view_state_t *state);

/* Write the picture of doc to a PNG file.  Returns 0, MPROF_ENOMEM or
 * MPROF_EIO. */
int mprof__view_png(const mprof_view_doc_t *doc,
                    const mprof_view_state_t *state, const char *png_path);

/* The thread drawn at pixel (x, y), or MPROF_NO_THREAD. */
uint32_t mprof__view_hit(const mprof_view_doc_t *doc,
                         const mprof_view_state_t *state, double x, double y);

/* Show each document in its own window (compare: both in one window, one
 * above the other on aligned time axes); follow: re-read the traces every
 * second, keeping the newest time in view.  The windows take the documents
 * (docs[i] become NULL; they are freed with their window).  Returns when
 * every window is closed: 0, or 1 if no display could be opened. */
typedef struct mprof_view_options_s {
  int compare;
  int follow;
  int follow_ms;             /* re-read period */
  const char *script;        /* test actions (see script.c), or NULL */
} mprof_view_options_t;
int mprof__view_windows(mprof_view_doc_t **docs, int count,
                        const mprof_view_options_t *options);

#endif /* MPROF_VIEW_H */
