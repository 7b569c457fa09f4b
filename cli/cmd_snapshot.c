/* cmd_snapshot.c -- `mprof snapshot [-o OUT] SOURCE` and `mprof snapshot
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
    "usage: mprof snapshot [-o OUT] SOURCE\n"
    "       mprof snapshot -o DIR SOURCE...\n"
    "       mprof snapshot [-o OUT] --pid PID | --core CORE\n"
    "Copy SOURCE, a trace file that a program may still be writing, into OUT\n"
    "(-o, a file; default: standard output, which must not be a terminal),\n"
    "or, where -o names a directory or there are several SOURCEs, each\n"
    "SOURCE into DIR/NAME, NAME its file name (stdin for -).  -w is -o.  Each packet\n"
    "is copied whole or not at all, so the copy never holds a torn event.\n"
    "--pid PID reads the trace a running or stopped process records into\n"
    "its memory (same user, ptrace rules), --core CORE the one in a core\n"
    "dump (gcore, or a virtual machine's memory from QEMU's\n"
    "dump-guest-memory), and writes it as a trace file.\n"
    "examples:\n"
    "  mprof snapshot /tmp/server.ctf -o now.ctf    (while ./server runs)\n"
    "  mprof snapshot --pid 4242 -o now.ctf\n"
    "  mprof snapshot --core guest.core -o guest.ctf  (from dump-guest-memory)\n";

static int save(mprof_trace_t *trace, const char *path, const char *output) {
  if (cli_same_file(path, output)) {
    fprintf(stderr, "mprof snapshot: %s: would overwrite the trace itself\n",
            output);
    return -1;
  }
  if (!mprof_trace_save(trace, output)) return 0;
  cli_fail(0, "snapshot", output, "%s", strerror(errno));
  return -1;
}

/* Where -o OUT (NULL: standard output) puts count copies: in OUT as a
 * directory if there are several or it is one, else at OUT.  0, or an exit
 * code after saying why not. */
static int choose_output(const char *out, int count, cli_output_t *output) {
  struct stat st;
  *output = (cli_output_t){out ? out : "-", NULL};
  if (out && (count > 1 || (!stat(out, &st) && S_ISDIR(st.st_mode)))) {
    output->directory = out;
    return CLI_OK;
  }
  if (count > 1)
    return cli_fail(CLI_USAGE, "snapshot", "-o",
                    "missing; standard output "
                    "takes one SOURCE: name a directory for several");
  if (!out && isatty(STDOUT_FILENO))
    return cli_fail(CLI_USAGE, "snapshot", "-o",
                    "missing; name the file to "
                    "write, as -o now.ctf, or redirect standard output");
  return out ? cli_output_check("snapshot", "-o", out) : CLI_OK;
}

/* --pid or --core: the trace of a program that records into memory.  Its
 * damage (a dump that cuts it, packets the writer changed too fast to
 * copy) is told and exits 1, the good packets written; which of several
 * traces was read is only told. */
static int snapshot_memory(const char *pid, const char *core, const char *out,
                           int sources) {
  char *end = NULL;
  long number = pid ? strtol(pid, &end, 10) : 0;
  cli_output_t chosen;
  if (pid && core)
    return cli_fail(CLI_USAGE, "snapshot", "--core", "with --pid; give one");
  if (sources)
    return cli_fail(CLI_USAGE, "snapshot", pid ? "--pid" : "--core",
                    "with a SOURCE; give one or the other");
  if (pid && (*end || number <= 0 || number > INT32_MAX))
    return cli_fail(CLI_USAGE, "snapshot", "--pid", "%s is no process id", pid);
  int code = choose_output(out, 1, &chosen);
  if (code) return code;
  if (chosen.directory)
    return cli_fail(CLI_USAGE, "snapshot", out,
                    "a directory; name a file "
                    "in it, as -o %s/now.ctf",
                    out);
  mprof_trace_t *trace;
  int problems = 0;
  int err =
      pid ? mprof_trace_open_process((int)number, cli_count_problem, &problems,
                                     &trace)
          : mprof_trace_open_core(core, cli_count_problem, &problems, &trace);
  if (err) return CLI_FAILED;
  if (mprof_trace_memory_note(trace)) cli_tell(mprof_trace_memory_note(trace));
  code = save(trace, pid ? "-" : core, chosen.path) ? CLI_FAILED
         : problems                                 ? CLI_DAMAGED
                                                    : CLI_OK;
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
  cli_output_t output;
  const char *out = NULL, *pid = NULL, *core = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "w:o:h", options, NULL)) != -1) {
    if (c == 'w' || c == 'o')
      out = optarg;
    else if (c == 'h')
      return fputs(help, stdout), CLI_OK;
    else if (c == 'p')
      pid = optarg;
    else if (c == 'c')
      core = optarg;
    else
      return cli_option_error("snapshot", argv, "w:o:h");
  }
  if (pid || core) return snapshot_memory(pid, core, out, argc - optind);
  if (optind >= argc)
    return cli_missing("snapshot", "SOURCE", "trace.ctf -o now.ctf");
  int count = argc - optind;
  int code = choose_output(out, count, &output);
  if (!code)
    code = cli_output_prepare(&output, argv + optind, count, "snapshot");
  return code ? code : cli_write_each(argv + optind, count, &output, save);
}
