/* export.c -- what the Chrome and OTLP writers share (export_internal.h):
 * their options checked, the findings to write, progress. */
#include "export_internal.h"

int mprof__export_begin(const mprof_model_t *model,
                        const mprof_export_options_t *options,
                        mprof_analysis_t *own,
                        const mprof_analysis_t **analysis,
                        mprof__export_progress_t *progress) {
  if (!model || !options || !options->names || !options->traces ||
      options->count == 0 || options->count > MPROF_MODEL_MAX_TRACES)
    return MPROF_EINVAL;
  *progress = (mprof__export_progress_t){options->progress,
                                         options->progress_context, 0, 0};
  *analysis = options->analysis;
  if (*analysis) return 0;
  int err = mprof_model_analyse(model, own);
  if (!err) *analysis = own;
  return err;
}

void mprof__export_end(mprof_analysis_t *own,
                       const mprof_analysis_t *analysis) {
  if (analysis == own) mprof_analysis_free(own);
}

void mprof__export_step(mprof__export_progress_t *p) {
  if (p->fn && ++p->done % 1024 == 0) p->fn(p->context, p->done, p->total);
}

int mprof__export_result(FILE *f) { return ferror(f) ? MPROF_EIO : 0; }

uint32_t mprof__finding_trace(const mprof_model_t *model,
                              const mprof_analysis_t *analysis,
                              const mprof_finding_t *finding) {
  if (finding->thread_count == 0) return 0;
  uint32_t t = analysis->finding_threads[finding->first_thread];
  return MPROF_MODEL_THREAD_TRACE(mprof_model_view(model)->threads[t].id);
}
