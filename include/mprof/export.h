/* mprof/export.h -- a model written out for other tools: Chrome's Trace
 * Event Format (JSON), which Chrome DevTools and Perfetto open, and
 * OTLP/JSON, the body an OpenTelemetry collector takes on POST
 * /v1/traces.  Both carry the analysis' findings (docs/interop.md,
 * docs/OTLP.md say where each item goes).
 *
 * The writers walk the model and write as they go: the JSON is never held
 * in memory, whatever the trace's size.  They only write to the stream
 * they are given; opening and closing it are the caller's.
 *
 *   mprof_export_options_t options = {traces, names, count, NULL, NULL,
 *                                     NULL};
 *   int err = mprof_export_chrome(stdout, model, &options);
 */
#ifndef MPROF_EXPORT_H
#define MPROF_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a writer needs beside the model. */
typedef struct mprof_export_options_s {
  /* The traces the model was loaded from, in its order
   * (mprof_model_load_many): their uuids make OTLP's ids. */
  const mprof_trace_t *const *traces;
  /* Per trace, its name (a path): Chrome's process name; OTLP's
   * mprof.trace.path, and service.name after its last '/'. */
  const char *const *names;
  size_t count; /* traces and names: all the model was loaded from */
  /* The findings to write (mprof_model_analyse_with() of this model);
   * NULL: the writer analyses the model with the default thresholds. */
  const mprof_analysis_t *analysis;
  /* Told now and then: done of total items written (NULL: not told). */
  mprof_progress_fn progress;
  void *progress_context; /* progress's first argument */
} mprof_export_options_t;

/* Write the model as a Chrome trace (JSON Object Format) to f: a process
 * per trace, async slices for the threads, their labels as instants, a
 * track per OS-thread stream with its running and idle slices, flows for
 * arrows and for messages between traces, counter tracks, and each
 * finding as a global instant and an async slice in category "finding".
 * Returns 0, MPROF_EINVAL (options missing, no trace or more than
 * MPROF_MODEL_MAX_TRACES), MPROF_ENOMEM or MPROF_EIO (f failed: ferror(f)
 * is set). */
int mprof_export_chrome(FILE *f, const mprof_model_t *model,
                        const mprof_export_options_t *options);

/* Write the model as an OTLP/JSON ExportTraceServiceRequest to f: a
 * resource per trace, a span per async thread (its parent the thread that
 * created it, its labels as events, the arrows and messages into it as
 * links), and a span per finding in the scope "mprof.findings", the child
 * of the thread at fault.  Returns as mprof_export_chrome(). */
int mprof_export_otlp(FILE *f, const mprof_model_t *model,
                      const mprof_export_options_t *options);

/* Trace text (any bytes: a traced program's labels) as valid UTF-8: a
 * byte that is not part of a valid UTF-8 sequence (nor a NUL) becomes the
 * four characters \xHH.  Writes at most 4 * length bytes and a NUL to out;
 * returns the length written, the NUL left out. */
size_t mprof_json_text(char *out, const char *text, size_t length);

/* The same text written to f as a JSON string, quotes included: ", \ and
 * control characters escaped, so the \ of a \xHH is written \\. */
void mprof_json_put_text(FILE *f, const char *text, size_t length);

#ifdef __cplusplus
}
#endif

#endif /* MPROF_EXPORT_H */
