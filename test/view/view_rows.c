/* view_rows.c -- a traced program whose trace has many rows, for the tests
 * of a big trace's window scrolled (test_view_scroll.sh).
 *
 *   view_rows OUT ROWS FILLER
 *
 * FILLER short tasks one after another on one row (a busy stretch whose
 * packets a window's model can show alone, and enough events that the
 * whole trace is too big to model under a small budget), then a chain of
 * ROWS tasks named "row N", each created by the one before it and alive
 * to the end: the layout gives task N the row under its creator's, and
 * their only arrows are their creations, each between neighbouring rows.
 * Recorded in 4 KiB packets, so that a short range needs few of them.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mprof.h"
#include "mprof/unix.h"

/* Between two tasks of the chain: far enough apart that each creation
 * has a pixel column of its own in a window. */
static void pause_us(long us) {
  struct timespec ts = {0, us * 1000L};
  nanosleep(&ts, NULL);
}

static void filler(long count) {
  for (long i = 0; i < count; i++) {
    uint64_t task = mprof_create(MPROF_TASK);
    mprof_switch(task);
    mprof_resolve(task);
  }
  mprof_suspend();
}

static void chain(long rows) {
  for (long n = 0; n < rows; n++) {
    char name[32];
    snprintf(name, sizeof name, "row %ld", n);
    uint64_t task = mprof_named_task(name);
    mprof_switch(task);
    pause_us(40);
  }
  mprof_suspend();
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: view_rows OUT ROWS FILLER\n");
    return 2;
  }
  mprof_unix_options_t options;
  memset(&options, 0, sizeof options);
  options.path = argv[1];
  options.size = 32u << 20;
  options.packet_size = 4096;
  options.ring_mode = MPROF_RING_DISCARD;
  int err = mprof_unix_start(&options);
  if (err) {
    fprintf(stderr, "view_rows: %s: %s\n", argv[1], mprof_strerror(err));
    return 1;
  }
  filler(atol(argv[3]));
  chain(atol(argv[2]));
  mprof_unix_stop();
  return 0;
}
