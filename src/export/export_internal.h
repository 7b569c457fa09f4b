/* export_internal.h -- what the two writers of mprof/export.h share: the
 * checks of their options, the findings they write (the caller's, or an
 * analysis of their own), and progress told in steps. */
#ifndef MPROF_EXPORT_INTERNAL_H
#define MPROF_EXPORT_INTERNAL_H

#include "mprof/export.h"

/* Progress: done of total items, told every 1024 steps. */
typedef struct mprof__export_progress_s {
  mprof_progress_fn fn;
  void *context;
  size_t done, total;
} mprof__export_progress_t;

/* A writer's start: options checked against the model, the findings in
 * *analysis (the caller's, else analysed into *own: free it with
 * mprof__export_end()), progress set up for total items.  Returns 0,
 * MPROF_EINVAL or MPROF_ENOMEM. */
int mprof__export_begin(const mprof_model_t *model,
                        const mprof_export_options_t *options,
                        mprof_analysis_t *own,
                        const mprof_analysis_t **analysis,
                        mprof__export_progress_t *progress);
void mprof__export_end(mprof_analysis_t *own, const mprof_analysis_t *analysis);

/* One more item written. */
void mprof__export_step(mprof__export_progress_t *progress);

/* A writer's result: 0, or MPROF_EIO if f failed. */
int mprof__export_result(FILE *f);

/* The trace (its index in the model) of a finding: that of the thread at
 * fault, trace 0 for a finding about no thread. */
uint32_t mprof__finding_trace(const mprof_model_t *model,
                              const mprof_analysis_t *analysis,
                              const mprof_finding_t *finding);

#endif /* MPROF_EXPORT_INTERNAL_H */
