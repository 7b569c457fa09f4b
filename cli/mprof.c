/* mprof.c -- the mprof command: `mprof <command> [options] TRACE...`.
 * Each command lives in its own cmd_*.c file; this one dispatches and holds
 * the helpers they share. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} commands[] = {
    /* in the order of the work: record, look, share, dig */
    {"record", cmd_record, "run a libuv program under the tracing shim"},
    {"report", cmd_report, "the analysis: stalls, lost wake-ups, waits, "
                           "critical path"},
    {"view", cmd_view, "the timeline in a window (GTK), or --png"},
    {"html", cmd_html, "the browser viewer with traces in it (two: compare)"},
    {"export", cmd_export, "Chrome/Perfetto JSON of one or several traces"},
    {"dump", cmd_dump, "print every event, one per line"},
    {"stats", cmd_stats, "numbers about traces (--json for scripts)"},
    {"check", cmd_check, "validate traces; the exit code says how they are"},
    {"snapshot", cmd_snapshot, "a consistent copy of a trace being written"},
    {"ctf", cmd_ctf, "write a CTF directory that babeltrace2 reads"},
    {"merge", cmd_merge, "traces of several processes on one time axis"},
    {"redact", cmd_redact, "a copy of traces with private strings rewritten"},
    {"why", cmd_why, "why a thread took so long: its chain of waits"},
};

#define COMMAND_COUNT (sizeof commands / sizeof *commands)

const char *cli_command = "mprof";

static void usage(FILE *f) {
  fprintf(f, "usage: mprof <command> [options] TRACE...\n\ncommands:\n");
  for (size_t i = 0; i < COMMAND_COUNT; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f,
          "\nexamples:\n"
          "  mprof record -- ./server      record ./server into trace.ctf\n"
          "  mprof report trace.ctf        what went wrong, and where\n"
          "\n`mprof help <command>` tells more.  TRACE may be - (stdin).\n"
          "-o names the output: a file, or a directory where the help says so.\n"
          "exit codes: 0 ok, 1 input partly damaged (good parts used),\n"
          "            2 usage error, 3 nothing usable or output failed\n");
}

void cli_put_name(FILE *f, const char *text) {
  for (const unsigned char *c = (const unsigned char *)text; *c; c++)
    if (*c < 0x20 || *c == 0x7f)
      fprintf(f, "\\x%02x", *c);
    else
      fputc(*c, f);
}

int cli_fail(int code, const char *command, const char *what,
             const char *why, ...) {
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
    return cli_fail(CLI_USAGE, command, arg, "no such option; see mprof help %s",
                    command);
  if (!strncmp(arg, "--", 2) && strchr(arg, '='))
    return cli_fail(CLI_USAGE, command, arg, "takes no value");
  if (!strncmp(arg, "--", 2) || strchr(shorts, optopt))
    return cli_fail(CLI_USAGE, command, strncmp(arg, "--", 2) ? letter : arg,
                    "needs a value; see mprof help %s", command);
  return cli_fail(CLI_USAGE, command, letter, "no such option; see mprof help %s",
                  command);
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

void cli_count_problem(void *context, const char *message) {
  int *problems = context;
  (*problems)++;
  cli_progress_wipe();
  fputs("mprof: ", stderr);
  cli_put_name(stderr, message); /* it names the file */
  fputc('\n', stderr);
}

int cli_open_trace(const char *path, int *problems, mprof_trace_t **out) {
  if (cli_input_check(cli_command, path)) return MPROF_EIO;
  return mprof_trace_open(path, cli_count_problem, problems, out);
}

int cli_open_trace_memory(const void *data, size_t size, const char *name,
                          int *problems, mprof_trace_t **out) {
  return mprof_trace_open_memory(data, size, name, cli_count_problem, problems, out);
}

int cli_open_merged(const char *path, int *problems, mprof_trace_set_t *out) {
  if (cli_input_check(cli_command, path)) return MPROF_EIO;
  return mprof_trace_open_merged(path, cli_count_problem, problems, out);
}

int cli_for_each_trace(char **paths, int count, cli_trace_fn fn, void *context) {
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
 * only when told at start (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), so
 * mprof starts itself again with that set, unless GLIBC_TUNABLES is set
 * already (the user's choice, glibc.malloc.hugetlb=0 included).  The
 * second start takes both variables out again: programs mprof runs (`mprof
 * record`) get the user's environment as it was. */
#define HUGE_PAGES_MARK "MPROF_HUGE_PAGES_STARTED"

/* Where mprof can start itself again (its file, into path): not where it
 * runs through an explicit loader (`ld.so mprof`: no interpreter, AT_BASE
 * 0) or inside valgrind (its preloads in LD_PRELOAD: it runs mprof in its
 * own process, and mprof started again would leave it). */
static int restartable(char *path) {
  const char *preload = getenv("LD_PRELOAD");
  return getauxval(AT_BASE) != 0 && !(preload && strstr(preload, "vgpreload")) &&
         realpath("/proc/self/exe", path) != NULL;
}

static void heap_on_huge_pages(char **argv) {
  char self[PATH_MAX];
  if (getenv(HUGE_PAGES_MARK)) {
    unsetenv("GLIBC_TUNABLES");
    unsetenv(HUGE_PAGES_MARK);
    return;
  }
  if (getenv("GLIBC_TUNABLES") || !restartable(self)) return;
  if (setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1) == 0 &&
      setenv(HUGE_PAGES_MARK, "1", 1) == 0)
    execv(self, argv);
  unsetenv("GLIBC_TUNABLES"); /* it could not: go on as we are */
  unsetenv(HUGE_PAGES_MARK);
}

static const struct command *command_named(const char *name) {
  for (size_t i = 0; i < COMMAND_COUNT; i++)
    if (!strcmp(name, commands[i].name)) return &commands[i];
  cli_progress_wipe();
  fputs("mprof: ", stderr);
  cli_put_name(stderr, name);
  fputs(": no such command; mprof --help lists them\n", stderr);
  return NULL;
}

/* `mprof help [COMMAND]`: the command's --help. */
static int help_on(int argc, char **argv) {
  if (argc < 3) {
    usage(stdout);
    return CLI_OK;
  }
  const struct command *command = command_named(argv[2]);
  if (!command) return CLI_USAGE;
  char *help_argv[] = {argv[2], "--help", NULL};
  cli_command = command->name;
  return command->run(2, help_argv);
}

int main(int argc, char **argv) {
  heap_on_huge_pages(argv);
  opterr = 0; /* cli_option_error() says what is wrong, in one line */
  if (argc < 2) {
    usage(stderr);
    return CLI_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage(stdout);
    return CLI_OK;
  }
  if (!strcmp(argv[1], "--version")) {
    puts("mprof " MPROF_VERSION);
    return CLI_OK;
  }
  if (!strcmp(argv[1], "help")) return help_on(argc, argv);
  const struct command *command = command_named(argv[1]);
  if (!command) return CLI_USAGE;
  cli_command = command->name;
  return command->run(argc - 1, argv + 1);
}
