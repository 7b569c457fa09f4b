/* story.c -- ordinary code with mprof calls, for test_compiled_out.sh: built
 * without MPROF_TRACING it must be the very same machine code as this file
 * with every line that calls mprof (or includes it) deleted. */
#include <stdint.h>

#include "mprof.h"

static mprof_counter_t items_counter;

int process(const int *items, int n) {
  uint64_t task = mprof_named_task("process");
  mprof_switch(task);
  uint64_t cond = mprof_named_condition("done");
  int sum = 0;
  for (int i = 0; i < n; i++) {
    mprof_counter_increase(items_counter, items[i]);
    uint64_t wait = mprof_condition_wait(cond, "item");
    sum += items[i] * 3 + (sum >> 2);
    mprof_resolve(wait);
    mprof_read(wait);
  }
  mprof_condition_notify(cond);
  mprof_fail(task, "never");
  mprof_suspend();
  return sum;
}
