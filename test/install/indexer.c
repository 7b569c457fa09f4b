/* indexer.c -- a program built against the installed index library
 * (mprof/index.h): it opens the sidecar index of the trace named on its
 * command line (read if valid, else built and written beside it) and
 * says how it came and what it holds, or says why not. */
#include <inttypes.h>
#include <stdio.h>

#include <mprof/index.h>

int main(int argc, char **argv) {
  if (argc != 2) return fputs("usage: indexer TRACE\n", stderr), 2;
  mprof_trace_t *trace;
  int err = mprof_trace_open(argv[1], NULL, NULL, &trace);
  mprof_index_t *index = NULL;
  mprof_index_found_t found = MPROF_INDEX_VALID;
  if (!err) {
    err = mprof_index_open(argv[1], trace, 1, &found, NULL, &index);
    mprof_trace_close(trace);
  }
  if (err) {
    fprintf(stderr, "indexer: %s: %s\n", argv[1], mprof_strerror(err));
    return 1;
  }
  printf("%s: %zu packets, %" PRIu64 " events\n",
         found == MPROF_INDEX_VALID ? "read" : "built",
         mprof_index_packet_count(index), mprof_index_events(index));
  mprof_index_free(index);
  return 0;
}
