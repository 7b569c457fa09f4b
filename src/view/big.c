/* big.c -- the view of a trace too big to model (big.h): its index and its
 * level-of-detail pyramid (pyramid.c) open, a time range in view.  A frame
 * is drawn from the pyramid's level that fits it (work bounded by its
 * pixels, not by the events), or, once the packets of the range in view
 * fit a window's budget, from the model of just those packets, as --png
 * --range draws one: the real scene, its rows laid out for that range.
 * The model is kept while the view stays inside the range it was made
 * for (made half a span wider each side where that fits too).  A range
 * whose model fails is drawn from the pyramid, its model not tried again
 * until the range changes.  MPROF_VIEW_TEST_WINDOW_ERROR (an mprof error
 * number) makes every model fail so, for the tests. */
#include <stdlib.h>
#include <string.h>

#include "../scene/cells.h"
#include "big.h"
#include "pyramid.h"

/* A window's model may take this share of the open's budget: small enough
 * that making it again on a pan keeps the window answering. */
#define WINDOW_BUDGET_SHARE 4
/* The narrowest range shown, and the widest in spans of the whole trace
 * (a zoom stops there); the middle of the range stays in the trace. */
#define MIN_SPAN_NS 1000.0
#define MAX_SPANS 16.0
/* The times a range may reach: [-MAX_NS, MAX_NS], so that its span fits
 * int64_t. */
#define MAX_NS ((double)(INT64_MAX / 2))

struct mprof_view_big_s {
  char *path;
  mprof_trace_t *trace;
  mprof_index_t *index;
  mprof_pyramid_t *pyramid;
  int built;
  const char *refused; /* why a pyramid file there was not used, or NULL */
  uint64_t window_budget, model_bytes;
  int64_t whole_t0, whole_t1;
  int64_t t0, t1; /* in view */
  int width;      /* the last frame's */
  /* The model of the packets of [doc_t0, doc_t1), or NULL. */
  mprof_view_doc_t *doc;
  mprof_timeline_t *tl;
  int64_t doc_t0, doc_t1;
  int modelled;
  /* The range in view whose model failed last, if failed. */
  int failed;
  int64_t failed_t0, failed_t1;
  int test_error;
};

/* The error MPROF_VIEW_TEST_WINDOW_ERROR asks every window model to fail
 * with, or 0. */
static int test_window_error(void) {
  const char *text = getenv("MPROF_VIEW_TEST_WINDOW_ERROR");
  return text ? atoi(text) : 0;
}

int mprof__view_big_open(const char *path, uint64_t budget_bytes,
                         mprof_diag_fn diag, void *diag_context,
                         mprof_progress_fn progress, void *progress_context,
                         mprof_view_big_t **out) {
  uint64_t model_bytes;
  mprof_trace_t *trace;
  *out = NULL;
  if (!mprof__view_open_too_big(path, budget_bytes, diag, diag_context,
                                &model_bytes, &trace))
    return 0;
  mprof_view_big_t *b = calloc(1, sizeof *b);
  size_t length = strlen(path) + 1;
  if (!b || !(b->path = malloc(length))) {
    free(b);
    mprof_trace_close(trace);
    return MPROF_ENOMEM;
  }
  b->trace = trace;
  memcpy(b->path, path, length);
  b->window_budget = budget_bytes / WINDOW_BUDGET_SHARE;
  b->model_bytes = model_bytes;
  b->test_error = test_window_error();
  int err = mprof_index_open(path, b->trace, 0, NULL, NULL, &b->index);
  if (!err)
    err = mprof__view_pyramid_open(path, b->trace, b->index, progress,
                                   progress_context, &b->built, &b->refused,
                                   &b->pyramid);
  if (err) {
    mprof__view_big_free(b);
    return err;
  }
  b->whole_t0 = b->pyramid->levels[0]->t0_ns;
  b->whole_t1 = b->pyramid->levels[0]->t1_ns;
  mprof__view_big_fit(b);
  *out = b;
  return 0;
}

static void drop_model(mprof_view_big_t *b) {
  mprof_timeline_free(b->tl);
  mprof__view_doc_free(b->doc);
  b->tl = NULL;
  b->doc = NULL;
}

void mprof__view_big_free(mprof_view_big_t *b) {
  if (!b) return;
  drop_model(b);
  mprof_pyramid_free(b->pyramid);
  mprof_index_free(b->index);
  if (b->trace) mprof_trace_close(b->trace);
  free(b->path);
  free(b);
}

int mprof__view_big_built(const mprof_view_big_t *b) { return b->built; }

const char *mprof__view_big_refused(const mprof_view_big_t *b) {
  return b->refused;
}

const char *mprof__view_big_path(const mprof_view_big_t *b) { return b->path; }

void mprof__view_big_range(const mprof_view_big_t *b, int64_t *t0_ns,
                           int64_t *t1_ns) {
  *t0_ns = b->t0, *t1_ns = b->t1;
}

void mprof__view_big_whole(const mprof_view_big_t *b, int64_t *t0_ns,
                           int64_t *t1_ns) {
  *t0_ns = b->whole_t0, *t1_ns = b->whole_t1;
}

uint32_t mprof__view_big_rows(const mprof_view_big_t *b) {
  return b->pyramid->levels[0]->row_count;
}

int mprof__view_big_modelled(const mprof_view_big_t *b) { return b->modelled; }

/* --- Frames --------------------------------------------------------------- */

/* Time t (ns, any double) held to [INT64_MIN / 2, INT64_MAX / 2]. */
static int64_t held_ns(double t) {
  if (!(t > -MAX_NS)) return INT64_MIN / 2;
  if (t >= MAX_NS) return INT64_MAX / 2;
  return (int64_t)t;
}

/* Whether the model of [t0, t1)'s packets fits a window's budget: first
 * guessed from the whole trace's share (no packet list made far from
 * it). */
static int window_fits(const mprof_view_big_t *b, int64_t t0, int64_t t1) {
  double share =
      ((double)t1 - (double)t0) / ((double)b->whole_t1 - (double)b->whole_t0);
  if (share * (double)b->model_bytes > 4.0 * (double)b->window_budget) return 0;
  uint64_t bytes;
  return !mprof__view_window_bytes(b->trace, b->index, t0, t1, &bytes) &&
         bytes <= b->window_budget;
}

/* The model of [t0, t1)'s packets as a doc and its timeline in b, or an
 * mprof error. */
static int make_model(mprof_view_big_t *b, int64_t t0, int64_t t1, int width,
                      int height) {
  int err = b->test_error ? b->test_error
                          : mprof__view_window_doc(b->path, b->trace, b->index,
                                                   t0, t1, &b->doc);
  if (err) return err;
  if (!(b->tl = mprof__view_timeline(&b->doc, 1, width, height))) {
    drop_model(b);
    return MPROF_ENOMEM;
  }
  b->doc_t0 = t0, b->doc_t1 = t1;
  return 0;
}

/* The model of the packets in view, made if the one held does not cover
 * the range: 1 if there is one, 0 if the range's do not fit or failed
 * before, or an mprof error (the range remembered as failed). */
static int window_model(mprof_view_big_t *b, int width, int height) {
  if (b->doc && b->doc_t0 <= b->t0 && b->t1 <= b->doc_t1) return 1;
  drop_model(b);
  if (b->failed && b->failed_t0 == b->t0 && b->failed_t1 == b->t1) return 0;
  double half = ((double)b->t1 - (double)b->t0) / 2;
  int64_t t0 = held_ns((double)b->t0 - half),
          t1 = held_ns((double)b->t1 + half);
  if (!window_fits(b, t0, t1)) {
    t0 = b->t0, t1 = b->t1;
    if (!window_fits(b, t0, t1)) return 0;
  }
  int err = make_model(b, t0, t1, width, height);
  b->failed = err != 0;
  b->failed_t0 = b->t0, b->failed_t1 = b->t1;
  return err ? err : 1;
}

static int draw_pyramid(cairo_t *cr, const mprof_view_big_t *b, int width,
                        int height) {
  mprof_cells_t *frame;
  int err = mprof_pyramid_frame(
      b->pyramid, b->t0, b->t1, mprof_scene_cells_columns((uint32_t)width),
      mprof_scene_cells_rows((uint32_t)height), &frame);
  if (err) return err;
  err = mprof__view_paint_cells(cr, frame, (uint32_t)width, (uint32_t)height);
  mprof_cells_free(frame);
  return err;
}

int mprof__view_big_draw(cairo_t *cr, mprof_view_big_t *b, int width,
                         int height) {
  b->width = width;
  int model = window_model(b, width, height);
  b->modelled = model > 0;
  if (model <= 0) {
    int err = draw_pyramid(cr, b, width, height);
    return model ? model : err;
  }
  mprof_timeline_resize(b->tl, 0, width, height);
  mprof_timeline_set_range(b->tl, (double)b->t0, (double)b->t1);
  return mprof__view_draw(cr, b->tl, 0);
}

void mprof__view_big_legend(cairo_t *cr, const mprof_view_big_t *b,
                            double width) {
  if (b->modelled)
    mprof__view_legend_paint(cr, b->tl, width);
  else
    mprof__view_cells_legend(cr, b->pyramid->levels[0], width);
}

/* --- Moving --------------------------------------------------------------- */

/* Show [t0, t1), held to the narrowest and widest ranges, its middle in
 * the trace (times in double: a zoom or pan never overflows; a damaged
 * clock's whole, 16 times over, would pass int64_t's range). */
static void show(mprof_view_big_t *b, double t0, double t1) {
  double whole_t0 = (double)b->whole_t0, whole_t1 = (double)b->whole_t1;
  double span = t1 - t0, middle = t0 + span / 2;
  if (!(span >= MIN_SPAN_NS)) span = MIN_SPAN_NS;
  if (span > MAX_SPANS * (whole_t1 - whole_t0))
    span = MAX_SPANS * (whole_t1 - whole_t0);
  if (span > MAX_NS) span = MAX_NS;
  if (!(middle >= whole_t0)) middle = whole_t0;
  if (middle > whole_t1) middle = whole_t1;
  b->t0 = held_ns(middle - span / 2);
  b->t1 = held_ns(middle + span / 2);
}

void mprof__view_big_set_range(mprof_view_big_t *b, int64_t t0_ns,
                               int64_t t1_ns) {
  show(b, (double)t0_ns, (double)t1_ns);
}

/* The time per pixel of the last frame's time columns. */
static double ns_per_px(const mprof_view_big_t *b) {
  uint32_t columns = mprof_scene_cells_columns((uint32_t)b->width);
  return ((double)b->t1 - (double)b->t0) / (columns ? columns : 1);
}

void mprof__view_big_zoom(mprof_view_big_t *b, double factor, double x) {
  uint32_t names =
      (uint32_t)b->width - mprof_scene_cells_columns((uint32_t)b->width);
  double at = (double)b->t0 + (x - names) * ns_per_px(b);
  if (at < (double)b->t0) at = (double)b->t0;
  if (at > (double)b->t1) at = (double)b->t1;
  show(b, at - (at - (double)b->t0) * factor,
       at + ((double)b->t1 - at) * factor);
}

void mprof__view_big_pan(mprof_view_big_t *b, double dx) {
  double by = dx * ns_per_px(b);
  show(b, (double)b->t0 - by, (double)b->t1 - by);
}

void mprof__view_big_fit(mprof_view_big_t *b) {
  mprof__view_big_set_range(b, b->whole_t0, b->whole_t1);
}
