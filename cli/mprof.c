/* mprof.c -- the mprof command: `mprof <command> [options] TRACE...`.
 * Each command lives in its own cmd_*.c file; this one dispatches (the
 * helpers they share are in common.c).  `mprof view` is a program of its
 * own, mprof-view, so that only it loads GTK. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Where mprof-view is installed, from the directory of mprof (in the
 * build tree, it is next to it). */
#ifndef MPROF_VIEW_FROM_BIN
#define MPROF_VIEW_FROM_BIN "../libexec/mprof-view"
#endif

static int run_viewer(int argc, char **argv);

static const struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} commands[] = {
    /* in the order of the work: record, look, share, dig */
    {"record", cmd_record, "run a libuv program under the tracing shim"},
    {"report", cmd_report,
     "the analysis: stalls, lost wake-ups, waits, "
     "critical path"},
    {"view", run_viewer, "the timeline in a window (GTK), or --png"},
    {"html", cmd_html, "the browser viewer with traces in it (two: compare)"},
    {"export", cmd_export,
     "Chrome/Perfetto JSON or OTLP of one or several traces"},
    {"dump", cmd_dump, "print every event, one per line"},
    {"stats", cmd_stats, "numbers about traces (--json for scripts)"},
    {"check", cmd_check, "validate traces; the exit code says how they are"},
    {"index", cmd_index, "build the sidecar index that stats reads"},
    {"snapshot", cmd_snapshot, "a consistent copy of a trace being written"},
    {"ctf", cmd_ctf, "write a CTF directory that babeltrace2 reads"},
    {"merge", cmd_merge, "traces of several processes on one time axis"},
    {"redact", cmd_redact, "a copy of traces with private strings rewritten"},
    {"why", cmd_why, "why a thread took so long: its chain of waits"},
    {"watch", cmd_watch, "a flight recorder: captures when a finding fires"},
};

#define COMMAND_COUNT (sizeof commands / sizeof *commands)

/* The commands that build a model of whole traces: their heap goes on huge
 * pages (common.c); a second start would only slow the others down. */
static const char *const model_builders[] = {"report", "export", "merge",
                                             "html",   "why",    "watch"};

static int builds_a_model(const char *name) {
  for (size_t i = 0; i < sizeof model_builders / sizeof *model_builders; i++)
    if (!strcmp(name, model_builders[i])) return 1;
  return 0;
}

/* `mprof view`: mprof-view, with its heap on huge pages. */
static int run_viewer(int argc, char **argv) {
  (void)argc;
  char self[PATH_MAX], viewer[PATH_MAX + sizeof MPROF_VIEW_FROM_BIN];
  if (!realpath("/proc/self/exe", self))
    return cli_fail(CLI_FAILED, "view", "/proc/self/exe", "%s",
                    strerror(errno));
  snprintf(viewer, sizeof viewer, "%s/%s", dirname(self),
           cli_in_build_tree() ? "mprof-view" : MPROF_VIEW_FROM_BIN);
  cli_exec_on_huge_pages(viewer, argv);
  execv(viewer, argv);
  return cli_fail(CLI_FAILED, "view", viewer,
                  "%s; mprof view runs it: "
                  "install mprof whole (make install)",
                  strerror(errno));
}

static void usage(FILE *f) {
  fprintf(f, "usage: mprof <command> [options] TRACE...\n\ncommands:\n");
  for (size_t i = 0; i < COMMAND_COUNT; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(
      f, "\nexamples:\n"
         "  mprof record -- ./server      record ./server into trace.ctf\n"
         "  mprof report trace.ctf        what went wrong, and where\n"
         "\n`mprof help <command>` tells more.  TRACE may be - (stdin).\n"
         "-o names the output: a file, or a directory where the help says so.\n"
         "exit codes: 0 ok, 1 input partly damaged (good parts used),\n"
         "            2 usage error, 3 nothing usable or output failed\n");
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
  char self[PATH_MAX];
  if (!cli_heap_settle() && argc > 1 && builds_a_model(argv[1]) &&
      realpath("/proc/self/exe", self))
    cli_exec_on_huge_pages(self, argv);
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
  int code = command->run(argc - 1, argv + 1);
  /* Standard output on a full disk or /dev/full: the command may have
   * seen nothing (its output still buffered), so say it here. */
  if (fflush(stdout) || ferror(stdout))
    return cli_output_failed(command->name, "standard output");
  return code;
}
