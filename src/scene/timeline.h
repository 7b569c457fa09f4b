/* timeline.h -- the view state both viewers share: one trace, or two
 * compared one above the other on one time axis, and what is shown of
 * them.  Input goes in as these calls (fit, zoom, pan, scroll, select,
 * a finding shown, search, counters, alignment); each pane's display list comes
 * out (mprof_timeline_build(), scene.h), its last primitives the first
 * divergence's dashed line.  The desktop viewer (src/view) and the
 * browser viewer (web/, these calls exported from WebAssembly) hold no
 * view arithmetic of their own, so the same state draws the same layout
 * in both.
 *
 * Times are ns as doubles, thread indexes ints (-1: none), so that
 * JavaScript calls these functions directly.  The time range is on the
 * first trace's axis: the second trace's time t is drawn at t + its
 * offset (mprof_timeline_align()).
 *
 *   mprof_timeline_t *tl = mprof_timeline_new();
 *   mprof_timeline_show(tl, model, NULL);
 *   mprof_timeline_resize(tl, 0, 1200, 800);
 *   mprof_timeline_fit(tl);
 *   int n = mprof_timeline_build(tl, 0); // paint mprof_timeline_prims(tl, 0)
 */
#ifndef MPROF_TIMELINE_H
#define MPROF_TIMELINE_H

#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Panes at most: one trace, or two compared. */
#define MPROF_TIMELINE_PANES 2
/* The narrowest range shown, in ns over the pane's width. */
#define MPROF_TIMELINE_MIN_SPAN_NS 10
/* Fit leaves this share of the traces' extent empty on each side, so
 * that what happens at their first and last ns is not cut by the edge. */
#define MPROF_TIMELINE_FIT_MARGIN 0.02
/* A finding shown gets at least this much room on each side, so that an
 * instant (a signal nobody heard) is not a 10 ns view. */
#define MPROF_TIMELINE_FINDING_PAD_NS 1000.0

/* How compare puts the second trace on the first one's time axis. */
typedef enum mprof_align_e {
  MPROF_ALIGN_STARTS = 0, /* both from their first event */
  MPROF_ALIGN_WALL,       /* by their wall clocks (starts if either has none) */
  MPROF_ALIGN_DIVERGENCE  /* the first divergence at one x (starts if none) */
} mprof_align_t;

typedef struct mprof_timeline_s mprof_timeline_t;

/* A state showing nothing; NULL if memory ran out. */
mprof_timeline_t *mprof_timeline_new(void);
void mprof_timeline_free(mprof_timeline_t *tl);

/* Show model a, and b under it to compare (NULL: a alone; both NULL:
 * nothing).  The models are read at each call: keep them alive.  Nothing
 * is selected, every counter is graphed, the search text is applied
 * again; two traces get one scale per counter name and are aligned at
 * their first divergence if they have one, else at their starts.  The
 * range and scroll stay: call mprof_timeline_fit().  Returns 0 or
 * MPROF_ENOMEM (then showing nothing). */
int mprof_timeline_show(mprof_timeline_t *tl, const mprof_model_t *a,
                        const mprof_model_t *b);

/* Replace pane p's model by a newer read of the same trace: the range,
 * the scroll, the counters graphed, the search and the selected thread
 * (by id) carry over.  Returns 0, or MPROF_ENOMEM with the old one kept. */
int mprof_timeline_replace(mprof_timeline_t *tl, int pane,
                           const mprof_model_t *model);

int mprof_timeline_panes(const mprof_timeline_t *tl);

/* Pane p's size in pixels (front ends tell it before each frame). */
void mprof_timeline_resize(mprof_timeline_t *tl, int pane, int width,
                           int height);

/* The shown range, on the first trace's axis. */
double mprof_timeline_t0(const mprof_timeline_t *tl);
double mprof_timeline_t1(const mprof_timeline_t *tl);
/* Pixels pane p's rows are scrolled down. */
double mprof_timeline_scroll(const mprof_timeline_t *tl, int pane);
/* Where pane p's time 0 is on the shared axis (0 for the first pane). */
double mprof_timeline_offset(const mprof_timeline_t *tl, int pane);
/* Pane p's viewport for the scene (its own times, its size and scroll). */
mprof_viewport_t mprof_timeline_viewport(const mprof_timeline_t *tl, int pane);

/* Show [t0, t1) (at least MPROF_TIMELINE_MIN_SPAN_NS from t0). */
void mprof_timeline_set_range(mprof_timeline_t *tl, double t0, double t1);
/* Scroll every pane to px, each as far as its last row reaches the top. */
void mprof_timeline_scroll_to(mprof_timeline_t *tl, double px);
/* Every trace's busy part (mprof_scene_busy(): its idle lead and tail
 * left out), all of them on the shared axis, with
 * MPROF_TIMELINE_FIT_MARGIN of that each side; no scroll. */
void mprof_timeline_fit(mprof_timeline_t *tl);
/* Multiply the span by factor (< 1 zooms in), keeping the time under
 * pixel x of pane p in place. */
void mprof_timeline_zoom(mprof_timeline_t *tl, int pane, double factor,
                         double x);
/* Multiply the span by factor (< 1 zooms in) around the middle of the
 * range (keys and buttons). */
void mprof_timeline_zoom_middle(mprof_timeline_t *tl, double factor);
/* Move the range by share of its span (0.125: an eighth later). */
void mprof_timeline_shift(mprof_timeline_t *tl, double share);
/* Move by dx, dy pixels of pane p (the content follows the pointer).
 * Pixel x of pane p is on its time range, which starts right of its name
 * column (mprof_timeline_viewport()'s names_px). */
void mprof_timeline_pan(mprof_timeline_t *tl, int pane, double dx, double dy);

/* The thread drawn at pixel (x, y) of pane p, or -1. */
int mprof_timeline_hit(const mprof_timeline_t *tl, int pane, double x,
                       double y);
/* Select thread t of pane p (-1: none), highlighting it and what it
 * touched; the other pane's selection is cleared.  Returns how many
 * threads are highlighted, or MPROF_ENOMEM. */
int mprof_timeline_select(mprof_timeline_t *tl, int pane, int thread);
/* Pane p's selected thread, or -1. */
int mprof_timeline_selected(const mprof_timeline_t *tl, int pane);
/* Bring thread t of pane p into view (its life and a quarter of it each
 * side, its row a third down the pane) and select it.  Returns as
 * mprof_timeline_select(). */
int mprof_timeline_reveal(mprof_timeline_t *tl, int pane, int thread);

/* Show finding f of pane p's analysis (made of that pane's model):
 * [start_ns, end_ns) with MPROF_TIMELINE_FIT_MARGIN of its span (at least
 * MPROF_TIMELINE_FINDING_PAD_NS) empty on each side, its first thread (the
 * one at fault) selected with its row a third down the pane, and
 * highlighted with it what the finding names: its threads and its
 * evidence's (both ends of an arrow).  Returns how many threads are
 * highlighted, or 0 if there is no such pane or finding. */
int mprof_timeline_show_finding(mprof_timeline_t *tl, int pane,
                                const mprof_analysis_t *analysis, int finding);

/* Mark the threads whose name or a label holds text, ASCII letters in any
 * case (labels are bytes, not always UTF-8); NULL or "" clears.  Returns
 * how many matched in all panes, or MPROF_ENOMEM. */
long mprof_timeline_search(mprof_timeline_t *tl, const char *text);
/* Pane p's first match after thread index `after` (wrapping), or -1. */
int mprof_timeline_next_match(const mprof_timeline_t *tl, int pane, int after);

/* Graph counter c of pane p, or not. */
void mprof_timeline_show_counter(mprof_timeline_t *tl, int pane, int counter,
                                 int shown);

/* Align the second trace (see mprof_align_t); the range stays. */
void mprof_timeline_align(mprof_timeline_t *tl, mprof_align_t how);
/* Where the two traces first differ, or NULL (one trace, or none). */
const mprof_divergence_t *mprof_timeline_divergence(const mprof_timeline_t *tl);

/* The i-th entry of the legend (from 0): the colours the panes' legends
 * hold (mprof_scene_legend()), in palette order, and the first
 * divergence's when two traces diverge.  Returns an mprof_colour_t, or -1
 * past the last entry. */
int mprof_timeline_legend(const mprof_timeline_t *tl, int i);

/* Build pane p's display list.  Returns how many primitives, or a
 * negative mprof error (MPROF_EINVAL: an empty pane, nothing to draw). */
int mprof_timeline_build(mprof_timeline_t *tl, int pane);
/* The last build's primitives and texts (scene.h), valid until the next
 * build of that pane. */
const mprof_prim_t *mprof_timeline_prims(const mprof_timeline_t *tl, int pane);
const char *mprof_timeline_text(const mprof_timeline_t *tl, int pane);

#ifdef __cplusplus
}
#endif

#endif /* MPROF_TIMELINE_H */
