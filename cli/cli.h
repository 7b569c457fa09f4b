/* cli.h -- what the mprof subcommands share. */
#ifndef MPROF_CLI_H
#define MPROF_CLI_H

#include <stdio.h>

#include "mprof/read.h"

/* Exit codes, documented in `mprof --help` and the man page. */
enum {
  CLI_OK = 0,       /* done, input fully good */
  CLI_DAMAGED = 1,  /* done, but parts of the input were damaged */
  CLI_USAGE = 2,    /* bad command line */
  CLI_FAILED = 3    /* nothing usable: unreadable input or output error */
};

/* Open a trace, counting diagnostics (printed to stderr) in *problems. */
int cli_open_trace(const char *path, int *problems, mprof_trace_t **out);

/* Open each of paths[0..count) in turn and hand it to fn (which adds the
 * problems it finds to *problems); returns the exit code for all of them. */
typedef void (*cli_trace_fn)(void *context, const char *path,
                             mprof_trace_t *trace, int *problems);
int cli_for_each_trace(char **paths, int count, cli_trace_fn fn, void *context);

/* Write text to f with control characters, quotes, backslashes and bytes
 * >= 0x7f escaped as \n, \", \\ or \xHH, so labels from a traced program
 * can neither break a line nor drive the terminal. */
void cli_put_escaped(FILE *f, const char *text, size_t length);

int cmd_check(int argc, char **argv);
int cmd_ctf(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_dump(int argc, char **argv);

#endif /* MPROF_CLI_H */
