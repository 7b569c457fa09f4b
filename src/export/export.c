/* export.c -- what the Chrome and OTLP writers share (export_internal.h):
 * their options checked, progress. */
#include "export_internal.h"

int mprof__export_begin(const mprof_model_t *model,
                        const mprof_export_options_t *options,
                        mprof__export_progress_t *progress) {
  if (!model || !options || !options->names || !options->traces ||
      options->count == 0 || options->count > MPROF_MODEL_MAX_TRACES)
    return MPROF_EINVAL;
  *progress = (mprof__export_progress_t){options->progress,
                                         options->progress_context, 0, 0};
  return 0;
}

void mprof__export_step(mprof__export_progress_t *p) {
  if (p->fn && ++p->done % 1024 == 0) p->fn(p->context, p->done, p->total);
}

int mprof__export_result(FILE *f) { return ferror(f) ? MPROF_EIO : 0; }
