/* cmd_ctf.c -- `mprof ctf TRACE -o DIR`: a CTF 1.8 directory for
 * babeltrace2 and other CTF tools, with nothing of the trace lost. */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: mprof ctf TRACE -o DIR\n"
    "Write TRACE as a CTF 1.8 directory (metadata + one file per stream)\n"
    "that babeltrace2 reads: babeltrace2 DIR\n";

int cmd_ctf(int argc, char **argv) {
  static const struct option options[] = {{"output", required_argument, 0, 'o'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
  const char *output = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
    if (c == 'o') output = optarg;
    else if (c == 'h') return fputs(help, stdout), CLI_OK;
    else return fputs(help, stderr), CLI_USAGE;
  }
  if (!output || optind != argc - 1) return fputs(help, stderr), CLI_USAGE;
  int problems = 0;
  mprof_trace_t *trace;
  if (cli_open_trace(argv[optind], &problems, &trace)) return CLI_FAILED;
  int err = mprof_trace_write_ctf(trace, output);
  mprof_trace_close(trace);
  if (err == MPROF_EIO) fprintf(stderr, "mprof: %s: %s\n", output, strerror(errno));
  if (err) return CLI_FAILED;
  return problems ? CLI_DAMAGED : CLI_OK;
}
