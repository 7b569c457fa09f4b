/* cmd_redact.c -- `mprof redact [--keep CLASS]... [--salt S] [--map FILE]
 * TRACE... -o OUT`: a copy of traces that can be handed to someone else,
 * every label, counter name and string replaced by a pseudonym of its
 * class (the read library's redactor, mprof/redact.h); and the redacted
 * copies that `export --redact` and `html --redact` read instead of their
 * inputs. */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "mprof/redact.h"

static const char help[] =
    "usage: mprof redact [--keep CLASS]... [--salt S] [--map FILE] TRACE... "
    "-o OUT\n"
    "Write TRACE with every label, counter name, failure reason and the\n"
    "process name rewritten: a path keeps its depth and extension\n"
    "(/p1/p2/f3.log), an IP address becomes one of a documentation range\n"
    "(192.0.2.x, 2001:db8::x) with its port kept, a DNS name hN.example,\n"
    "other text label-N.  mprof's own label heads (\"fs open\", \"net send\n"
    "tcp\", \"timer\") are kept.  A text gets the same pseudonym everywhere,\n"
    "so threads, findings and the alignment of processes stay as they were.\n"
    "OUT is a trace file (-: standard output) for one trace; for a merged\n"
    "trace or several traces, a directory of trace-N.ctf files and their\n"
    "manifest.\n"
    "  --keep CLASS  leave paths, addresses, names or labels as they are\n"
    "  --salt S      the key of the pseudonyms: the same S gives the same\n"
    "                ones (default: random, different in every run)\n"
    "  --map FILE    write what became what (mode 0600), for the owner\n"
    "examples:\n"
    "  mprof redact trace.ctf -o shareable.ctf\n"
    "  mprof redact --keep paths --map map.txt trace.ctf.manifest -o shareable\n";

static int keep_class(const char *name, unsigned *keep) {
  static const struct {
    const char *name;
    unsigned class;
  } classes[] = {{"paths", MPROF_REDACT_PATHS},
                 {"addresses", MPROF_REDACT_ADDRESSES},
                 {"names", MPROF_REDACT_NAMES},
                 {"labels", MPROF_REDACT_LABELS}};
  for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
    if (!strcmp(name, classes[i].name)) {
      *keep |= classes[i].class;
      return 0;
    }
  cli_fail(0, "redact", "--keep",
           "no class %s; give paths, addresses, "
           "names or labels",
           name);
  return -1;
}

/* Whether output is one of the inputs (writing it would truncate what is
 * being read). */
static int is_an_input(const mprof_trace_set_t *set, const char *output) {
  for (size_t i = 0; i < set->count; i++)
    if (cli_same_file(set->paths[i], output)) return 1;
  return 0;
}

/* Redact the traces of set into output: a file for one plain trace, else
 * a directory with a manifest. */
static int redact(const mprof_trace_set_t *set, int plain, const char *output,
                  const char *salt, unsigned keep, const char *map,
                  int *problems) {
  if (is_an_input(set, output)) {
    return cli_fail(CLI_USAGE, "redact", output,
                    "would overwrite a trace it "
                    "reads; name another -o");
  }
  if (map && (is_an_input(set, map) || !strcmp(map, output))) {
    return cli_fail(CLI_USAGE, "redact", map,
                    "would overwrite a trace; "
                    "name another --map");
  }
  if (!strcmp(output, "-") && (!plain || isatty(STDOUT_FILENO))) {
    return cli_fail(CLI_USAGE, "redact", "-o -",
                    "takes one trace, and "
                    "standard output must not be a terminal");
  }
  mprof_redactor_t *r;
  if (mprof_redactor_new(salt, salt ? strlen(salt) : 0, keep, &r)) {
    return cli_fail(CLI_FAILED, "redact", "--salt",
                    "no random salt to be "
                    "had; give one");
  }
  int err = plain
                ? mprof_redact_trace(r, set->traces[0], output,
                                     cli_count_problem, problems)
                : mprof_redact_set(r, set, output, cli_count_problem, problems);
  /* A map named as the output in other words (./out.ctf, a link) is only
   * seen once the output is there; the output is left as it is. */
  if (!err && map && cli_same_file(map, output)) {
    mprof_redactor_free(r);
    return cli_fail(CLI_USAGE, "redact", map,
                    "is the output; name another --map");
  }
  if (!err && map && mprof_redactor_write_map(r, map)) {
    cli_fail(0, "redact", map, "%s", strerror(errno));
    err = MPROF_EIO;
  }
  mprof_redactor_free(r);
  return err ? CLI_FAILED : CLI_OK;
}

int cmd_redact(int argc, char **argv) {
  static const struct option options[] = {{"keep", required_argument, 0, 'k'},
                                          {"salt", required_argument, 0, 's'},
                                          {"map", required_argument, 0, 'm'},
                                          {"output", required_argument, 0, 'o'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
  const char *output = NULL, *salt = NULL, *map = NULL;
  unsigned keep = 0;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
    if (c == 'o')
      output = optarg;
    else if (c == 's')
      salt = optarg;
    else if (c == 'm')
      map = optarg;
    else if (c == 'k') {
      if (keep_class(optarg, &keep)) return CLI_USAGE;
    } else if (c == 'h')
      return fputs(help, stdout), CLI_OK;
    else
      return cli_option_error("redact", argv, "o:h");
  }
  if (optind >= argc)
    return cli_missing("redact", "TRACE", "trace.ctf -o shareable.ctf");
  if (!output)
    return cli_fail(CLI_USAGE, "redact", "-o",
                    "missing; name the trace to "
                    "write, as -o shareable.ctf");
  int problems = 0, count = argc - optind, failed = 0;
  mprof_trace_set_t set = {0};
  for (int i = optind; i < argc; i++)
    if (cli_input_check("redact", argv[i]) ||
        mprof_trace_set_add(&set, argv[i], cli_count_problem, &problems))
      failed = 1;
  int plain =
      count == 1 && set.count == 1 && !mprof_trace_is_merged(argv[optind]);
  int code = failed ? CLI_FAILED
                    : redact(&set, plain, output, salt, keep, map, &problems);
  mprof_trace_set_close(&set);
  return code == CLI_OK && problems ? CLI_DAMAGED : code;
}

/* --- Redacted copies of a command's inputs ----------------------------------
 */

/* Redact path (a trace or a merged trace) with r into dir/trace-N.ctf, a
 * file or, for a merged trace, a directory with its manifest; *copy gets
 * its path (malloc'd).  Returns an exit code. */
static int redact_input(mprof_redactor_t *r, const char *path, const char *dir,
                        int n, int *problems, char **copy) {
  mprof_trace_set_t set;
  if (cli_open_merged(path, problems, &set)) return CLI_FAILED;
  size_t size = strlen(dir) + 32;
  int err = MPROF_ENOMEM;
  if ((*copy = malloc(size))) {
    snprintf(*copy, size, "%s/trace-%d.ctf", dir, n);
    err = mprof_trace_is_merged(path)
              ? mprof_redact_set(r, &set, *copy, cli_count_problem, problems)
              : mprof_redact_trace(r, set.traces[0], *copy, cli_count_problem,
                                   problems);
  }
  mprof_trace_set_close(&set);
  return err ? CLI_FAILED : CLI_OK;
}

int cli_redact_inputs(char **paths, int count, int *problems,
                      cli_redacted_t *out) {
  const char *tmp = getenv("TMPDIR");
  out->paths = calloc((size_t)count + 1, sizeof *out->paths);
  out->count = count;
  snprintf(out->dir, sizeof out->dir, "%s/mprof-redact-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (!out->paths || !mkdtemp(out->dir)) {
    cli_fail(0, cli_command, out->dir, "%s", strerror(errno));
    out->dir[0] = 0;
    return CLI_FAILED;
  }
  mprof_redactor_t *r;
  if (mprof_redactor_new(NULL, 0, 0, &r))
    return cli_fail(CLI_FAILED, cli_command, "--redact",
                    "no random key to be had");
  int code = CLI_OK;
  for (int i = 0; code == CLI_OK && i < count; i++)
    code = redact_input(r, paths[i], out->dir, i + 1, problems, &out->paths[i]);
  mprof_redactor_free(r);
  return code;
}

int cli_redacted_name(cli_redacted_t *redacted, cli_traces_t *set) {
  size_t n = strlen(redacted->dir);
  redacted->names = calloc((size_t)set->count + 1, sizeof *redacted->names);
  if (!redacted->names)
    return cli_fail(CLI_FAILED, cli_command, "--redact", "out of memory");
  for (int i = 0; i < set->count; i++) {
    char *path = set->paths[i];
    int inside = !strncmp(path, redacted->dir, n) && path[n] == '/';
    redacted->names[i] = inside ? path + n + 1 : path;
  }
  set->paths = redacted->names;
  return CLI_OK;
}

/* The copy's path with spec's "=NS", into a new string (NULL: out of
 * memory). */
static char *copy_offset(const char *copy, const char *equals) {
  size_t size = strlen(copy) + strlen(equals) + 1;
  char *spec = malloc(size);
  if (spec) snprintf(spec, size, "%s%s", copy, equals);
  return spec;
}

int cli_redacted_offsets(cli_redacted_t *redacted, cli_combine_t *combine) {
  for (int i = 0; i < combine->offset_count; i++) {
    const char *spec = combine->offsets[i], *equals = strrchr(spec, '=');
    for (int k = 0; equals && k < redacted->count; k++) {
      if (!cli_names_trace(spec, (size_t)(equals - spec), combine->paths[k]) ||
          mprof_trace_is_merged(combine->paths[k]))
        continue;
      if (!(redacted->offsets[i] = copy_offset(redacted->paths[k], equals)))
        return cli_fail(CLI_FAILED, cli_command, "--offset", "out of memory");
      combine->offsets[i] = redacted->offsets[i];
      break;
    }
  }
  return CLI_OK;
}

static int remove_entry(const char *path, const struct stat *st, int type,
                        struct FTW *ftw) {
  (void)st, (void)type, (void)ftw;
  return remove(path);
}

void cli_redacted_remove(cli_redacted_t *redacted) {
  if (redacted->dir[0])
    nftw(redacted->dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
  for (int i = 0; redacted->paths && i < redacted->count; i++)
    free(redacted->paths[i]);
  free(redacted->paths);
  free(redacted->names);
  for (int i = 0; i < MPROF_MODEL_MAX_TRACES; i++) free(redacted->offsets[i]);
}
