/* exporter.c -- a program built against the installed export library
 * (mprof/export.h): it writes the trace named on its command line as a
 * Chrome trace, findings included, to standard output, or says why not
 * (docs/interop.md has this example). */
#include <stdio.h>

#include <mprof/export.h>

static int export_chrome(const mprof_trace_t *trace, const char *name,
                         FILE *out) {
  mprof_model_t *model;
  int err = mprof_model_load(trace, &model);
  if (err) return err;
  mprof_export_options_t options = {&trace, &name, 1, NULL, NULL, NULL};
  err = mprof_export_chrome(out, model, &options);
  mprof_model_free(model);
  return err;
}

int main(int argc, char **argv) {
  if (argc != 2) return fputs("usage: exporter TRACE\n", stderr), 2;
  mprof_trace_t *trace;
  int err = mprof_trace_open(argv[1], NULL, NULL, &trace);
  if (!err) {
    err = export_chrome(trace, argv[1], stdout);
    mprof_trace_close(trace);
  }
  if (err) fprintf(stderr, "exporter: %s: %s\n", argv[1], mprof_strerror(err));
  return err ? 1 : 0;
}
