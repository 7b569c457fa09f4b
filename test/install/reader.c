/* reader.c -- a program built against the installed reader and model
 * libraries (mprof/read.h, mprof/model.h): it opens the trace (or merged
 * trace) named on its command line and prints each async thread's name and
 * the findings' count, or the reader's error. */
#include <stdio.h>

#include <mprof/model.h>
#include <mprof/read.h>

static void print_diag(void *context, const char *message) {
  (void)context;
  fprintf(stderr, "reader: %s\n", message);
}

static int print_threads(const mprof_trace_set_t *set) {
  mprof_model_load_options_t options = {set->offsets_ns, NULL, NULL};
  mprof_model_t *model;
  int err = mprof_model_load_with((const mprof_trace_t *const *)set->traces,
                                  set->count, &options, &model);
  if (err) return err;
  const mprof_model_view_t *view = mprof_model_view(model);
  char name[128];
  for (uint32_t t = 0; t < view->thread_count; t++)
    printf("thread %s\n", mprof_model_thread_name(model, t, name, sizeof name));
  mprof_analysis_t analysis;
  err = mprof_model_analyse(model, &analysis);
  if (!err) {
    printf("stalled %zu\n", analysis.stall_count);
    mprof_analysis_free(&analysis);
  }
  mprof_model_free(model);
  return err;
}

int main(int argc, char **argv) {
  if (argc != 2) return fputs("usage: reader TRACE\n", stderr), 2;
  mprof_trace_set_t set;
  int err = mprof_trace_open_merged(argv[1], print_diag, NULL, &set);
  if (!err) {
    err = print_threads(&set);
    mprof_trace_set_close(&set);
  }
  if (err) fprintf(stderr, "reader: %s: %s\n", argv[1], mprof_strerror(err));
  return err ? 1 : 0;
}
