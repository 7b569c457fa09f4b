/* big.h -- the view of a trace too big to model (big.c), without GTK: what
 * the window shows of it and how a frame is drawn, so that the window and
 * the frame-time bench go through the same calls. */
#ifndef MPROF_VIEW_BIG_H
#define MPROF_VIEW_BIG_H

#include "view.h"

/* The view of the trace file at path, if its whole model would take more
 * than budget_bytes: its index and its pyramid (pyramid.c) read, if good
 * ones of the file's key are there, without the trace, which the first
 * frame opens in the background; else the trace opened and they made in
 * one pass (progress hears how far it has come).  The whole trace in
 * view.  *out is NULL where the whole model fits, or path is not one
 * trace file, or is a legacy trace: load it whole.  Problems in the trace
 * go to diag, from the window's thread or the one that opens the trace,
 * never two at once (every view's calls serialised), and never once the
 * view is freed.  Returns 0 or an mprof error. */
int mprof__view_big_open(const char *path, uint64_t budget_bytes,
                         mprof_diag_fn diag, void *diag_context,
                         mprof_progress_fn progress, void *progress_context,
                         mprof_view_big_t **out);
/* Free big, at once: a trace still opening is closed by the thread that
 * opens it, which is not waited for. */
void mprof__view_big_free(mprof_view_big_t *big);

/* Whether the pyramid was made by the open (not read from its file). */
int mprof__view_big_built(const mprof_view_big_t *big);
/* Why a pyramid file found for the trace was not used (it was made
 * again), or NULL. */
const char *mprof__view_big_refused(const mprof_view_big_t *big);
/* The trace file's path, as given to the open. */
const char *mprof__view_big_path(const mprof_view_big_t *big);
/* The time range in view, and the whole trace's (as the fit shows it). */
void mprof__view_big_range(const mprof_view_big_t *big, int64_t *t0_ns,
                           int64_t *t1_ns);
void mprof__view_big_whole(const mprof_view_big_t *big, int64_t *t0_ns,
                           int64_t *t1_ns);
/* How many rows the trace's layout gave (its pyramid's row_count). */
uint32_t mprof__view_big_rows(const mprof_view_big_t *big);
/* Whether the last frame was the model of the packets in view (1) or
 * drawn from the pyramid (0). */
int mprof__view_big_modelled(const mprof_view_big_t *big);
/* The pixels the rows are scrolled down, as the last frame's kind shows
 * them (held to its rows). */
double mprof__view_big_scroll_px(const mprof_view_big_t *big);
/* Whether the opener is opening the trace still (its models wait). */
int mprof__view_big_opening(mprof_view_big_t *big);

/* Whether the trace file is still the one its index and pyramid are of:
 * its key read again (a stat and its header).  Once it is not (0), the
 * view draws it as it was, models no range of it again, and warns of how
 * it differs at the last check (shrank, grew, changed or unreadable). */
int mprof__view_big_check(mprof_view_big_t *big);
/* What the view warns of, the last told, into text[0 .. size) (cut to
 * fit): the trace file changed since its index was made, or a problem met
 * reading its packets (a damaged one, the file shrunk under it).  Returns
 * 1 if there is one, else 0 (text ""). */
int mprof__view_big_warning(mprof_view_big_t *big, char *text, size_t size);
/* Have news(data) called, from any thread (the one opening the trace
 * too), when the view has news for its window: a warning, or the trace
 * opened (a frame may now be modelled).  Called once until
 * mprof__view_big_warning() is, never once big is freed. */
void mprof__view_big_on_news(mprof_view_big_t *big, void (*news)(void *data),
                             void *data);

/* Paint the range in view on cr, width x height: the scene of the model
 * of the packets in view where their model fits in a window's budget (a
 * quarter of the open's) and the trace is open, else the pyramid's frame
 * of it.  Where making that model fails, the pyramid's frame is drawn and
 * the error returned, once: the model of that range is not tried again
 * until the range changes.  A trace changed since its index was made
 * (mprof__view_big_check()) is not modelled, and that is no error: the
 * warning says it.  The first frame drawn starts the trace's open, which
 * no frame waits for.  Returns 0 or an mprof error. */
int mprof__view_big_draw(cairo_t *cr, mprof_view_big_t *big, int width,
                         int height);
/* The legend of what the trace holds (its pyramid's), width px wide. */
void mprof__view_big_legend(cairo_t *cr, const mprof_view_big_t *big,
                            double width);

/* Zoom by factor around pixel x of the last frame's width; pan by dx
 * pixels; scroll the rows up by dy pixels (the content follows the
 * pointer, as mprof_timeline_pan() scrolls a model's: from 0 to where
 * the last row of what the last frame was drawn from reaches the top,
 * the model's rows or the pyramid's); show the whole trace, unscrolled;
 * show [t0_ns, t1_ns). */
void mprof__view_big_zoom(mprof_view_big_t *big, double factor, double x);
void mprof__view_big_pan(mprof_view_big_t *big, double dx);
void mprof__view_big_scroll(mprof_view_big_t *big, double dy);
void mprof__view_big_fit(mprof_view_big_t *big);
void mprof__view_big_set_range(mprof_view_big_t *big, int64_t t0_ns,
                               int64_t t1_ns);

#endif /* MPROF_VIEW_BIG_H */
