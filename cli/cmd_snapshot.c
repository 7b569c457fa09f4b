/* cmd_snapshot.c -- `mprof snapshot [-w OUT] SOURCE` and `mprof snapshot
 * -o DIR SOURCE...`: a consistent copy of traces, even of ones a running
 * program is writing right now; `--pid PID` and `--core CORE`: the trace a
 * program records into its memory, from the process or its core dump. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char help[] =
    "usage: mprof snapshot [-w OUT] SOURCE\n"
    "       mprof snapshot -o DIR SOURCE...\n"
    "       mprof snapshot [-w OUT] --pid PID | --core CORE\n"
    "Copy SOURCE, a trace file that a program may still be writing, into OUT\n"
    "(default: standard output, which must not be a terminal), or each\n"
    "SOURCE into DIR/NAME, NAME its file name (stdin for -).  Each packet\n"
    "is copied whole or not at all, so the copy never holds a torn event.\n"
    "--pid PID reads the trace a running or stopped process records into\n"
    "its memory (same user, ptrace rules), --core CORE the one in a core\n"
    "dump (gcore, or a virtual machine's memory from QEMU's\n"
    "dump-guest-memory), and writes it as a trace file.\n";

/* Writing a trace over itself would truncate the file it is read from. */
static int same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return strcmp(a, "-") && strcmp(b, "-") && !stat(a, &sa) && !stat(b, &sb) &&
         sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int save(mprof_trace_t *trace, const char *path, const char *output) {
  if (same_file(path, output)) {
    fprintf(stderr, "mprof: snapshot: %s: would overwrite the trace itself\n",
            output);
    return -1;
  }
  if (!mprof_trace_save(trace, output)) return 0;
  fprintf(stderr, "mprof: %s: %s\n", output, strerror(errno));
  return -1;
}

/* Whether the outputs make sense: 0, or -1 after a usage message. */
static int check_outputs(const cli_output_t *output, int count) {
  if (output->directory && strcmp(output->path, "-")) {
    fputs("mprof: snapshot: give -w OUT or -o DIR, not both\n", stderr);
    return -1;
  }
  if (output->directory) return 0;
  if (count > 1) {
    fputs("mprof: snapshot: -w OUT and standard output take one SOURCE; "
          "give -o DIR for several\n", stderr);
    return -1;
  }
  if (!strcmp(output->path, "-") && isatty(STDOUT_FILENO)) {
    fputs("mprof: snapshot: give -w OUT, or redirect standard output\n",
          stderr);
    return -1;
  }
  return 0;
}

/* --pid or --core: the trace of a program that records into memory. */
static int snapshot_memory(const char *pid, const char *core,
                           const cli_output_t *output, int sources) {
  char *end = NULL;
  long number = pid ? strtol(pid, &end, 10) : 0;
  if ((pid && core) || sources || output->directory ||
      (pid && (*end || number <= 0 || number > INT32_MAX))) {
    fputs("mprof: snapshot: give one --pid PID or --core CORE, no SOURCE, "
          "and -w OUT or standard output\n", stderr);
    return CLI_USAGE;
  }
  if (check_outputs(output, 1)) return CLI_USAGE;
  mprof_trace_t *trace;
  int err = pid ? mprof_trace_open_process((int)number, NULL, NULL, &trace)
                : mprof_trace_open_core(core, NULL, NULL, &trace);
  if (err) return CLI_FAILED;
  int code = save(trace, pid ? "-" : core, output->path) ? CLI_FAILED : CLI_OK;
  mprof_trace_close(trace);
  return code;
}

int cmd_snapshot(int argc, char **argv) {
  static const struct option options[] = {{"write", required_argument, 0, 'w'},
                                          {"output", required_argument, 0, 'o'},
                                          {"help", no_argument, 0, 'h'},
                                          {"pid", required_argument, 0, 'p'},
                                          {"core", required_argument, 0, 'c'},
                                          {0, 0, 0, 0}};
  cli_output_t output = {"-", NULL};
  const char *pid = NULL, *core = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "w:o:h", options, NULL)) != -1) {
    if (c == 'w') output.path = optarg;
    else if (c == 'o') output.directory = optarg;
    else if (c == 'h') return fputs(help, stdout), CLI_OK;
    else if (c == 'p') pid = optarg;
    else if (c == 'c') core = optarg;
    else return fputs(help, stderr), CLI_USAGE;
  }
  if (pid || core) return snapshot_memory(pid, core, &output, argc - optind);
  if (optind >= argc) return fputs(help, stderr), CLI_USAGE;
  int count = argc - optind;
  if (check_outputs(&output, count)) return CLI_USAGE;
  int code = cli_output_prepare(&output, argv + optind, count, "snapshot");
  return code ? code : cli_write_each(argv + optind, count, &output, save);
}
