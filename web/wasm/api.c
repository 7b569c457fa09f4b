/* api.c -- the C API the browser viewer calls, compiled with the reader and
 * the model to WebAssembly (web/CMakeLists.txt).  JavaScript hands over the
 * bytes of a trace file; this opens them from memory, builds the model, the
 * analysis and the scene, and answers in numbers, in the scene's display
 * list (read from JS as typed arrays) and in small JSON texts.
 *
 * Trace strings go into the JSON escaped (quote, backslash, control
 * characters); bytes that are not UTF-8 become U+FFFD when JS decodes.
 */
#include <stdlib.h>
#include <string.h>

#include "mprof.h"
#include "scene.h"
#include "web.h"

struct mprof_web_s {
  mprof_model_t *model;
  mprof_analysis_t
      analysis; /* made on first use (not before the first frame) */
  int analysed;
  mprof_scene_t *scene;
  uint8_t *highlighted, *matches, *counters_shown;
  int any_highlighted, any_matches;
  int64_t axis_offset;          /* compare: see mprof_web_align() */
  int64_t *scale_lo, *scale_hi; /* compare: shared counter scales (one
                                   block), or NULL */
  mprof_viewport_t viewport; /* of the last build */
  mprof_web_json_t json;     /* the last JSON answer */
};

static int last_error;

/* Traces from this size on are counted before their model is built. */
#define COUNT_FROM (16u << 20)

void *mprof_web_alloc(size_t size) { return malloc(size ? size : 1); }

void mprof_web_free(void *p) { free(p); }

int mprof_web_last_error(void) { return last_error; }

const char *mprof_web_strerror(int error) { return mprof_strerror(error); }

void mprof_web_close(mprof_web_t *w) {
  if (!w)
    return;
  mprof_scene_free(w->scene);
  if (w->analysed)
    mprof_analysis_free(&w->analysis);
  mprof_model_free(w->model);
  free(w->highlighted);
  free(w->matches);
  free(w->counters_shown);
  free(w->scale_lo); /* scale_hi is in the same block */
  free(w->json.text);
  free(w);
}

/* The model of a trace's bytes.  Bytes it owns (own) are freed as soon as
 * the model holds every event (it keeps its own copies of the strings),
 * before the layout: the heap's peak is then the trace or the layout's
 * work, not both. */
static int open_model(mprof_web_t *w, uint8_t *bytes, size_t size, int own) {
  mprof_trace_t *trace;
  int err = mprof_trace_open_memory(bytes, size, "trace", NULL, NULL, &trace);
  if (!err) {
    /* the arrays of a big trace's model made at their size at once (a
     * census of its events first): the WebAssembly heap cannot grow one in
     * place, and never shrinks; a small one's grow as they fill, sooner */
    const mprof_trace_t *const traces[] = {trace};
    mprof_model_sizes_t sizes;
    int count = size >= COUNT_FROM;
    if (count)
      err = mprof_model_count(traces, 1, &sizes);
    if (!err)
      err = mprof_model_feed_many(traces, 1, NULL, count ? &sizes : NULL,
                                  &w->model);
    mprof_trace_close(trace);
  }
  if (own)
    free(bytes);
  if (!err)
    err = mprof_model_finish(w->model);
  if (!err)
    err = mprof_scene_new(&w->scene);
  if (err)
    return err;
  const mprof_model_view_t *v = mprof_model_view(w->model);
  w->highlighted = calloc(v->thread_count + 1, 1);
  w->matches = calloc(v->thread_count + 1, 1);
  w->counters_shown = calloc(v->counter_count + 1, 1);
  if (!w->highlighted || !w->matches || !w->counters_shown)
    return MPROF_ENOMEM;
  memset(w->counters_shown, 1, v->counter_count); /* all shown at first */
  return 0;
}

static mprof_web_t *open_web(uint8_t *bytes, size_t size, int own) {
  mprof_web_t *w = calloc(1, sizeof *w);
  if (!w) {
    if (own)
      free(bytes);
    last_error = MPROF_ENOMEM;
    return NULL;
  }
  last_error = open_model(w, bytes, size, own);
  if (last_error) {
    mprof_web_close(w);
    return NULL;
  }
  return w;
}

mprof_web_t *mprof_web_open(uint8_t *bytes, size_t size) {
  return open_web(bytes, size, 1);
}

/* The reader takes a prefix as a trace cut short: the packets past its end
 * are absent, a packet it cuts keeps the events before the cut. */
mprof_web_t *mprof_web_open_prefix(uint8_t *bytes, size_t size) {
  return open_web(bytes, size, 0);
}

/* The analysis, made the first time it is asked for; NULL if memory ran
 * out. */
static const mprof_analysis_t *analysis(mprof_web_t *w) {
  if (!w->analysed && mprof_model_analyse(w->model, &w->analysis) == 0)
    w->analysed = 1;
  return w->analysed ? &w->analysis : NULL;
}

/* --- Drawing
 * ------------------------------------------------------------------ */

int mprof_web_build(mprof_web_t *w, double t0_ns, double t1_ns, int width_px,
                    int height_px, int scroll_px, int row_height_px) {
  mprof_viewport_t vp = {(int64_t)t0_ns,
                         (int64_t)t1_ns,
                         (uint32_t)width_px,
                         (uint32_t)height_px,
                         (uint32_t)(scroll_px > 0 ? scroll_px : 0),
                         (uint32_t)row_height_px};
  if (width_px <= 0 || height_px <= 0 || row_height_px <= 0)
    return MPROF_EINVAL;
  mprof_scene_options_t opt = {w->any_highlighted ? w->highlighted : NULL,
                               w->any_matches ? w->matches : NULL,
                               w->counters_shown, NULL};
  w->viewport = vp;
  int err = mprof_scene_build(w->scene, w->model, &vp, &opt);
  size_t count;
  mprof_scene_prims(w->scene, &count);
  return err ? err : (int)count;
}

const mprof_prim_t *mprof_web_prims(const mprof_web_t *w) {
  size_t count;
  return mprof_scene_prims(w->scene, &count);
}

const char *mprof_web_text(const mprof_web_t *w) {
  return mprof_scene_text(w->scene);
}

const char *mprof_web_arrow_kind(const mprof_web_t *w, int arrow) {
  const mprof_model_view_t *v = mprof_model_view(w->model);
  if (arrow < 0 || (size_t)arrow >= v->arrow_count)
    return "";
  return mprof_arrow_kind_name((mprof_arrow_kind_t)v->arrows[arrow].kind);
}

int mprof_web_hit(const mprof_web_t *w, double x, double y) {
  uint32_t t = mprof_scene_hit(w->model, &w->viewport, x, y);
  return t == MPROF_NO_THREAD ? -1 : (int)t;
}

double mprof_web_duration(const mprof_web_t *w) {
  return (double)mprof_model_view(w->model)->duration_ns;
}

int mprof_web_row_count(const mprof_web_t *w) {
  return (int)mprof_model_view(w->model)->row_count;
}

int mprof_web_highlight(mprof_web_t *w, int thread) {
  size_t n = mprof_model_view(w->model)->thread_count;
  memset(w->highlighted, 0, n);
  w->any_highlighted = thread >= 0 && (size_t)thread < n;
  if (!w->any_highlighted)
    return 0;
  return (int)mprof_scene_touched(w->model, (uint32_t)thread, w->highlighted);
}

void mprof_web_show_counter(mprof_web_t *w, int counter, int shown) {
  if (counter >= 0 &&
      (size_t)counter < mprof_model_view(w->model)->counter_count)
    w->counters_shown[counter] = shown != 0;
}

/* --- Compare
 * ------------------------------------------------------------------ */

/* Offsets beyond +-100 years (or NaN) are taken as 0. */
#define MAX_OFFSET_NS 3e18

void mprof_web_align(mprof_web_t *w, double offset_ns) {
  int sane = offset_ns > -MAX_OFFSET_NS && offset_ns < MAX_OFFSET_NS;
  w->axis_offset = sane ? (int64_t)offset_ns : 0;
  mprof_scene_compare(w->scene, w->axis_offset, w->scale_lo, w->scale_hi);
}

double mprof_web_wall_offset(const mprof_web_t *a, const mprof_web_t *b) {
  int64_t wa = mprof_model_view(a->model)->wall_start_ns;
  int64_t wb = mprof_model_view(b->model)->wall_start_ns;
  return wa && wb ? (double)(wb - wa) : 0;
}

int mprof_web_share_scales(mprof_web_t *w, const mprof_web_t *other) {
  const mprof_model_view_t *v = mprof_model_view(w->model);
  size_t n = v->counter_count + 1;
  int64_t *lo = realloc(w->scale_lo, 2 * n * sizeof *lo), *hi = lo + n;
  if (!lo)
    return MPROF_ENOMEM;
  w->scale_lo = lo;
  w->scale_hi = hi;
  for (uint32_t c = 0; c < v->counter_count; c++) {
    const char *name = v->strings + v->counters[c].name;
    lo[c] = hi[c] = 0;
    mprof_scene_widen_scale(w->model, name, &lo[c], &hi[c]);
    mprof_scene_widen_scale(other->model, name, &lo[c], &hi[c]);
  }
  mprof_scene_compare(w->scene, w->axis_offset, lo, hi);
  return 0;
}

/* --- Search
 * ------------------------------------------------------------------- */

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* Whether text holds query, ignoring ASCII case. */
static int contains(const char *text, const char *query) {
  for (; *text; text++) {
    size_t i = 0;
    while (query[i] &&
           lower((unsigned char)text[i]) == lower((unsigned char)query[i]))
      i++;
    if (!query[i])
      return 1;
  }
  return 0;
}

static int thread_matches(const mprof_web_t *w, uint32_t i, const char *query) {
  const mprof_model_view_t *v = mprof_model_view(w->model);
  const mprof_thread_t *t = &v->threads[i];
  char name[256];
  if (contains(mprof_model_thread_name(w->model, i, name, sizeof name), query))
    return 1;
  for (uint32_t k = 0; k < t->label_count; k++)
    if (contains(v->strings + v->labels[t->first_label + k].text, query))
      return 1;
  return 0;
}

int mprof_web_search(mprof_web_t *w, const char *query) {
  const mprof_model_view_t *v = mprof_model_view(w->model);
  int count = 0;
  memset(w->matches, 0, v->thread_count);
  for (uint32_t i = 1; *query && i < v->thread_count; i++)
    count += w->matches[i] = (uint8_t)thread_matches(w, i, query);
  w->any_matches = count > 0;
  return count;
}

/* The first match after thread index `after` (wrapping), or -1. */
int mprof_web_next_match(const mprof_web_t *w, int after) {
  const mprof_model_view_t *v = mprof_model_view(w->model);
  for (size_t k = 1; k <= v->thread_count; k++) {
    size_t i = ((size_t)(after < 0 ? 0 : after) + k) % v->thread_count;
    if (w->matches[i])
      return (int)i;
  }
  return -1;
}

/* --- JSON answers ------------------------------------------------------------
 */

const char *mprof_web_summary(mprof_web_t *w) {
  mprof_web_json_t *j = &w->json;
  j->length = 0;
  mprof_web_json_summary(j, w->model);
  return mprof_web_json_done(j);
}

const char *mprof_web_thread(mprof_web_t *w, int thread) {
  mprof_web_json_t *j = &w->json;
  j->length = 0;
  /* Its findings and times come from the analysis, which a double-click
   * may ask for before the findings panel has (left empty if memory ran
   * out). */
  analysis(w);
  if (thread < 0 || (size_t)thread >= mprof_model_view(w->model)->thread_count)
    mprof_web_json_raw(j, "null");
  else
    mprof_web_json_thread(j, w->model, &w->analysis, (uint32_t)thread);
  return mprof_web_json_done(j);
}

const char *mprof_web_findings(mprof_web_t *w) {
  mprof_web_json_t *j = &w->json;
  j->length = 0;
  const mprof_analysis_t *a = analysis(w);
  if (a)
    mprof_web_json_findings(j, w->model, a);
  else
    mprof_web_json_raw(j, "null");
  return mprof_web_json_done(j);
}

const char *mprof_web_diverge(mprof_web_t *a, const mprof_web_t *b) {
  mprof_web_json_t *j = &a->json;
  j->length = 0;
  mprof_web_json_divergence(j, a->model, b->model);
  return mprof_web_json_done(j);
}
