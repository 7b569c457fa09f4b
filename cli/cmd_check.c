/* cmd_check.c -- `mprof check TRACE...`: read every packet and every
 * event, say what is wrong, and exit 0 only for a wholly good trace. */
#include <getopt.h>
#include <inttypes.h>

#include "cli.h"
#include "mprof/census.h"

static const char help[] =
    "usage: mprof check TRACE...\n"
    "Validate traces: every packet header and every event is decoded.\n"
    "Prints one line per problem and a summary per trace: events, packets,\n"
    "streams, events discarded, and whole packets lost (the oldest ones\n"
    "when the ring wrapped, others when missing).  Exit code 0: all good;\n"
    "1: damaged but with good parts; 3: nothing usable.\n"
    "examples:\n"
    "  mprof check trace.ctf\n"
    "  mprof check *.ctf && echo all good\n";

/* The events of trace, counted in one pass that holds one packet at a
 * time; damaged packets are told, and counted in *problems. */
static uint64_t count_events(const mprof_trace_t *trace, int *problems) {
  mprof_census_t census;
  if (mprof_census_init(&census)) {
    (*problems)++;
    return 0;
  }
  census.events_only = 1;
  cli_progress_t progress;
  cli_progress_start(&progress, "check", mprof_trace_packet_count(trace));
  *problems +=
      (int)mprof_census_trace(&census, trace, cli_progress_packets, &progress);
  cli_progress_finish(&progress);
  uint64_t events = census.events;
  mprof_census_free(&census);
  return events;
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
  size_t packets = mprof_trace_packet_count(trace);
  uint64_t events = count_events(trace, &problems);
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

/* Each member of a merged trace, its trace file checked in turn; context:
 * how many members had each exit code. */
static int check_member(void *context, const char *path, const char *file,
                        int64_t offset_ns) {
  (void)path;
  (void)offset_ns;
  ((int *)context)[check_one(file)]++;
  return 0;
}

/* Check merged trace path as the other commands read it: a member or line
 * left out damages it; with no usable member it is unusable. */
static int check_merged(const char *path) {
  int members[CLI_FAILED + 1] = {0}, skipped = 0; /* manifest lines */
  if (mprof_trace_merged_members(path, check_member, members, cli_count_problem,
                                 &skipped) ||
      !(members[CLI_OK] + members[CLI_DAMAGED]))
    return CLI_FAILED;
  return skipped || members[CLI_DAMAGED] || members[CLI_FAILED] ? CLI_DAMAGED
                                                                : CLI_OK;
}

int cmd_check(int argc, char **argv) {
  static const struct option options[] = {{"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1)
    return c == 'h' ? (fputs(help, stdout), CLI_OK)
                    : cli_option_error("check", argv, "h");
  if (optind >= argc) return cli_missing("check", "TRACE", "trace.ctf");
  int worst = CLI_OK;
  for (int i = optind; i < argc; i++) {
    int code = mprof_trace_is_merged(argv[i]) ? check_merged(argv[i])
                                              : check_one(argv[i]);
    if (code > worst) worst = code;
  }
  return worst;
}
