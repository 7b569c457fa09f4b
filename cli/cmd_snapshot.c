/* cmd_snapshot.c -- `mprof snapshot [-w OUT] SOURCE`: a consistent copy of
 * a trace, even one a running program is writing right now. */
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char help[] =
    "usage: mprof snapshot [-w OUT] SOURCE\n"
    "Copy SOURCE, a trace file that a program may still be writing, into OUT\n"
    "(default: standard output, which must not be a terminal).  Each packet\n"
    "is copied whole or not at all, so the copy never holds a torn event.\n";

int cmd_snapshot(int argc, char **argv) {
  static const struct option options[] = {{"write", required_argument, 0, 'w'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
  const char *output = "-";
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "w:h", options, NULL)) != -1) {
    if (c == 'w') output = optarg;
    else if (c == 'h') return fputs(help, stdout), CLI_OK;
    else return fputs(help, stderr), CLI_USAGE;
  }
  if (optind != argc - 1) return fputs(help, stderr), CLI_USAGE;
  if (!strcmp(output, "-") && isatty(1)) {
    fputs("mprof: snapshot: give -w OUT, or redirect standard output\n", stderr);
    return CLI_USAGE;
  }
  int problems = 0;
  mprof_trace_t *trace;
  if (cli_open_trace(argv[optind], &problems, &trace)) return CLI_FAILED;
  int err = mprof_trace_save(trace, output);
  mprof_trace_close(trace);
  if (err) {
    perror(output);
    return CLI_FAILED;
  }
  return problems ? CLI_DAMAGED : CLI_OK;
}
