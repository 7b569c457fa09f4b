/* cli.h -- what the mprof subcommands share. */
#ifndef MPROF_CLI_H
#define MPROF_CLI_H

#include <jansson.h>
#include <stdio.h>

#include "mprof/export.h"
#include "mprof/model.h"
#include "mprof/read.h"

/* Exit codes, documented in `mprof --help` and the man page. */
enum {
  CLI_OK = 0,      /* done, input fully good */
  CLI_DAMAGED = 1, /* done, but parts of the input were damaged */
  CLI_USAGE = 2,   /* bad command line */
  CLI_FAILED = 3   /* nothing usable: unreadable input or output error */
};

/* A line of the reader's that names a file ("mprof: " before it) on
 * stderr, the name's control characters escaped. */
void cli_tell(const char *message);
/* The reader's diagnostic function (mprof_diag_fn) of the commands: tells
 * message (cli_tell) and counts it in *(int *)context. */
void cli_count_problem(void *context, const char *message);
/* One error line on stderr, "mprof COMMAND: WHAT: WHY", WHAT (an
 * argument, a file name) with its control characters escaped, WHY a
 * printf format saying what is wrong and what to do; returns code, so
 * that a command can `return cli_fail(...)`. */
int cli_fail(int code, const char *command, const char *what, const char *why,
             ...) __attribute__((format(printf, 4, 5)));
/* One line, "mprof COMMAND: WHAT: cannot write: WHY", for output that
 * could not be written (WHAT: "standard output", a file), said the first
 * time only: a failure a command saw and the exit's flush of standard
 * output sees again is told once.  Returns CLI_FAILED. */
int cli_output_failed(const char *command, const char *what);
/* The command running, e.g. "dump", for the error lines of the helpers
 * below that open traces. */
extern const char *cli_command;
/* The one line for getopt_long()'s '?' (opterr is 0): the option argv
 * holds at optind - 1 is unknown, lacks its value or takes none; shorts
 * is the short options string.  Returns CLI_USAGE. */
int cli_option_error(const char *command, char **argv, const char *shorts);
/* "mprof COMMAND: WHAT: missing; for example: mprof COMMAND EXAMPLE",
 * for a required argument left out; returns CLI_USAGE. */
int cli_missing(const char *command, const char *what, const char *example);
/* Whether path can be read as a trace ("-": stdin always can, a merged
 * trace's directory too): 0, or CLI_FAILED after one line that says why
 * (no such file, a directory).  cli_open_trace() and cli_open_merged()
 * ask it for cli_command. */
int cli_input_check(const char *command, const char *path);
/* Whether a file can be written at path, told as option (e.g. "-o"): its
 * directory exists and is writable, and path is not a directory itself.
 * 0, or CLI_FAILED after one line that says why and what to do. */
int cli_output_check(const char *command, const char *option, const char *path);
/* Whether paths a and b name one existing file (neither "-"): writing one
 * would truncate the other. */
int cli_same_file(const char *a, const char *b);
/* Start path with argv, its heap on huge pages (GLIBC_TUNABLES), unless
 * the user set GLIBC_TUNABLES or mprof cannot start a program so; returns
 * only if it did not.  The program calls cli_heap_settle() first thing:
 * 1 if it was so started (the variables are then taken out again). */
void cli_exec_on_huge_pages(const char *path, char **argv);
int cli_heap_settle(void);
/* A duration in text[0 .. end) ("250ms", "1.5us", "2s"; a bare number
 * counts bare_ns each) into *ns: 0, or -1 if malformed, negative or too
 * long for an int64_t of ns. */
int cli_parse_duration(const char *text, const char *end, double bare_ns,
                       int64_t *ns);
/* Whether this program runs from the build tree (its helpers are there). */
int cli_in_build_tree(void);

/* Open a trace, counting diagnostics (printed to stderr) in *problems. */
int cli_open_trace(const char *path, int *problems, mprof_trace_t **out);
/* The same for path as a set of traces: a merged trace's members, or one
 * trace (mprof_trace_open_merged). */
int cli_open_merged(const char *path, int *problems, mprof_trace_set_t *out);
/* The same for a trace in memory (kept alive by the caller), called name
 * in diagnostics. */
int cli_open_trace_memory(const void *data, size_t size, const char *name,
                          int *problems, mprof_trace_t **out);

/* Open each of paths[0..count) in turn and hand it to fn (which adds the
 * problems it finds to *problems); returns the exit code for all of them. */
typedef void (*cli_trace_fn)(void *context, const char *path,
                             mprof_trace_t *trace, int *problems);
int cli_for_each_trace(char **paths, int count, cli_trace_fn fn, void *context);

/* Write text to f with control characters, quotes, backslashes and bytes
 * >= 0x7f escaped as \n, \", \\ or \xHH, so labels from a traced program
 * can neither break a line nor drive the terminal. */
void cli_put_escaped(FILE *f, const char *text, size_t length);

/* Write a file name (or a line that holds one) to f with its control
 * characters as \xHH, so a name cannot move the cursor or forge a line;
 * other bytes, UTF-8 included, are the name's own. */
void cli_put_name(FILE *f, const char *text);

/* Progress through a trace's packets on stderr (progress.c), shown only on
 * a terminal and for work over a second: "mprof: dump: 45% (packet 1/4)".
 * A NULL command shows nothing; so does a NULL progress, except in
 * cli_progress_start. */
typedef struct cli_progress_s {
  const char *command;
  size_t total;     /* packets */
  double next_s;    /* monotonic time of the next redraw */
  const char *unit; /* what total counts: "packet" unless a phase says */
  size_t done;      /* what cli_progress_step has counted */
} cli_progress_t;
void cli_progress_start(cli_progress_t *progress, const char *command,
                        size_t total);
void cli_progress_update(cli_progress_t *progress, size_t done);
/* The work's next phase, told as command ("export: writing"; NULL: show no
 * more) with total units (0: no count, just the words): its line comes
 * when the work since cli_progress_start has taken a second. */
void cli_progress_phase(cli_progress_t *progress, const char *command,
                        size_t total, const char *unit);
/* One more unit of the phase done (the line redrawn now and then). */
void cli_progress_step(cli_progress_t *progress);
/* An mprof_progress_fn for a cli_progress_t context: done of total
 * packets, e.g. of mprof_model_load_with(). */
void cli_progress_packets(void *context, size_t done, size_t total);
void cli_progress_finish(cli_progress_t *progress);
/* Erase the progress line, if one is shown, before other text. */
void cli_progress_wipe(void);

/* Deliver every event of trace to fn, packet by packet, with progress for
 * command; adds one to *problems per damaged packet. */
void cli_trace_events(mprof_trace_t *trace, const char *command,
                      mprof_event_fn fn, void *context, int *problems);

/* Where a command writes (outputs.c): one path, or for several traces a
 * directory with DIR/NAME for each, NAME the trace's file name (stdin for
 * -).  Problems are told on stderr. */
typedef struct cli_output_s {
  const char *path;      /* the one output, when directory is NULL */
  const char *directory; /* the directory of several, or NULL */
} cli_output_t;
/* Check the names and make the directory: returns an exit code. */
int cli_output_prepare(const cli_output_t *output, char **paths, int count,
                       const char *command);
/* Write a trace read from path to output: 0, or -1 after saying why. */
typedef int (*cli_write_fn)(mprof_trace_t *trace, const char *path,
                            const char *output);
/* Open each trace and write it where it goes; returns the exit code. */
int cli_write_each(char **paths, int count, const cli_output_t *output,
                   cli_write_fn write);

/* A JSON string of trace text: invalid UTF-8 bytes become \xHH
 * (mprof_json_text; cmd_report.c). */
json_t *cli_json_text(const char *text, size_t length);

/* The report's printers, shared with `mprof why` (cmd_report.c): a
 * duration with its unit; "label" (type#id); {"id", "label", "name",
 * "type"}. */
void cli_put_duration(int64_t ns);
void cli_put_thread(const mprof_model_t *m, uint32_t t);
json_t *cli_json_thread(const mprof_model_t *m, uint32_t t);
/* A why chain (cmd_why.c): a line per hop, latest first; as JSON steps. */
void cli_put_why(const mprof_model_t *m, const mprof_why_hop_t *hops,
                 size_t count);
json_t *cli_json_why(const mprof_model_t *m, const mprof_why_hop_t *hops,
                     size_t count);

/* Several traces on one time axis (combine.c). */
typedef struct cli_traces_s {
  mprof_trace_set_t opened; /* owns the arrays below */
  mprof_trace_t **traces;   /* opened's, as the writers index them */
  char **paths;             /* names: a path, or MERGED/MEMBER */
  int64_t *offsets_ns; /* per trace: from a merged trace, --offset, --align */
  int count;
  cli_progress_t *progress; /* told of loads and writes, or NULL */
} cli_traces_t;
/* Open every trace of paths, the members of merged traces each (at their
 * offsets): an exit code (all closed again on failure). */
int cli_traces_open(cli_traces_t *set, char **paths, int count, int *problems);
void cli_traces_close(cli_traces_t *set);
/* Add an --offset NAME=+-NS (NAME: a trace's path or file name); returns
 * an exit code, saying why on stderr. */
int cli_traces_offset(cli_traces_t *set, const char *spec);
/* Does name[0 .. length) name the trace at path: the path itself, or its
 * file name? */
int cli_names_trace(const char *name, size_t length, const char *path);
/* Their model (mprof_model_load_many, telling set->progress); returns an
 * exit code. */
int cli_traces_model(const cli_traces_t *set, mprof_model_t **out);
/* Align the traces of *model by their send/receive labels
 * (mprof_model_align), say how on stderr, add the offsets found and
 * rebuild *model; returns an exit code. */
int cli_traces_align(cli_traces_t *set, mprof_model_t **model);

/* The command line of the commands that combine traces: [--format=F]
 * [--offset NAME=+-NS]... [--align] [-o OUT] TRACE... */
typedef struct cli_combine_s {
  const char *format, *output; /* NULL unless given (or preset) */
  char *offsets[MPROF_MODEL_MAX_TRACES];
  int offset_count, align, help, redact;
  char **paths;
  int count;
  cli_progress_t *progress; /* for the set, or NULL */
  /* The redacted copies paths names (--redact), or NULL: the traces are
   * named as the copies (cli_redacted_name()) from the moment they are
   * opened, so that no line says where the copies are. */
  struct cli_redacted_s *redacted;
} cli_combine_t;
/* Parse it (help: print help, set ->help); returns an exit code.  example:
 * the arguments of a command line that works, told when TRACE is missing. */
int cli_combine_options(cli_combine_t *combine, int argc, char **argv,
                        const char *help, const char *example);
/* Open the traces, apply the offsets, build their model into *model and
 * align if asked; returns an exit code. */
int cli_combine_load(const cli_combine_t *combine, cli_traces_t *set,
                     int *problems, mprof_model_t **model);

/* Redacted copies of a command's inputs (`--redact`, cmd_redact.c): each
 * of paths[0 .. count) redacted, with one random key, into a new private
 * temporary directory as trace-N.ctf (N from 1; a merged trace's a
 * directory with its manifest).  Returns an exit code; remove the copies
 * with cli_redacted_remove() whatever it returned. */
typedef struct cli_redacted_s {
  char dir[4096];
  char **paths; /* the copies, in the order of the inputs */
  int count;
  char **names;                          /* see cli_redacted_name() */
  char *offsets[MPROF_MODEL_MAX_TRACES]; /* see cli_redacted_offsets() */
} cli_redacted_t;
int cli_redact_inputs(char **paths, int count, int *problems,
                      cli_redacted_t *out);
/* The --offset NAME=NS of combine whose NAME names one of its inputs (its
 * path or file name; not a merged trace, whose members are named) made to
 * name that input's copy, as the traces are opened from the copies.
 * Returns an exit code. */
int cli_redacted_offsets(cli_redacted_t *redacted, cli_combine_t *combine);
/* Name the traces of set, opened from the copies, by their places in the
 * copies' directory (trace-1.ctf, trace-2.ctf/trace-1.ctf for a merged
 * trace's member), as an output shows them, rather than by a path under
 * TMPDIR, which may say whose it is.  Returns an exit code. */
int cli_redacted_name(cli_redacted_t *redacted, cli_traces_t *set);
void cli_redacted_remove(cli_redacted_t *redacted);

int cmd_check(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_ctf(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_html(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_redact(int argc, char **argv);
int cmd_why(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_index(int argc, char **argv);

#endif /* MPROF_CLI_H */
