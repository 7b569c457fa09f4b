/* export_internal.h -- what the two writers of mprof/export.h share: the
 * checks of their options, and progress told in steps. */
#ifndef MPROF_EXPORT_INTERNAL_H
#define MPROF_EXPORT_INTERNAL_H

#include "mprof/export.h"

/* Progress: done of total items, told every 1024 steps. */
typedef struct mprof__export_progress_s {
  mprof_progress_fn fn;
  void *context;
  size_t done, total;
} mprof__export_progress_t;

/* A writer's start: options checked, progress set up (its total is the
 * writer's to set).  Returns 0 or MPROF_EINVAL. */
int mprof__export_begin(const mprof_model_t *model,
                        const mprof_export_options_t *options,
                        mprof__export_progress_t *progress);

/* One more item written. */
void mprof__export_step(mprof__export_progress_t *progress);

/* A writer's result: 0, or MPROF_EIO if f failed. */
int mprof__export_result(FILE *f);

#endif /* MPROF_EXPORT_INTERNAL_H */
