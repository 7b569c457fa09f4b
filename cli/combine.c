/* combine.c -- several traces as one model, for the commands that put
 * processes or machines on one time axis (`mprof export`, `mprof merge`):
 * open them (mprof_trace_set_add: merged traces give their members), take
 * `--offset NAME=+-NS` corrections, build the model with
 * mprof_model_load_with() (with progress, if the command shows it). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_traces_open(cli_traces_t *set, char **paths, int count, int *problems) {
  memset(set, 0, sizeof *set);
  for (int i = 0; i < count; i++)
    if (cli_input_check(cli_command, paths[i]) ||
        mprof_trace_set_add(&set->opened, paths[i], cli_count_problem,
                            problems)) {
      cli_traces_close(set);
      return CLI_FAILED;
    }
  if (set->opened.count > MPROF_MODEL_MAX_TRACES) {
    cli_fail(0, cli_command, "TRACE", "at most %d traces at once",
             MPROF_MODEL_MAX_TRACES);
    cli_traces_close(set);
    return CLI_FAILED;
  }
  set->traces = set->opened.traces;
  set->paths = set->opened.paths;
  set->offsets_ns = set->opened.offsets_ns;
  set->count = (int)set->opened.count;
  return CLI_OK;
}

void cli_traces_close(cli_traces_t *set) {
  mprof_trace_set_close(&set->opened);
  memset(set, 0, sizeof *set);
}

int cli_names_trace(const char *name, size_t length, const char *path) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  return (strlen(path) == length && !memcmp(path, name, length)) ||
         (strlen(base) == length && !memcmp(base, name, length));
}

int cli_traces_offset(cli_traces_t *set, const char *spec) {
  const char *equals = strrchr(spec, '=');
  char *end;
  errno = 0;
  long long ns = equals ? strtoll(equals + 1, &end, 10) : 0;
  if (!equals || equals[1] == 0 || *end || errno)
    return cli_fail(CLI_USAGE, cli_command, "--offset",
                    "%s: give NAME=+NS or NAME=-NS", spec);
  for (int i = 0; i < set->count; i++)
    if (cli_names_trace(spec, (size_t)(equals - spec), set->paths[i])) {
      set->offsets_ns[i] += ns;
      return CLI_OK;
    }
  return cli_fail(CLI_USAGE, cli_command, "--offset",
                  "%s: no trace named "
                  "%.*s; give a TRACE's path or file name",
                  spec, (int)(equals - spec), spec);
}

int cli_traces_model(const cli_traces_t *set, mprof_model_t **out) {
  mprof_model_load_options_t options = {
      set->offsets_ns, set->progress ? cli_progress_packets : NULL,
      set->progress};
  int err = mprof_model_load_with((const mprof_trace_t *const *)set->traces,
                                  (size_t)set->count, &options, out);
  if (err) cli_progress_wipe();
  if (err == MPROF_EINVAL)
    cli_fail(0, cli_command, "TRACE",
             "legacy (mirage-profile) traces and "
             "mprof traces cannot share one time axis; give one kind");
  else if (err)
    cli_fail(0, cli_command, "TRACE", "%s", mprof_strerror(err));
  return err ? CLI_FAILED : CLI_OK;
}

static const char *const align_status[] = {
    "the reference", "messages both ways", "messages one way",
    "no messages with the others: not moved",
    "messages that contradict each other: not moved"};

/* "[low, high]" with unbounded ends as -inf / +inf. */
static void put_bounds(FILE *f, const mprof_alignment_t *a) {
  if (a->low_ns == INT64_MIN)
    fputs("[-inf, ", f);
  else
    fprintf(f, "[%" PRId64 ", ", a->low_ns);
  if (a->high_ns == INT64_MAX)
    fputs("+inf]", f);
  else
    fprintf(f, "%" PRId64 "]", a->high_ns);
}

int cli_traces_align(cli_traces_t *set, mprof_model_t **model) {
  cli_progress_wipe(); /* before the lines that say how */
  mprof_alignment_t *out = calloc((size_t)set->count, sizeof *out);
  if (!out || mprof_model_align(*model, (size_t)set->count, out)) {
    free(out);
    fprintf(stderr, "mprof: align: out of memory\n");
    return CLI_FAILED;
  }
  for (int i = 0; i < set->count; i++) {
    const mprof_alignment_t *a = &out[i];
    fputs("mprof: align: ", stderr);
    cli_put_escaped(stderr, set->paths[i], strlen(set->paths[i]));
    fprintf(stderr, ": offset %+" PRId64 " ns, %s", a->offset_ns,
            align_status[a->status]);
    if (a->messages) {
      fprintf(stderr, " (%" PRIu32 " messages allow ", a->messages);
      put_bounds(stderr, a);
      fputs(")", stderr);
    }
    fputs("\n", stderr);
    set->offsets_ns[i] += a->offset_ns;
  }
  free(out);
  mprof_model_free(*model);
  *model = NULL;
  return cli_traces_model(set, model);
}

int cli_combine_options(cli_combine_t *combine, int argc, char **argv,
                        const char *help, const char *example) {
  static const struct option options[] = {{"format", required_argument, 0, 'f'},
                                          {"offset", required_argument, 0, 'O'},
                                          {"output", required_argument, 0, 'o'},
                                          {"align", no_argument, 0, 'a'},
                                          {"redact", no_argument, 0, 'r'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "f:o:h", options, NULL)) != -1) {
    if (c == 'f')
      combine->format = optarg;
    else if (c == 'o')
      combine->output = optarg;
    else if (c == 'a')
      combine->align = 1;
    else if (c == 'r')
      combine->redact = 1;
    else if (c == 'O' && combine->offset_count < MPROF_MODEL_MAX_TRACES)
      combine->offsets[combine->offset_count++] = optarg;
    else if (c == 'h')
      return combine->help = 1, fputs(help, stdout), CLI_OK;
    else
      return cli_option_error(cli_command, argv, "f:o:h");
  }
  combine->paths = argv + optind;
  combine->count = argc - optind;
  return combine->count > 0 ? CLI_OK
                            : cli_missing(cli_command, "TRACE", example);
}

int cli_combine_load(const cli_combine_t *combine, cli_traces_t *set,
                     int *problems, mprof_model_t **model) {
  int code = cli_traces_open(set, combine->paths, combine->count, problems);
  set->progress = combine->progress;
  for (int i = 0; code == CLI_OK && i < combine->offset_count; i++)
    code = cli_traces_offset(set, combine->offsets[i]);
  if (code == CLI_OK && combine->redacted)
    code = cli_redacted_name(combine->redacted, set);
  if (code == CLI_OK) code = cli_traces_model(set, model);
  if (code == CLI_OK && combine->align) code = cli_traces_align(set, model);
  return code;
}
