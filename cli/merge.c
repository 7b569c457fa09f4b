/* merge.c -- `mprof merge A B -o DIR`: the traces, their offsets and
 * alignment as the combining commands take them (combine.c), written as a
 * merged trace directory by the read library (mprof_trace_merged_write,
 * docs/FORMAT.md "Merged traces").  The other commands take DIR where they
 * take a trace. */
#include "cli.h"

static const char help[] =
    "usage: mprof merge [--offset NAME=+-NS]... [--align] TRACE... -o DIR\n"
    "Put traces of several processes or machines into one merged trace DIR\n"
    "on one time axis: aligned by their wall-clock anchors, moved by\n"
    "--offset (NAME: a trace's path or file name), then, with --align, by\n"
    "the messages they exchanged.  babeltrace2 reads DIR as it is; mprof\n"
    "commands take DIR where they take a trace.  -o names DIR, a directory.\n"
    "examples:\n"
    "  mprof merge client.ctf server.ctf -o both\n"
    "  mprof merge --align client.ctf server.ctf -o both && mprof report both\n";

int cmd_merge(int argc, char **argv) {
  cli_combine_t combine = {.output = NULL};
  int code = cli_combine_options(&combine, argc, argv, help,
                                 "client.ctf server.ctf -o both");
  if (code != CLI_OK || combine.help) return code;
  if (combine.format || combine.redact)
    return cli_fail(CLI_USAGE, "merge",
                    combine.format ? "--format" : "--redact",
                    "export takes it, merge does not");
  if (!combine.output)
    return cli_fail(CLI_USAGE, "merge", "-o",
                    "missing; name the directory "
                    "to write, as -o both");
  int problems = 0;
  cli_traces_t set;
  mprof_model_t *m = NULL;
  cli_progress_t progress;
  cli_progress_start(&progress, "merge", 0);
  combine.progress = &progress;
  /* the model, even unaligned: traces that cannot share one are refused */
  code = cli_combine_load(&combine, &set, &problems, &m);
  cli_progress_finish(&progress);
  if (code == CLI_OK && mprof_trace_merged_write(&set.opened, combine.output,
                                                 cli_count_problem, &problems))
    code = CLI_FAILED;
  mprof_model_free(m);
  cli_traces_close(&set);
  return code == CLI_OK && problems ? CLI_DAMAGED : code;
}
