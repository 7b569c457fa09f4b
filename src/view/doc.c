/* doc.c -- a trace as the viewer holds it: read, modelled and analysed
 * once; replaced whole when re-read.  A merged trace (a manifest, or a
 * directory `mprof merge` wrote) is one document: its members' model on
 * one time axis, each at its manifest's offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

static char *copy_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *copy = malloc(n);
  if (copy) memcpy(copy, s, n);
  return copy;
}

static const char *file_name(const char *path) {
  if (!strcmp(path, "-")) return "stdin";
  const char *slash = strrchr(path, '/');
  return slash && slash[1] ? slash + 1 : path;
}

int mprof__view_doc_make(const char *path, mprof_model_t *model,
                         mprof_view_doc_t **out) {
  mprof_view_doc_t *doc = calloc(1, sizeof *doc);
  if (!doc) {
    mprof_model_free(model);
    return MPROF_ENOMEM;
  }
  doc->model = model;
  int err = mprof_model_analyse(model, &doc->analysis);
  doc->path = copy_string(path);
  doc->title = copy_string(file_name(path));
  if (!err && (!doc->path || !doc->title)) err = MPROF_ENOMEM;
  if (err) {
    mprof__view_doc_free(doc);
    return err;
  }
  *out = doc;
  return 0;
}

int mprof__view_doc_load(const char *path, mprof_diag_fn diag,
                         void *diag_context, mprof_progress_fn progress,
                         void *progress_context, mprof_view_doc_t **out) {
  mprof_trace_set_t set;
  int err = mprof_trace_open_merged(path, diag, diag_context, &set);
  if (err) return err;
  mprof_model_load_options_t options = {set.offsets_ns, progress,
                                        progress_context};
  mprof_model_t *model;
  err = mprof_model_load_with((const mprof_trace_t *const *)set.traces,
                              set.count, &options, &model);
  mprof_trace_set_close(&set);
  return err ? err : mprof__view_doc_make(path, model, out);
}

void mprof__view_doc_free(mprof_view_doc_t *doc) {
  if (!doc) return;
  if (doc->model) {
    mprof_analysis_free(&doc->analysis);
    mprof_model_free(doc->model);
  }
  free(doc->path);
  free(doc->title);
  free(doc);
}
