/* cmd_check.c -- `mprof check TRACE...`: read every packet and every
 * event, say what is wrong, and exit 0 only for a wholly good trace. */
#include <getopt.h>
#include <inttypes.h>

#include "cli.h"

static const char help[] =
    "usage: mprof check TRACE...\n"
    "Validate traces: every packet header and every event is decoded.\n"
    "Prints one line per problem and a summary per trace: events, packets,\n"
    "streams, events discarded, and whole packets lost (the oldest ones\n"
    "when the ring wrapped, others when missing).  Exit code 0: all good;\n"
    "1: damaged but with good parts; 3: nothing usable.\n";

static int count_event(void *context, const mprof_event_t *ev) {
  (void)ev;
  (*(uint64_t *)context)++;
  return 0;
}

/* Check one trace; returns its exit code. */
static int check_one(const char *path) {
  int problems = 0;
  mprof_trace_t *trace;
  if (cli_open_trace(path, &problems, &trace)) {
    cli_put_name(stdout, path);
    puts(": unusable");
    return CLI_FAILED;
  }
  uint64_t events = 0;
  size_t packets = mprof_trace_packet_count(trace);
  cli_trace_events(trace, "check", count_event, &events, &problems);
  const mprof_trace_info_t *info = mprof_trace_info(trace);
  cli_put_name(stdout, path);
  printf(": %s, %" PRIu64 " events in %zu packets of %u streams, %" PRIu64
         " discarded",
         problems ? "damaged" : "ok", events, packets, info->streams,
         info->discarded);
  if (info->packets_overwritten)
    printf(", ring wrapped: %" PRIu64 " packets overwritten",
           info->packets_overwritten);
  if (info->packets_missing)
    printf(", %" PRIu64 " packets missing", info->packets_missing);
  printf("%s\n", info->recording ? ", still being written" : "");
  mprof_trace_close(trace);
  return problems ? CLI_DAMAGED : CLI_OK;
}

/* Each member of a merged trace, its trace file checked in turn: one that
 * is unusable is left out of the merged trace, which is then damaged. */
static int check_member(void *context, const char *path, const char *file,
                        int64_t offset_ns) {
  (void)path;
  (void)offset_ns;
  int *worst = context, code = check_one(file);
  if (code == CLI_FAILED) code = CLI_DAMAGED;
  if (code > *worst) *worst = code;
  return 0;
}

int cmd_check(int argc, char **argv) {
  static const struct option options[] = {{"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1)
    return c == 'h' ? (fputs(help, stdout), CLI_OK)
                    : (fputs(help, stderr), CLI_USAGE);
  if (optind >= argc) return fputs(help, stderr), CLI_USAGE;
  int worst = CLI_OK;
  for (int i = optind; i < argc; i++) {
    if (mprof_trace_is_merged(argv[i])) {
      int skipped = 0; /* manifest lines */
      if (mprof_trace_merged_members(argv[i], check_member, &worst,
                                     cli_count_problem, &skipped))
        worst = CLI_FAILED;
      if (skipped && worst < CLI_DAMAGED) worst = CLI_DAMAGED;
      continue;
    }
    int code = check_one(argv[i]);
    if (code > worst) worst = code;
  }
  return worst;
}
