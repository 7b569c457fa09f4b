/* combine.c -- several traces as one model, for the commands that put
 * processes or machines on one time axis (`mprof export`, `mprof merge`):
 * open them, take `--offset NAME=+-NS` corrections, build the model with
 * mprof_model_load_many(). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_traces_open(cli_traces_t *set, char **paths, int count,
                    int *problems) {
  memset(set, 0, sizeof *set);
  if (count > MPROF_MODEL_MAX_TRACES) {
    fprintf(stderr, "mprof: at most %d traces at once\n",
            MPROF_MODEL_MAX_TRACES);
    return CLI_USAGE;
  }
  set->traces = calloc((size_t)count, sizeof *set->traces);
  set->offsets_ns = calloc((size_t)count, sizeof *set->offsets_ns);
  if (!set->traces || !set->offsets_ns) {
    cli_traces_close(set);
    fprintf(stderr, "mprof: out of memory\n");
    return CLI_FAILED;
  }
  set->paths = paths;
  for (; set->count < count; set->count++)
    if (cli_open_trace(paths[set->count], problems,
                       &set->traces[set->count])) {
      cli_traces_close(set);
      return CLI_FAILED;
    }
  return CLI_OK;
}

void cli_traces_close(cli_traces_t *set) {
  for (int i = 0; i < set->count; i++) mprof_trace_close(set->traces[i]);
  free(set->traces);
  free(set->offsets_ns);
  memset(set, 0, sizeof *set);
}

/* Does NAME name trace path: the path itself, or its file name? */
static int names_trace(const char *name, size_t length, const char *path) {
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
  if (!equals || equals[1] == 0 || *end || errno) {
    fprintf(stderr, "mprof: --offset %s: want NAME=+NS or NAME=-NS\n", spec);
    return CLI_USAGE;
  }
  for (int i = 0; i < set->count; i++)
    if (names_trace(spec, (size_t)(equals - spec), set->paths[i])) {
      set->offsets_ns[i] += ns;
      return CLI_OK;
    }
  fprintf(stderr, "mprof: --offset %s: no trace named %.*s\n", spec,
          (int)(equals - spec), spec);
  return CLI_USAGE;
}

int cli_traces_model(const cli_traces_t *set, mprof_model_t **out) {
  int err = mprof_model_load_many((const mprof_trace_t *const *)set->traces,
                                  (size_t)set->count, set->offsets_ns, out);
  if (err == MPROF_EINVAL)
    fprintf(stderr, "mprof: legacy (mirage-profile) traces and mprof traces "
                    "cannot share one time axis\n");
  else if (err)
    fprintf(stderr, "mprof: %s\n", mprof_strerror(err));
  return err ? CLI_FAILED : CLI_OK;
}

static const char *const align_status[] = {
    "the reference", "messages both ways", "messages one way",
    "no messages with the others: not moved",
    "messages that contradict each other: not moved"};

/* "[low, high]" with unbounded ends as -inf / +inf. */
static void put_bounds(FILE *f, const mprof_alignment_t *a) {
  if (a->low_ns == INT64_MIN) fputs("[-inf, ", f);
  else fprintf(f, "[%" PRId64 ", ", a->low_ns);
  if (a->high_ns == INT64_MAX) fputs("+inf]", f);
  else fprintf(f, "%" PRId64 "]", a->high_ns);
}

int cli_traces_align(cli_traces_t *set, mprof_model_t **model) {
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
