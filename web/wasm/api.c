/* api.c -- the C API the browser viewer calls, compiled with the reader,
 * the model and the view core to WebAssembly (web/CMakeLists.txt).
 * JavaScript hands over the bytes of a trace file; this opens them from
 * memory, builds the model and the analysis, and answers in numbers and in
 * small JSON texts.  What is shown, and its display list, is the view
 * state of src/scene/timeline.h, whose functions JavaScript calls
 * directly with the models and analyses of these traces
 * (mprof_web_model(), mprof_web_analysis()).
 *
 * Trace strings go into the JSON escaped (quote, backslash, control
 * characters); bytes that are not UTF-8 become U+FFFD when JS decodes.
 */
#include <stdlib.h>

#include "mprof.h"
#include "web.h"

struct mprof_web_s {
  mprof_model_t *model;
  mprof_analysis_t
      analysis; /* made on first use (not before the first frame) */
  int analysed;
  mprof_web_json_t json; /* the last JSON answer */
};

static int last_error;

/* Traces from this size on are counted before their model is built. */
#define COUNT_FROM (16u << 20)

void *mprof_web_alloc(size_t size) { return malloc(size ? size : 1); }

void mprof_web_free(void *p) { free(p); }

int mprof_web_last_error(void) { return last_error; }

const char *mprof_web_strerror(int error) { return mprof_strerror(error); }

void mprof_web_close(mprof_web_t *w) {
  if (!w) return;
  if (w->analysed) mprof_analysis_free(&w->analysis);
  mprof_model_free(w->model);
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
    if (count) err = mprof_model_count(traces, 1, &sizes);
    if (!err)
      err = mprof_model_feed_many(traces, 1, NULL, count ? &sizes : NULL,
                                  &w->model);
    mprof_trace_close(trace);
  }
  if (own) free(bytes);
  return err ? err : mprof_model_finish(w->model);
}

static mprof_web_t *open_web(uint8_t *bytes, size_t size, int own) {
  mprof_web_t *w = calloc(1, sizeof *w);
  if (!w) {
    if (own) free(bytes);
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

mprof_web_t *mprof_web_of_model(mprof_model_t *model, int err) {
  mprof_web_t *w = err ? NULL : calloc(1, sizeof *w);
  last_error = err ? err : w ? 0 : MPROF_ENOMEM;
  if (!w) mprof_model_free(model);
  if (w) w->model = model;
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

const mprof_analysis_t *mprof_web_analysis(mprof_web_t *w) {
  if (!w->analysed && mprof_model_analyse(w->model, &w->analysis) == 0)
    w->analysed = 1;
  return w->analysed ? &w->analysis : NULL;
}

/* --- Numbers ----------------------------------------------------------------
 */

const mprof_model_t *mprof_web_model(const mprof_web_t *w) { return w->model; }

const char *mprof_web_arrow_kind(const mprof_web_t *w, int arrow) {
  const mprof_model_view_t *v = mprof_model_view(w->model);
  if (arrow < 0 || (size_t)arrow >= v->arrow_count) return "";
  return mprof_arrow_kind_name(
      (mprof_arrow_kind_t)mprof_arrow_at(v, (size_t)arrow).kind);
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
  mprof_web_analysis(w);
  if (thread < 0 || (size_t)thread >= mprof_model_view(w->model)->thread_count)
    mprof_web_json_raw(j, "null");
  else
    mprof_web_json_thread(j, w->model, &w->analysis, (uint32_t)thread);
  return mprof_web_json_done(j);
}

const char *mprof_web_findings(mprof_web_t *w) {
  mprof_web_json_t *j = &w->json;
  j->length = 0;
  const mprof_analysis_t *a = mprof_web_analysis(w);
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
