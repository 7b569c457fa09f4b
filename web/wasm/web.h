/* web.h -- the browser viewer's C side (compiled to WebAssembly): the API
 * that JavaScript calls (api.c) besides the view state's (timeline.h), and
 * the JSON texts it answers with (json.c).  Not installed; nothing outside
 * web/wasm includes it. */
#ifndef MPROF_WEB_H
#define MPROF_WEB_H

#include <stddef.h>
#include <stdint.h>

#include "mprof/model.h"
#include "timeline.h"

/* One open trace: its model and analysis. */
typedef struct mprof_web_s mprof_web_t;

/* A growing JSON text. */
typedef struct mprof_web_json_s {
  char *text;
  size_t length, capacity;
} mprof_web_json_t;

/* --- The API JavaScript calls (api.c) ------------------------------------- */

/* Memory for JS to fill (a trace's bytes, a search text); free with
 * mprof_web_free(). */
void *mprof_web_alloc(size_t size);
void mprof_web_free(void *p);

/* Open a trace from bytes allocated by mprof_web_alloc(), which it frees
 * once the model is built (or on failure).  Returns NULL on failure: see
 * mprof_web_last_error() and mprof_web_strerror(). */
mprof_web_t *mprof_web_open(uint8_t *bytes, size_t size);
/* Open the model of the first `size` bytes of a trace still being read
 * (a preview; the bytes stay the caller's).  NULL on failure, as above. */
mprof_web_t *mprof_web_open_prefix(uint8_t *bytes, size_t size);
int mprof_web_last_error(void);
const char *mprof_web_strerror(int error);
void mprof_web_close(mprof_web_t *w);

/* The trace's model, for the view state (mprof_timeline_show()). */
const mprof_model_t *mprof_web_model(const mprof_web_t *w);
/* The trace's analysis, made the first time it is asked for (not before
 * the first frame), for mprof_timeline_show_finding(); NULL if memory ran
 * out. */
const mprof_analysis_t *mprof_web_analysis(mprof_web_t *w);
/* The kind of arrow `arrow` (a primitive's `thread` for arrows), as
 * mprof_arrow_kind_name() names it; "" if there is no such arrow. */
const char *mprof_web_arrow_kind(const mprof_web_t *w, int arrow);

/* JSON answers, valid until the next JSON answer of the same trace:
 * summary (duration, rows, counters, palette), one thread's details,
 * the analysis' findings, and where trace b first diverges from a. */
const char *mprof_web_summary(mprof_web_t *w);
const char *mprof_web_thread(mprof_web_t *w, int thread);
const char *mprof_web_findings(mprof_web_t *w);
const char *mprof_web_diverge(mprof_web_t *a, const mprof_web_t *b);

/* One open trace of model (finished), which it then owns; NULL (the model
 * freed) if err is not 0 or memory runs out, mprof_web_last_error() set. */
mprof_web_t *mprof_web_of_model(mprof_model_t *model, int err);

/* --- A trace bigger than the page's memory (big.c) ------------------------
 *
 * Read by its index: the page gives the trace's head (the bytes before its
 * first packet) and either the index `mprof index` wrote (checked against
 * the trace) or images of its slots a stretch at a time, indexed here;
 * then the density of any range comes from the index alone, and the model
 * of a window from an image of the packets the index names for it.
 * Offsets and sizes in the file are doubles (exact below 2^53 bytes). */
typedef struct mprof_web_big_s mprof_web_big_t;

/* NULL if the head is not an mprof trace's, or memory ran out. */
mprof_web_big_t *mprof_web_big_new(const uint8_t *head, size_t head_size,
                                   double file_size);
void mprof_web_big_close(mprof_web_big_t *b);
uint32_t mprof_web_big_packet_size(const mprof_web_big_t *b);
/* Take the index file's bytes (the caller's) if it is good and of this
 * trace (its size and uuid; its modification time as the page knows it,
 * to the ms: mtime_ms, or < 0 for not known): "" if taken, else why not. */
const char *mprof_web_big_use_index(mprof_web_big_t *b, const uint8_t *bytes,
                                    size_t size, double mtime_ms);
/* An image of `slots` slots, the head in front, for the page to copy
 * packets into, slot k at head_size + k x packet size; NULL if memory ran
 * out.  mprof_web_big_index_image() and mprof_web_big_open_window() free
 * it. */
uint8_t *mprof_web_big_image(const mprof_web_big_t *b, size_t slots);
/* Index the packets of an image of the file's slots from file_offset on.
 * Returns 0 or an error. */
int mprof_web_big_index_image(mprof_web_big_t *b, uint8_t *image, size_t slots,
                              double file_offset);
/* {duration (ns), events, packets, rows, indexes} */
const char *mprof_web_big_summary(mprof_web_big_t *b);
/* The name of the process that wrote the trace, as its metadata says
 * (mprof_trace_process_name()), or "" if it says none. */
const char *mprof_web_big_process(const mprof_web_big_t *b);
/* A row of the density: the ring streams, by instance (ascending); -1
 * past the last (mprof_web_big_summary()'s rows). */
double mprof_web_big_row(const mprof_web_big_t *b, size_t row);
/* Events per row per column of [t0_ns, t1_ns] cut into `columns`
 * (row-major), from the index alone; valid until the next call. */
float *mprof_web_big_density(mprof_web_big_t *b, double t0_ns, double t1_ns,
                             size_t columns);
size_t mprof_web_big_window(mprof_web_big_t *b, double t0_ns, double t1_ns,
                            int names);
const double *mprof_web_big_window_offsets(const mprof_web_big_t *b);
mprof_web_t *mprof_web_big_open_window(mprof_web_big_t *b, uint8_t *image,
                                       size_t slots);

/* --- JSON (json.c) ----------------------------------------------------------
 */

void mprof_web_json_raw(mprof_web_json_t *j, const char *text);
/* NUL-terminate and return the text ("null" if memory ran out). */
const char *mprof_web_json_done(mprof_web_json_t *j);
void mprof_web_json_summary(mprof_web_json_t *j, const mprof_model_t *m);
void mprof_web_json_thread(mprof_web_json_t *j, const mprof_model_t *m,
                           const mprof_analysis_t *a, uint32_t thread);
void mprof_web_json_findings(mprof_web_json_t *j, const mprof_model_t *m,
                             const mprof_analysis_t *a);
void mprof_web_json_divergence(mprof_web_json_t *j, const mprof_model_t *a,
                               const mprof_model_t *b);

#endif /* MPROF_WEB_H */
