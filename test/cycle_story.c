/* cycle_story.c -- a traced program whose threads wait on each other in
 * circles that never close, for the streaming analysis's oracle
 * (test_stream.sh): two tasks that try_read each other, three in a ring,
 * a wait on a thread that resolves (no cycle), and a stalled task at the
 * end of more arrows than its stall's context keeps, so that the ring of
 * its latest arrows goes round several times.
 *
 *   cycle_story OUT
 */
#include <stdio.h>

#include "mprof.h"
#include "mprof/unix.h"

/* Each of n tasks try_reads the next, the last the first; none resolves. */
static void ring(const char *const *names, int n) {
  uint64_t tasks[8];
  for (int i = 0; i < n; i++) tasks[i] = mprof_named_task(names[i]);
  for (int i = 0; i < n; i++) {
    mprof_switch(tasks[i]);
    mprof_try_read(tasks[(i + 1) % n]);
  }
  mprof_suspend();
}

/* A task that should resolve, waits on 23 answers in turn and never
 * resolves: 23 waits and 23 wake-ups end at it. */
static void many_arrows(void) {
  uint64_t stuck = mprof_named_task("stuck");
  mprof_should_resolve(stuck);
  for (int i = 0; i < 23; i++) {
    uint64_t answer = mprof_named_wait("part");
    mprof_switch(stuck);
    mprof_try_read(answer);
    mprof_suspend();
    mprof_resolve(answer);
  }
  mprof_suspend();
}

int main(int argc, char **argv) {
  static const char *const pair[] = {"left", "right"};
  static const char *const three[] = {"a", "b", "c"};
  if (argc != 2) {
    fprintf(stderr, "usage: cycle_story OUT\n");
    return 2;
  }
  if (mprof_unix_start_file(argv[1], 1 << 20)) return 1;
  ring(pair, 2);
  ring(three, 3);
  uint64_t waiter = mprof_named_task("waiter");
  uint64_t answer = mprof_named_wait("answer");
  mprof_switch(waiter);
  mprof_try_read(answer);
  mprof_resolve(answer);
  mprof_suspend();
  many_arrows();
  mprof_unix_stop();
  return 0;
}
