/* view.h -- the desktop viewer (`mprof view`): one trace's model drawn with
 * cairo, in a GTK 3 window or into a PNG file.
 *
 * What is shown is the view state of src/scene (timeline.h), and every
 * picture its display list (scene.h), the same the browser viewer paints;
 * this library turns input into timeline calls (window.c), paints the
 * primitives with cairo (render.c) and adds the window around them.  It
 * lives apart from the core libraries so that they never need GTK.
 */
#ifndef MPROF_VIEW_H
#define MPROF_VIEW_H

#include <cairo.h>
#include <stdint.h>

#include "mprof/model.h"
#include "timeline.h"

/* One trace as the viewer holds it: the model, its analysis, and where it
 * came from.  A document is replaced whole on reload (--follow), never
 * changed in place, so a frame never mixes two snapshots. */
typedef struct mprof_view_doc_s {
  char *path;  /* as given ("-" for stdin) */
  char *title; /* the file name, for the window title */
  mprof_model_t *model;
  mprof_analysis_t analysis;
} mprof_view_doc_t;

/* Read path (a trace, "-", or a merged trace: its members on one time
 * axis) and build its model and analysis.  Problems in the trace go to diag
 * (with diag_context), as mprof_trace_open_merged() tells them; progress (with
 * progress_context) hears how far the model's load has come, as
 * mprof_model_load_with() tells it.  Either may be NULL.  Returns 0 or a
 * negative mprof error. */
int mprof__view_doc_load(const char *path, mprof_diag_fn diag,
                         void *diag_context, mprof_progress_fn progress,
                         void *progress_context, mprof_view_doc_t **out);
/* The document of model (taken: freed if this fails), analysed, named
 * after path.  Returns 0 or a negative mprof error. */
int mprof__view_doc_make(const char *path, mprof_model_t *model,
                         mprof_view_doc_t **out);
void mprof__view_doc_free(mprof_view_doc_t *doc);

/* text from a trace, shown as text: valid UTF-8 kept, control characters,
 * backslashes and invalid bytes written as \n, \t, \\ or \xHH.  g_free()
 * the result. */
char *mprof__view_escape(const char *text);

/* A view state (timeline.h) showing docs[0], and docs[1] under it to
 * compare if count is 2, whole, in panes of width x height: as a window
 * and --png open them.  NULL if memory ran out. */
mprof_timeline_t *mprof__view_timeline(mprof_view_doc_t *const *docs, int count,
                                       int width, int height);

/* What mprof__view_range_doc() found of a trace. */
typedef struct mprof_view_range_s {
  uint64_t model_bytes;          /* about what its whole model would take */
  uint64_t events;               /* all its events, by its index */
  size_t packets, packets_total; /* decoded for the window, of all */
} mprof_view_range_t;

/* The document of the part [t0_ns, t1_ns) of the trace file at path
 * (times since its first event), if its whole model would take more than
 * budget_bytes: the model of only the packets the trace's index (built if
 * need be) says that part needs, and the names packets.  *out is NULL
 * where the whole model fits, or path is not one trace file (standard
 * input, a merged trace), or is a legacy trace: load it whole.  Problems
 * in the trace go to diag.  Returns 0 or an mprof error. */
int mprof__view_range_doc(const char *path, int64_t t0_ns, int64_t t1_ns,
                          uint64_t budget_bytes, mprof_diag_fn diag,
                          void *diag_context, mprof_view_range_t *window,
                          mprof_view_doc_t **out);

/* The summary (src/model/scene_stream.h) of the whole trace file at path,
 * for a picture width x height, if its whole model would take more than
 * budget_bytes (*model_bytes, about): made in one pass over its events,
 * its time span from its index (built if need be).  *out is NULL where
 * the whole model fits, or path is not one trace file, or is a legacy
 * trace: load it whole.  Problems in the trace go to diag, how far the
 * pass has come to progress (either may be NULL).  Returns 0 or an mprof
 * error. */
typedef struct mprof_cells_s mprof_cells_t;
int mprof__view_whole_cells(const char *path, uint64_t budget_bytes, int width,
                            int height, mprof_diag_fn diag, void *diag_context,
                            mprof_progress_fn progress, void *progress_context,
                            uint64_t *model_bytes, mprof_cells_t **out);

/* Paint pane p of tl on cr, at the size tl was told.  Returns 0 or
 * MPROF_ENOMEM. */
int mprof__view_draw(cairo_t *cr, mprof_timeline_t *tl, int pane);

/* Paint a display list (scene.h) on cr: the background, then each
 * primitive in order. */
void mprof__view_paint(cairo_t *cr, const mprof_prim_t *prims, size_t count,
                       const char *texts);

/* The legend's height: one line of swatches and names. */
#define MPROF_VIEW_LEGEND_PX 18

/* Paint tl's legend (mprof_timeline_legend()) on cr, a strip `width` px
 * wide and MPROF_VIEW_LEGEND_PX tall at cr's origin: each entry a swatch
 * of its colour and its palette name, in order, as many as fit. */
void mprof__view_legend_paint(cairo_t *cr, const mprof_timeline_t *tl,
                              double width);

/* Paint a legend of these colours, as mprof__view_legend_paint() does. */
void mprof__view_legend_colours(cairo_t *cr, const mprof_colour_t *colours,
                                size_t count, double width);

/* Write the picture of pane p of tl to a PNG file: the pane at the size
 * tl was told, the legend under it.  Returns 0, MPROF_ENOMEM or
 * MPROF_EIO. */
int mprof__view_png(mprof_timeline_t *tl, int pane, const char *png_path);

/* Write the picture of a summary to a PNG file, as mprof__view_png()
 * writes a pane's: width x height (those the summary was made for), the
 * legend under it.  Returns 0, MPROF_ENOMEM or MPROF_EIO. */
int mprof__view_png_cells(const mprof_cells_t *cells, int width, int height,
                          const char *png_path);

/* Paint a summary's picture on cr, width x height (those the summary was
 * made for), its rows scrolled down scroll_px (the summary made for that
 * scroll: src/scene/cells.h), as mprof__view_png_cells() does without the
 * legend; and the legend of what it holds, width px wide.  Returns 0 or
 * MPROF_ENOMEM. */
int mprof__view_paint_cells(cairo_t *cr, const mprof_cells_t *cells,
                            uint32_t width, uint32_t height,
                            uint32_t scroll_px);
void mprof__view_cells_legend(cairo_t *cr, const mprof_cells_t *cells,
                              double width);

/* Show each document in its own window (compare: both in one window, one
 * above the other on aligned time axes); follow: re-read the traces every
 * second, keeping the newest time in view.  Where bigs (if not NULL) holds
 * the view of a trace too big to model (big.h) instead of a document, its
 * window shows that, alone, named after paths[i].  The windows take the
 * documents and views (they become NULL; they are freed with their
 * window).  Returns when every window is closed: 0, or 1 if no display
 * could be opened. */
typedef struct mprof_view_big_s mprof_view_big_t;
typedef struct mprof_view_options_s {
  int compare;
  int follow;
  int follow_ms;      /* re-read period */
  const char *script; /* test actions (see script.c), or NULL */
} mprof_view_options_t;
int mprof__view_windows(mprof_view_doc_t **docs, mprof_view_big_t **bigs,
                        char *const *paths, int count,
                        const mprof_view_options_t *options);

#endif /* MPROF_VIEW_H */
