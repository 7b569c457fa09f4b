/* cmd_export.c -- `mprof export [--format=chrome|otlp] TRACE... -o OUT`:
 * the model of the traces, with the findings `mprof report` gives, written
 * by the export library (mprof/export.h, src/export/) as Chrome's Trace
 * Event Format or OTLP/JSON.  Here: the command line, the output file,
 * the analysis and the progress line.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char help[] =
    "usage: mprof export [--format=chrome|otlp] [--offset NAME=+-NS]...\n"
    "                    [--align] [--redact] TRACE... [-o OUT]\n"
    "Write traces as Chrome's Trace Event Format (JSON) for Chrome DevTools\n"
    "and Perfetto, or as OTLP/JSON spans for an OpenTelemetry collector, to\n"
    "OUT (default: standard output), with the findings `mprof report` gives\n"
    "(Chrome: instants and slices of category finding; OTLP: spans of the\n"
    "scope mprof.findings).  Several traces go on one time axis,\n"
    "aligned by their wall-clock anchors; --offset moves the trace NAME (its\n"
    "path or file name) by NS nanoseconds; --align then aligns them by the\n"
    "messages they exchanged (send/receive labels, see docs/interop.md),\n"
    "and says how on stderr.  --redact writes copies of the traces with\n"
    "their labels and names redacted (as `mprof redact` does, with a random\n"
    "key), named trace-1.ctf, trace-2.ctf..., and exports those.  -o names\n"
    "the output file.\n"
    "examples:\n"
    "  mprof export trace.ctf -o trace.json    (open it in ui.perfetto.dev)\n"
    "  mprof export --format=otlp --align client.ctf server.ctf -o spans.json\n";

/* The findings the export carries: the report's (damaged: events are
 * missing, as `mprof report` is told). */
static int export_analyse(const mprof_model_t *m, int damaged,
                          mprof_analysis_t *out) {
  mprof_analysis_options_t options = {0, 0, damaged};
  return mprof_model_analyse_with(m, &options, out);
}

/* Write the model of set, with its findings, to f in format: 0 or an
 * mprof error. */
static int write_export(FILE *f, const char *format, const mprof_model_t *m,
                        const cli_traces_t *set, int damaged) {
  mprof_analysis_t analysis;
  cli_progress_phase(set->progress, "export: analysing", 0, NULL);
  int err = export_analyse(m, damaged, &analysis);
  if (err) return err;
  int otlp = !strcmp(format, "otlp");
  cli_progress_phase(set->progress, "export: writing", 0,
                     otlp ? "span" : "item");
  mprof_export_options_t options = {(const mprof_trace_t *const *)set->traces,
                                    (const char *const *)set->paths,
                                    (size_t)set->count,
                                    &analysis,
                                    set->progress ? cli_progress_packets : NULL,
                                    set->progress};
  err = otlp ? mprof_export_otlp(f, m, &options)
             : mprof_export_chrome(f, m, &options);
  mprof_analysis_free(&analysis);
  return err;
}

/* Write the model to path ("-": standard output) in format: an exit
 * code.  On a terminal the JSON scrolling by is the progress: a progress
 * line would only be torn by it. */
static int export_to(const char *path, const char *format,
                     const mprof_model_t *m, const cli_traces_t *set,
                     int damaged) {
  mprof_output_t out;
  int opened = mprof_output_open(&out, path) == 0;
  if (!opened || (out.f == stdout && isatty(STDOUT_FILENO)))
    cli_progress_phase(set->progress, NULL, 0, NULL);
  if (!opened) {
    return cli_fail(CLI_FAILED, "export", path, "%s", strerror(errno));
  }
  int err = write_export(out.f, format, m, set, damaged);
  int failed = mprof_output_close(&out, !err) || err;
  cli_progress_finish(set->progress);
  if (err && err != MPROF_EIO)
    return cli_fail(CLI_FAILED, "export", path, "%s", mprof_strerror(err));
  if (failed) cli_output_failed("export", path);
  return failed ? CLI_FAILED : CLI_OK;
}

int cmd_export(int argc, char **argv) {
  cli_combine_t combine = {.output = "-", .format = "chrome"};
  int code = cli_combine_options(&combine, argc, argv, help,
                                 "trace.ctf -o trace.json");
  if (code != CLI_OK || combine.help) return code;
  if (strcmp(combine.format, "chrome") && strcmp(combine.format, "otlp"))
    return cli_fail(CLI_USAGE, "export", "--format",
                    "no format %s; give "
                    "chrome or otlp",
                    combine.format);
  if (strcmp(combine.output, "-") &&
      (code = cli_output_check("export", "-o", combine.output)))
    return code;
  int problems = 0;
  cli_traces_t set = {.count = 0}; /* closed even if never opened */
  mprof_model_t *m = NULL;
  cli_progress_t progress;
  cli_progress_start(&progress, "export", 0);
  combine.progress = &progress;
  cli_redacted_t redacted = {.count = 0};
  if (combine.redact &&
      !(code = cli_redact_inputs(combine.paths, combine.count, &problems,
                                 &redacted)) &&
      !(code = cli_redacted_offsets(&redacted, &combine))) {
    combine.paths = redacted.paths;
    combine.redacted = &redacted;
  }
  if (code == CLI_OK) code = cli_combine_load(&combine, &set, &problems, &m);
  if (code == CLI_OK)
    code = export_to(combine.output, combine.format, m, &set, problems > 0);
  cli_progress_finish(&progress);
  mprof_model_free(m);
  cli_traces_close(&set);
  cli_redacted_remove(&redacted);
  return code == CLI_OK && problems ? CLI_DAMAGED : code;
}
