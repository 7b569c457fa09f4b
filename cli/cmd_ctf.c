/* cmd_ctf.c -- `mprof ctf TRACE... -o DIR`: a CTF 1.8 directory for
 * babeltrace2 and other CTF tools, with nothing of the trace lost.  One
 * TRACE: DIR is its CTF directory.  Several: DIR/NAME for each, NAME the
 * trace's file name (babeltrace2 DIR then reads them all). */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: mprof ctf TRACE... -o DIR\n"
    "Write TRACE as a CTF 1.8 directory, DIR (-o names it) (metadata + one file per stream)\n"
    "that babeltrace2 reads: babeltrace2 DIR.  Legacy mirage-profile traces\n"
    "get a metadata that describes their bytes.  With several traces, each\n"
    "goes to DIR/NAME, NAME its file name (stdin for -).\n"
    "examples:\n"
    "  mprof ctf trace.ctf -o trace-ctf && babeltrace2 trace-ctf\n"
    "  mprof ctf a.ctf b.ctf -o both\n";

static int write_ctf(mprof_trace_t *trace, const char *path,
                     const char *output) {
  (void)path;
  cli_progress_t progress;
  cli_progress_start(&progress, "ctf", mprof_trace_packet_count(trace));
  int err =
      mprof_trace_write_ctf(trace, output, cli_progress_packets, &progress);
  int saved = errno;
  cli_progress_finish(&progress);
  if (!err) return 0;
  cli_fail(0, "ctf", output, "%s", strerror(saved));
  return -1;
}

int cmd_ctf(int argc, char **argv) {
  static const struct option options[] = {{"output", required_argument, 0, 'o'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
  cli_output_t output = {NULL, NULL};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
    if (c == 'o')
      output.path = optarg;
    else if (c == 'h')
      return fputs(help, stdout), CLI_OK;
    else
      return cli_option_error("ctf", argv, "o:h");
  }
  if (optind >= argc)
    return cli_missing("ctf", "TRACE", "trace.ctf -o trace-ctf");
  if (!output.path)
    return cli_fail(CLI_USAGE, "ctf", "-o",
                    "missing; name the directory to "
                    "write, as mprof ctf %s -o trace-ctf",
                    argv[optind]);
  int count = argc - optind;
  if (count > 1) output.directory = output.path;
  int code = cli_output_prepare(&output, argv + optind, count, "ctf");
  return code ? code : cli_write_each(argv + optind, count, &output, write_ctf);
}
