/* test_analysis_edges.c -- the analysis where its comparisons decide: a
 * wait that begins in the very nanosecond of a signal, and wait chains
 * that could go on through either of two waits of the same depth; each
 * from a small story told by hand (model_story.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model_story.h"

/* A waiter made by condition 10 at 100, woken and done at 150; then a
 * second wait on 10 at 200 that nothing ever ends.  The only signal comes
 * at signal_ns.  Returns how many lost wake-ups the analysis finds, and
 * the waiter of the first in *waiter. */
static size_t lost_wakeups_with_signal_at(uint64_t signal_ns,
                                          uint32_t *waiter) {
  begin();
  ev(MPROF_EVENT_CREATE, 0, 0, 10, 0); /* the condition */
  ev(MPROF_EVENT_SIGNAL, signal_ns, 20, 10, 0);
  ev(MPROF_EVENT_CREATE_BY, 100, 30, 40, 10); /* a wait made by 10 */
  ev(MPROF_EVENT_RESOLVE, 150, 20, 40, 0);    /* woken */
  ev(MPROF_EVENT_CREATE_BY, 200, 30, 41, 10); /* waits again... */
  ev(MPROF_EVENT_TRY_READ, 210, 30, 41, 0);   /* ...for good */
  ev(MPROF_EVENT_SWITCH, 1000, 0, 0, 0);
  finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  size_t count = a.lost_wakeup_count;
  *waiter = count ? a.lost_wakeups[0].waiter : MPROF_NO_THREAD;
  mprof_analysis_free(&a);
  return count;
}

/* A waiter that begins waiting in the same nanosecond as the signal hears
 * it: the later wait that never ends is no lost wake-up.  One nanosecond
 * earlier, nobody was waiting yet, and it is one. */
static void test_wait_begun_at_the_signal_hears_it(void **state) {
  (void)state;
  uint32_t waiter;
  assert_int_equal(lost_wakeups_with_signal_at(100, &waiter), 0);
  mprof_model_free(model);
  assert_int_equal(lost_wakeups_with_signal_at(99, &waiter), 1);
  assert_int_equal(waiter, mprof_model_find(model, 41));
  mprof_model_free(model);
}

/* 1 waits on 2, and 2 waits on 3 (from 20) and on 4 (from 30), neither
 * of which waits on anything: two chains of the same depth.  The one
 * given goes on through the wait begun first. */
static void test_equal_chains_follow_the_first_wait(void **state) {
  (void)state;
  begin();
  for (uint64_t i = 1; i <= 4; i++) ev(MPROF_EVENT_CREATE, 0, 0, i, 0);
  ev(MPROF_EVENT_TRY_READ, 10, 1, 2, 0);
  ev(MPROF_EVENT_TRY_READ, 20, 2, 3, 0);
  ev(MPROF_EVENT_TRY_READ, 30, 2, 4, 0);
  ev(MPROF_EVENT_SWITCH, 1000, 0, 0, 0);
  finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  assert_int_equal(a.chain_count, 1);
  assert_int_equal(a.chains[0].length, 3);
  assert_int_equal(a.chains[0].start_ns, 10);
  const uint32_t *links = &a.chain_threads[a.chains[0].first];
  assert_int_equal(links[0], mprof_model_find(model, 1));
  assert_int_equal(links[1], mprof_model_find(model, 2));
  assert_int_equal(links[2], mprof_model_find(model, 3));
  mprof_analysis_free(&a);
  mprof_model_free(model);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_wait_begun_at_the_signal_hears_it),
      cmocka_unit_test(test_equal_chains_follow_the_first_wait),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
