/* big.c -- the view of a trace too big to model (big.h): its index and its
 * level-of-detail pyramid (pyramid.c) open, a time range in view.  A frame
 * is drawn from the pyramid's level that fits it (work bounded by its
 * pixels, not by the events), or, once the packets of the range in view
 * fit a window's budget, from the model of just those packets, as --png
 * --range draws one: the real scene, its rows laid out for that range.
 * The model is kept while the view stays inside the range it was made
 * for (made half a span wider each side where that fits too).  The rows
 * scroll as a model's pane scrolls them, by pixels, whichever draws them:
 * the pyramid's frame is made from the first row in view on, and the
 * scroll is held, where drawn, to the rows of what draws it.  A range
 * whose model fails is drawn from the pyramid, its model not tried again
 * until the range changes.
 *
 * The view opens from what its first frame needs: the trace file's key
 * (its size, time and header's uuid), and the index and pyramid of that
 * key -- not the trace, whose open reads every packet's header first
 * (150,000 of them at 1 B events: seconds from a cold disk).  The trace is
 * opened once the first frame is drawn, on a thread of its own, which
 * nobody waits for: until it is open, every frame is the pyramid's, and
 * its end is news (mprof__view_big_on_news()).  It is believed only with
 * the key and packets its index has; packets not the index's under the
 * same key make the index and pyramid there stale, and they are removed,
 * so that the next open makes them again.  Where no good index or pyramid
 * is there, the trace is opened first and they are made from it.  The
 * file's key is read again before each model and by
 * mprof__view_big_check(): a trace changed since is drawn as it was,
 * never modelled again, and the view says so (mprof__view_big_warning()),
 * as it tells the problems its trace's packets show once read. */
#define _GNU_SOURCE /* syscall() */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* Where the trace is: not opened yet, being opened by the opener thread,
 * or opened (trace NULL where that failed or was refused: trace_err). */
enum { TRACE_CLOSED, TRACE_OPENING, TRACE_OPEN };

/* The opener thread and the window's thread share a view, and neither
 * waits for the other.  While the opener runs, it reads path, diag, key
 * and index, which nothing changes then, and writes, under lock, the
 * warning, changed, and at its end trace, trace_err and trace_state
 * (TRACE_OPEN), which the window's thread reads under lock.  Freed while
 * the opener runs, the view is left to it (abandoned): the window's
 * thread frees only what it alone uses (the model and the pyramid), and
 * the opener, at its end, closes its trace and frees the rest.  Which of
 * the two frees it is decided under lock, once. */
struct mprof_view_big_s {
  char *path;
  mprof_diag_fn diag; /* the open's, for the trace's problems */
  void *diag_context;
  mprof_index_key_t key; /* the trace file's, as its index has it */
  mprof_index_t *index;
  mprof_pyramid_t *pyramid;
  int built;
  const char *refused; /* why a pyramid file there was not used, or NULL */
  uint64_t window_budget, model_bytes;
  int64_t whole_t0, whole_t1;
  int64_t t0, t1; /* in view */
  double scroll;  /* px the rows are scrolled down (held where drawn) */
  int width;      /* the last frame's */
  mprof_trace_t *trace;
  int trace_state, trace_err;
  /* What the view warns of, and whether the file changed since its
   * index: written by the opener too; news for the window. */
  pthread_mutex_t lock;
  char warning[512];
  int changed;
  int abandoned;   /* freed by the window while the opener ran */
  int news_posted; /* told, and the warning not read since */
  void (*news)(void *data);
  void *news_data;
  /* The model of the packets of [doc_t0, doc_t1), or NULL. */
  mprof_view_doc_t *doc;
  mprof_timeline_t *tl;
  int64_t doc_t0, doc_t1;
  int modelled;
  /* The range in view whose model failed last, if failed. */
  int failed;
  int64_t failed_t0, failed_t1;
};

/* --- What the view warns of ----------------------------------------------- */

/* The diag of every view's opener and of the window's thread, one at a
 * time: the command line's (a count of problems, a progress line) is
 * not made for threads. */
static pthread_mutex_t diag_lock = PTHREAD_MUTEX_INITIALIZER;

/* News for the window, under b->lock: told once until it reads the
 * warning, never once the window let the view go. */
static void post_news(mprof_view_big_t *b) {
  if (b->news && !b->abandoned && !b->news_posted) {
    b->news_posted = 1;
    b->news(b->news_data);
  }
}

void mprof__view_big_on_news(mprof_view_big_t *b, void (*news)(void *data),
                             void *data) {
  pthread_mutex_lock(&b->lock);
  b->news = news;
  b->news_data = data;
  pthread_mutex_unlock(&b->lock);
}

int mprof__view_big_warning(mprof_view_big_t *b, char *text, size_t size) {
  pthread_mutex_lock(&b->lock);
  int any = b->warning[0] != 0;
  if (size) snprintf(text, size, "%s", b->warning);
  b->news_posted = 0;
  pthread_mutex_unlock(&b->lock);
  return any;
}

/* A problem of the trace met as it opens or once open (a damaged packet,
 * its file shrunk under it): warned of, and told as the open's diag tells
 * them, but not once the view is abandoned (the diag's context may be
 * gone: mprof__view_big_free() abandons it under diag_lock too).  The
 * diag runs outside b->lock, which every frame takes. */
static void tell(void *context, const char *message) {
  mprof_view_big_t *b = context;
  pthread_mutex_lock(&diag_lock);
  pthread_mutex_lock(&b->lock);
  int abandoned = b->abandoned;
  snprintf(b->warning, sizeof b->warning, "%s", message);
  post_news(b);
  pthread_mutex_unlock(&b->lock);
  if (!abandoned && b->diag)
    b->diag(b->diag_context, message);
  else if (!abandoned)
    fprintf(stderr, "mprof: %s\n", message);
  pthread_mutex_unlock(&diag_lock);
}

static int changed(mprof_view_big_t *b) {
  pthread_mutex_lock(&b->lock);
  int was = b->changed;
  pthread_mutex_unlock(&b->lock);
  return was;
}

/* The trace file is no longer the one indexed: now (NULL: it cannot be
 * read) says how, the first time (a problem told since stays shown). */
static void mark_changed(mprof_view_big_t *b, const mprof_index_key_t *now) {
  const char *how = !now                      ? "can no longer be read"
                    : now->size < b->key.size ? "shrank"
                    : now->size > b->key.size ? "grew"
                                              : "changed";
  pthread_mutex_lock(&b->lock);
  if (!b->changed)
    snprintf(b->warning, sizeof b->warning,
             "%s %s since its index was made: shown as it was then (open it "
             "again to see it now)",
             b->path, how);
  b->changed = 1;
  post_news(b);
  pthread_mutex_unlock(&b->lock);
}

int mprof__view_big_check(mprof_view_big_t *b) {
  mprof_index_key_t now;
  int readable = !mprof_index_key_read(b->path, &now);
  if (readable && mprof_index_key_equal(&now, &b->key)) return !changed(b);
  mark_changed(b, readable ? &now : NULL); /* as it is now */
  return 0;
}

/* --- The trace ------------------------------------------------------------ */

/* The index and pyramid of the trace, beside it and in the cache, found
 * stale: removed, so that the next open makes them again rather than
 * believe them on the key they still have. */
static void remove_stale(const mprof_view_big_t *b) {
  char path[PATH_MAX];
  for (int cache = 0; cache <= 1; cache++) {
    if (!mprof_index_path(b->path, cache, path, sizeof path)) unlink(path);
    if (!mprof__view_pyramid_path(b->path, cache, path, sizeof path))
      unlink(path);
  }
}

/* Whether trace, just opened, is the one indexed: of its key, with its
 * packets (marked changed if not; its index and pyramid removed if of
 * its key but not its packets). */
static int indexed(mprof_view_big_t *b, const mprof_trace_t *trace) {
  mprof_index_key_t key;
  if (mprof_index_key(b->path, trace, &key)) {
    mark_changed(b, NULL);
    return 0;
  }
  if (!mprof_index_key_equal(&key, &b->key)) {
    mark_changed(b, &key);
    return 0;
  }
  if (!mprof_index_agrees(b->index, trace)) {
    remove_stale(b);
    mark_changed(b, &key);
    return 0;
  }
  return 1;
}

/* The trace opened, if it is the one indexed, into *out (NULL if not).
 * Returns 0, the open's error, or MPROF_EINVAL where it is not the one
 * indexed (changed(b) says so). */
static int open_indexed(mprof_view_big_t *b, mprof_trace_t **out) {
  int err = mprof_trace_open(b->path, tell, b, out);
  if (!err && !indexed(b, *out)) {
    mprof_trace_close(*out);
    err = MPROF_EINVAL;
  }
  if (err) *out = NULL;
  return err;
}

/* The trace and its open's error in b, open: under lock, as the opener
 * hands them over. */
static void set_opened(mprof_view_big_t *b, mprof_trace_t *trace, int err) {
  b->trace = trace;
  b->trace_err = err;
  b->trace_state = TRACE_OPEN;
}

/* The opener's thread yields to the frames: its reads of every packet
 * header, at the lowest priority (on Linux, where a thread has a nice
 * value of its own), leave the window's thread its core. */
static void yield_to_frames(void) {
#ifdef __linux__
  setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
#endif
}

static void destroy(mprof_view_big_t *b);

/* The opener: the trace opened, then handed to the window as news, or,
 * where the window let the view go meanwhile, closed with the view. */
static void *opener(void *data) {
  mprof_view_big_t *b = data;
  yield_to_frames();
  mprof_trace_t *trace;
  int err = open_indexed(b, &trace);
  pthread_mutex_lock(&b->lock);
  int abandoned = b->abandoned;
  set_opened(b, trace, err);
  post_news(b);
  pthread_mutex_unlock(&b->lock);
  if (abandoned) destroy(b);
  return NULL;
}

static int trace_state(mprof_view_big_t *b) {
  pthread_mutex_lock(&b->lock);
  int state = b->trace_state;
  pthread_mutex_unlock(&b->lock);
  return state;
}

static void set_state(mprof_view_big_t *b, int state) {
  pthread_mutex_lock(&b->lock);
  b->trace_state = state;
  pthread_mutex_unlock(&b->lock);
}

/* Open the trace on the opener thread, if it is not open or opening, nor
 * changed (where no thread can be made, the first model opens it). */
static void start_opening(mprof_view_big_t *b) {
  pthread_t thread;
  if (trace_state(b) != TRACE_CLOSED || changed(b)) return;
  set_state(b, TRACE_OPENING); /* before the opener can end */
  if (!pthread_create(&thread, NULL, opener, b))
    pthread_detach(thread);
  else
    set_state(b, TRACE_CLOSED);
}

int mprof__view_big_opening(mprof_view_big_t *b) {
  return trace_state(b) == TRACE_OPENING;
}

/* Where the trace's open stands, from the window's thread: 0 open, 1 (no
 * wait) while the opener opens it, or the open's error. */
static int trace_ready(mprof_view_big_t *b) {
  start_opening(b);
  int state = trace_state(b);
  if (state == TRACE_OPENING) return 1;
  if (state == TRACE_CLOSED) { /* no opener */
    if (changed(b)) return MPROF_EINVAL;
    mprof_trace_t *trace;
    int err = open_indexed(b, &trace);
    pthread_mutex_lock(&b->lock);
    set_opened(b, trace, err);
    pthread_mutex_unlock(&b->lock);
  }
  return b->trace_err;
}

/* --- Opening -------------------------------------------------------------- */

static mprof_view_big_t *big_new(const char *path, uint64_t budget_bytes,
                                 mprof_diag_fn diag, void *diag_context) {
  mprof_view_big_t *b = calloc(1, sizeof *b);
  size_t length = strlen(path) + 1;
  if (!b || !(b->path = malloc(length))) {
    free(b);
    return NULL;
  }
  memcpy(b->path, path, length);
  b->diag = diag;
  b->diag_context = diag_context;
  b->window_budget = budget_bytes / WINDOW_BUDGET_SHARE;
  pthread_mutex_init(&b->lock, NULL);
  return b;
}

/* The index and pyramid of b's trace of its key, read without the trace:
 * 1 if both were there and good, with b->model_bytes from the index; 0
 * if not (nothing kept), or an mprof error. */
static int open_keyed(mprof_view_big_t *b) {
  if (mprof_index_key_read(b->path, &b->key) ||
      mprof_index_find_keyed(b->path, &b->key, &b->index, NULL))
    return 0;
  b->model_bytes = mprof_model_bytes_of_content(
      mprof_index_content_bytes(b->index, NULL, 0));
  const char *why;
  int err =
      mprof__view_pyramid_find(b->path, &b->key, b->index, &why, &b->pyramid);
  if (!err) return 1;
  mprof_index_free(b->index);
  b->index = NULL;
  return err == MPROF_EINVAL ? 0 : err;
}

/* The trace opened first, then its index and pyramid read or made from
 * it: 1, 0 where the trace is not one to view this way (nothing kept), or
 * an mprof error. */
static int open_traced(mprof_view_big_t *b, uint64_t budget_bytes,
                       mprof_progress_fn progress, void *progress_context) {
  if (!mprof__view_open_too_big(b->path, budget_bytes, tell, b, &b->model_bytes,
                                &b->trace))
    return 0;
  b->trace_state = TRACE_OPEN;
  int err = mprof_index_key(b->path, b->trace, &b->key);
  if (!err) err = mprof_index_open(b->path, b->trace, 0, NULL, NULL, &b->index);
  if (!err)
    err = mprof__view_pyramid_open(b->path, b->trace, b->index, progress,
                                   progress_context, &b->built, &b->refused,
                                   &b->pyramid);
  return err ? err : 1;
}

int mprof__view_big_open(const char *path, uint64_t budget_bytes,
                         mprof_diag_fn diag, void *diag_context,
                         mprof_progress_fn progress, void *progress_context,
                         mprof_view_big_t **out) {
  *out = NULL;
  if (!strcmp(path, "-") || mprof_trace_is_merged(path)) return 0;
  mprof_view_big_t *b = big_new(path, budget_bytes, diag, diag_context);
  if (!b) return MPROF_ENOMEM;
  int opened = open_keyed(b);
  if (opened == 1 && b->model_bytes <= budget_bytes)
    opened = 0; /* whole */
  else if (!opened)
    opened = open_traced(b, budget_bytes, progress, progress_context);
  if (opened <= 0) {
    mprof__view_big_free(b);
    return opened;
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

/* What the window's thread and the opener share, freed by the last. */
static void destroy(mprof_view_big_t *b) {
  mprof_index_free(b->index);
  if (b->trace) mprof_trace_close(b->trace);
  pthread_mutex_destroy(&b->lock);
  free(b->path);
  free(b);
}

void mprof__view_big_free(mprof_view_big_t *b) {
  if (!b) return;
  drop_model(b); /* the window's own, before the opener may free b */
  mprof_pyramid_free(b->pyramid);
  b->pyramid = NULL;
  pthread_mutex_lock(&diag_lock);
  pthread_mutex_lock(&b->lock);
  int abandoned = b->abandoned = b->trace_state == TRACE_OPENING;
  pthread_mutex_unlock(&b->lock);
  pthread_mutex_unlock(&diag_lock);
  if (!abandoned) destroy(b); /* else the opener does, at its end */
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

/* The rows of what the last frame was drawn from: the model's, or the
 * pyramid's shown (those past its rows folded into its last). */
static uint32_t rows_drawn(const mprof_view_big_t *b) {
  if (b->modelled) return mprof_model_view(b->doc->model)->row_count;
  const mprof_cells_t *l = b->pyramid->levels[0];
  return l->row_count < l->rows ? l->row_count : l->rows;
}

/* px held from 0 to where the last row drawn reaches the top, as a model's
 * pane holds its scroll (mprof_timeline_scroll_to()). */
static double held_scroll(const mprof_view_big_t *b, double px) {
  uint32_t rows = rows_drawn(b);
  double last = rows ? (double)(rows - 1) * MPROF_SCENE_ROW_PX : 0;
  return !(px > 0) ? 0 : px > last ? last : px;
}

double mprof__view_big_scroll_px(const mprof_view_big_t *b) {
  return held_scroll(b, b->scroll);
}

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
  return !mprof__view_window_bytes(b->index, t0, t1, &bytes) &&
         bytes <= b->window_budget;
}

/* The model of [t0, t1)'s packets as a doc and its timeline in b, or an
 * mprof error. */
static int make_model(mprof_view_big_t *b, int64_t t0, int64_t t1, int width,
                      int height) {
  int err =
      mprof__view_window_doc(b->path, b->trace, b->index, t0, t1, &b->doc);
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
 * before, or the trace is still opening (its end is news: a redraw), or
 * changed since it was indexed (the warning says so), or an mprof error
 * (the range remembered as failed). */
static int window_model(mprof_view_big_t *b, int width, int height) {
  if (b->doc && b->doc_t0 <= b->t0 && b->t1 <= b->doc_t1) return 1;
  drop_model(b);
  if (changed(b) ||
      (b->failed && b->failed_t0 == b->t0 && b->failed_t1 == b->t1))
    return 0;
  double half = ((double)b->t1 - (double)b->t0) / 2;
  int64_t t0 = held_ns((double)b->t0 - half),
          t1 = held_ns((double)b->t1 + half);
  if (!window_fits(b, t0, t1)) {
    t0 = b->t0, t1 = b->t1;
    if (!window_fits(b, t0, t1)) return 0;
  }
  int ready = trace_ready(b);
  if (ready == 1 || !mprof__view_big_check(b)) return 0;
  int err = ready ? ready : make_model(b, t0, t1, width, height);
  b->failed = err != 0;
  b->failed_t0 = b->t0, b->failed_t1 = b->t1;
  return err ? err : 1;
}

/* The pyramid's frame of the range in view, from the first row the
 * scroll shows on. */
static int draw_pyramid(cairo_t *cr, const mprof_view_big_t *b, int width,
                        int height) {
  mprof_cells_t *frame;
  uint32_t scroll = (uint32_t)held_scroll(b, b->scroll);
  int err = mprof_pyramid_frame(
      b->pyramid, b->t0, b->t1, mprof_scene_cells_columns((uint32_t)width),
      mprof_scene_cells_first_row(scroll),
      mprof_scene_cells_rows_to((uint32_t)height, scroll), &frame);
  if (err) return err;
  err = mprof__view_paint_cells(cr, frame, (uint32_t)width, (uint32_t)height,
                                scroll);
  mprof_cells_free(frame);
  return err;
}

/* The frame of the range in view: the model's, or the pyramid's. */
static int draw_frame(cairo_t *cr, mprof_view_big_t *b, int width, int height) {
  b->width = width;
  int model = window_model(b, width, height);
  b->modelled = model > 0;
  if (model <= 0) {
    int err = draw_pyramid(cr, b, width, height);
    return model ? model : err;
  }
  mprof_timeline_resize(b->tl, 0, width, height);
  mprof_timeline_set_range(b->tl, (double)b->t0, (double)b->t1);
  mprof_timeline_scroll_to(b->tl, b->scroll);
  return mprof__view_draw(cr, b->tl, 0);
}

int mprof__view_big_draw(cairo_t *cr, mprof_view_big_t *b, int width,
                         int height) {
  int err = draw_frame(cr, b, width, height);
  start_opening(b); /* once the first frame is out */
  return err;
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

void mprof__view_big_scroll(mprof_view_big_t *b, double dy) {
  b->scroll = held_scroll(b, held_scroll(b, b->scroll) - dy);
}

void mprof__view_big_fit(mprof_view_big_t *b) {
  mprof__view_big_set_range(b, b->whole_t0, b->whole_t1);
  b->scroll = 0;
}
