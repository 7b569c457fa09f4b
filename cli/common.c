/* common.c -- what the mprof subcommands share (cli.h): error lines, the
 * checks of inputs and outputs, opening traces, escaping, and the heap on
 * huge pages.  Linked into mprof and into mprof-view, the viewer that
 * `mprof view` starts (so that GTK is loaded by it alone). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

const char *cli_command = "mprof";

void cli_put_name(FILE *f, const char *text) {
  for (const unsigned char *c = (const unsigned char *)text; *c; c++)
    if (*c < 0x20 || *c == 0x7f)
      fprintf(f, "\\x%02x", *c);
    else
      fputc(*c, f);
}

int cli_fail(int code, const char *command, const char *what, const char *why,
             ...) {
  va_list args;
  cli_progress_wipe();
  fprintf(stderr, "mprof %s: ", command);
  cli_put_name(stderr, what);
  fputs(": ", stderr);
  va_start(args, why);
  vfprintf(stderr, why, args);
  va_end(args);
  fputc('\n', stderr);
  return code;
}

int cli_option_error(const char *command, char **argv, const char *shorts) {
  const char *arg = argv[optind - 1];
  char letter[3] = {'-', (char)optopt, 0};
  if (!optopt)
    return cli_fail(CLI_USAGE, command, arg,
                    "no such option; see mprof help %s", command);
  if (!strncmp(arg, "--", 2) && strchr(arg, '='))
    return cli_fail(CLI_USAGE, command, arg, "takes no value");
  if (!strncmp(arg, "--", 2) || strchr(shorts, optopt))
    return cli_fail(CLI_USAGE, command, strncmp(arg, "--", 2) ? letter : arg,
                    "needs a value; see mprof help %s", command);
  return cli_fail(CLI_USAGE, command, letter,
                  "no such option; see mprof help %s", command);
}

int cli_missing(const char *command, const char *what, const char *example) {
  return cli_fail(CLI_USAGE, command, what, "missing; for example: mprof %s %s",
                  command, example);
}

int cli_input_check(const char *command, const char *path) {
  struct stat st;
  if (!strcmp(path, "-")) return CLI_OK;
  if (stat(path, &st) < 0)
    return cli_fail(CLI_FAILED, command, path, "%s; give the path of a trace",
                    strerror(errno));
  if (S_ISDIR(st.st_mode) && !mprof_trace_is_merged(path))
    return cli_fail(CLI_FAILED, command, path,
                    "a directory, not a trace; give a trace file in it "
                    "(mprof record writes trace.ctf)");
  return CLI_OK;
}

int cli_parse_duration(const char *text, const char *end, double bare_ns,
                       int64_t *ns) {
  static const struct {
    const char *suffix;
    double scale;
  } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  char *rest;
  errno = 0;
  double value = strtod(text, &rest);
  if (errno || rest == text || rest > end || !(value >= 0)) return -1;
  double scale = rest == end ? bare_ns : 0;
  for (size_t i = 0; !scale && i < sizeof units / sizeof *units; i++) {
    size_t n = strlen(units[i].suffix);
    if ((size_t)(end - rest) == n && !strncmp(rest, units[i].suffix, n))
      scale = units[i].scale;
  }
  if (!scale || value * scale >= 9e18) return -1;
  *ns = (int64_t)(value * scale);
  return 0;
}

void cli_tell(const char *message) {
  cli_progress_wipe();
  fputs("mprof: ", stderr);
  cli_put_name(stderr, message); /* it names the file */
  fputc('\n', stderr);
}

void cli_count_problem(void *context, const char *message) {
  int *problems = context;
  (*problems)++;
  cli_tell(message);
}

int cli_open_trace(const char *path, int *problems, mprof_trace_t **out) {
  if (cli_input_check(cli_command, path)) return MPROF_EIO;
  return mprof_trace_open(path, cli_count_problem, problems, out);
}

int cli_open_trace_memory(const void *data, size_t size, const char *name,
                          int *problems, mprof_trace_t **out) {
  return mprof_trace_open_memory(data, size, name, cli_count_problem, problems,
                                 out);
}

int cli_open_merged(const char *path, int *problems, mprof_trace_set_t *out) {
  if (cli_input_check(cli_command, path)) return MPROF_EIO;
  return mprof_trace_open_merged(path, cli_count_problem, problems, out);
}

int cli_for_each_trace(char **paths, int count, cli_trace_fn fn,
                       void *context) {
  int problems = 0, failed = 0;
  for (int i = 0; i < count; i++) {
    mprof_trace_set_t set; /* a merged trace gives each of its members */
    if (cli_open_merged(paths[i], &problems, &set)) {
      failed = 1;
      continue;
    }
    for (size_t j = 0; j < set.count; j++)
      fn(context, set.paths[j], set.traces[j], &problems);
    mprof_trace_set_close(&set);
  }
  if (fflush(stdout)) return CLI_FAILED;
  return failed ? CLI_FAILED : problems ? CLI_DAMAGED : CLI_OK;
}

int cli_output_failed(const char *command, const char *what) {
  static int told;
  if (!told)
    cli_fail(0, command, what, "cannot write: %s",
             strerror(errno ? errno : EIO));
  told = 1;
  return CLI_FAILED;
}

void cli_put_escaped(FILE *f, const char *text, size_t length) {
  for (size_t i = 0; i < length; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c == '\n')
      fputs("\\n", f);
    else if (c == '\t')
      fputs("\\t", f);
    else if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20 || c >= 0x7f)
      fprintf(f, "\\x%02x", c);
    else
      fputc(c, f);
  }
}

/* The model of a big trace fills a few hundred MB of fresh memory, and on
 * 4 KiB pages the kernel's page faults cost more than the work (`mprof
 * report` of 10 M events: 3.3-3.6 s, against 1.5-2.1 s with huge pages;
 * docs/model.md, "Speed").  glibc puts its heap on transparent huge pages
 * only when told at start (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), so the
 * commands that build a model start again with that set, unless
 * GLIBC_TUNABLES is set already (the user's choice,
 * glibc.malloc.hugetlb=0 included); the others, which would only pay for
 * a second start, go on as they are.  The new start takes both variables
 * out again (cli_heap_settle): programs mprof runs get the user's
 * environment as it was. */
#define HUGE_PAGES_MARK "MPROF_HUGE_PAGES_STARTED"

/* Whether mprof may start a program with its settings: not where it runs
 * through an explicit loader (`ld.so mprof`: no interpreter, AT_BASE 0) or
 * inside valgrind (its preloads in LD_PRELOAD: it runs mprof in its own
 * process, and a new start would leave it). */
static int restartable(void) {
  const char *preload = getenv("LD_PRELOAD");
  return getauxval(AT_BASE) != 0 && !(preload && strstr(preload, "vgpreload"));
}

int cli_heap_settle(void) {
  if (!getenv(HUGE_PAGES_MARK)) return 0;
  unsetenv("GLIBC_TUNABLES");
  unsetenv(HUGE_PAGES_MARK);
  return 1;
}

void cli_exec_on_huge_pages(const char *path, char **argv) {
  if (!getenv("GLIBC_TUNABLES") && restartable() &&
      setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1) == 0 &&
      setenv(HUGE_PAGES_MARK, "1", 1) == 0)
    execv(path, argv);
  cli_heap_settle(); /* it could not: go on as we are */
}

int cli_in_build_tree(void) {
#ifdef MPROF_CLI_BUILD_DIR
  char self[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) return 0;
  self[length] = 0;
  return !strcmp(dirname(self), MPROF_CLI_BUILD_DIR);
#else
  return 0;
#endif
}
