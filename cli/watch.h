/* watch.h -- the flight recorder of `mprof watch` (cmd_watch.c), which
 * `mprof record --watch` (cmd_record.c) also runs beside the program it
 * records: rules, a capture directory, and a loop that follows one trace
 * file until its program has ended. */
#ifndef MPROF_CLI_WATCH_H
#define MPROF_CLI_WATCH_H

typedef struct cli_watch_s cli_watch_t;

/* A watch as `mprof watch` starts with no option (every error and
 * warning fires; --before 2s, --after 0.5s, --max 10, captures into the
 * current directory), its error lines said as "mprof COMMAND: ...".
 * NULL if memory ran out. */
cli_watch_t *cli_watch_new(const char *command);
void cli_watch_free(cli_watch_t *w);

/* Add the rule text ("loop_blocked>50ms", "stalled"), given as option:
 * 0, or CLI_USAGE after one line that says it is no rule. */
int cli_watch_rule(cli_watch_t *w, const char *option, const char *text);

/* Set option ("--before", "--after", "--for": a duration such as 2s or
 * 500ms; "--max": a count of captures) from its text value, as `mprof
 * watch` takes it: 0, or CLI_USAGE after one line that says why not. */
int cli_watch_limit(cli_watch_t *w, const char *option, const char *value);

/* Put the captures into dir, made if it is not there: 0, or CLI_FAILED
 * after one line (it is a file, it cannot be made). */
int cli_watch_dir(cli_watch_t *w, const char *dir);

/* Follow the trace file at path while exited(context) says 0, taking
 * captures, and end once it says 1 and the trace is read to its end,
 * the captures waiting for their --after written.  A trace that never
 * appeared before the program ended is nothing to watch: 0.  Returns 0
 * or an exit code, after one line that says why. */
int cli_watch_follow(cli_watch_t *w, const char *path,
                     int (*exited)(void *context), void *context);

#endif /* MPROF_CLI_WATCH_H */
