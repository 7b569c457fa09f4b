/* test_model_analysis.c -- the analysis of the model: stalls, lost
 * wake-ups, wait chains, the critical path and the findings, each from a
 * small story told by hand (model_story.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model_story.h"

/* --- Analysis ------------------------------------------------------------- */

/* The lost wake-up: the producer notifies the condition before anyone
 * waits; the consumer then waits, and nothing ever wakes it. */
static void test_lost_wakeup_and_stall(void **state) {
  (void)state;
  begin();
  ev(MPROF_EVENT_CREATE, 0, 0, 10, 0); /* condition "ready" */
  ev_text(MPROF_EVENT_LABEL, 0, 10, "ready");
  ev(MPROF_EVENT_CREATE, 0, 0, 20, 0); /* producer */
  ev(MPROF_EVENT_CREATE, 0, 0, 30, 0); /* consumer */
  ev(MPROF_EVENT_SWITCH, 100, 0, 20, 0);
  ev(MPROF_EVENT_SIGNAL, 110, 20, 10, 0); /* nobody waits yet */
  ev(MPROF_EVENT_SWITCH, 200, 0, 30, 0);
  ev(MPROF_EVENT_CREATE_BY, 210, 30, 40, 10); /* wait created by cond */
  ev_text(MPROF_EVENT_LABEL, 210, 40, "consumer wait");
  ev(MPROF_EVENT_SHOULD_RESOLVE, 210, 30, 40, 0);
  ev(MPROF_EVENT_TRY_READ, 220, 30, 40, 0);
  ev(MPROF_EVENT_SUSPEND, 230, 30, 0, 0);
  ev(MPROF_EVENT_SWITCH, 5000, 0, 20, 0); /* time passes */
  ev(MPROF_EVENT_SWITCH, 5100, 0, 0, 0);
  const mprof_model_view_t *v = finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  assert_int_equal(a.stall_count, 1);
  assert_int_equal(a.stalls[0].thread, mprof_model_find(model, 40));
  assert_true(a.stalls[0].arrow_count >= 2); /* created, waited on */
  mprof_arrow_t last = mprof_arrow_at(
      v, a.arrow_refs[a.stalls[0].first_arrow + a.stalls[0].arrow_count - 1]);
  assert_int_equal(last.kind, MPROF_ARROW_TRY_READ);
  assert_int_equal(a.lost_wakeup_count, 1);
  assert_int_equal(a.lost_wakeups[0].condition, mprof_model_find(model, 10));
  assert_int_equal(a.lost_wakeups[0].waiter, mprof_model_find(model, 40));
  assert_int_equal(mprof_arrow_at(v, a.lost_wakeups[0].signal_arrow).time_ns,
                   110);
  /* the consumer waited on its wait from 220 to the end */
  const mprof_thread_time_t *consumer = &a.times[mprof_model_find(model, 30)];
  assert_int_equal(consumer->waiting_ns, 5100 - 220);
  assert_int_equal(consumer->wait_count, 1);
  assert_int_equal(a.waits[consumer->first_wait].on,
                   mprof_model_find(model, 40));
  assert_int_equal(consumer->running_ns, 30);
  mprof_analysis_free(&a);
  mprof_model_free(model);
}

/* A signal heard by a waiter is not a lost wake-up. */
static void test_heard_signal_is_fine(void **state) {
  (void)state;
  begin();
  ev(MPROF_EVENT_CREATE, 0, 0, 10, 0);
  ev(MPROF_EVENT_CREATE_BY, 10, 30, 40, 10);
  ev(MPROF_EVENT_SHOULD_RESOLVE, 10, 30, 40, 0);
  ev(MPROF_EVENT_SIGNAL, 20, 20, 10, 0);
  ev(MPROF_EVENT_RESOLVE, 20, 20, 40, 0);
  ev(MPROF_EVENT_CREATE_BY, 30, 30, 41, 10); /* waits again: pending */
  ev(MPROF_EVENT_SWITCH, 100, 0, 0, 0);
  finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  assert_int_equal(a.stall_count, 0);
  assert_int_equal(a.lost_wakeup_count, 0);
  mprof_analysis_free(&a);
  mprof_model_free(model);
}

/* 1 waits on 2, which waits on 3, which waits on 4: one chain of three
 * links; and the critical path of a request back through a read. */
static void test_chain_and_critical_path(void **state) {
  (void)state;
  begin();
  for (uint64_t i = 1; i <= 4; i++) ev(MPROF_EVENT_CREATE, i, 0, i, 0);
  ev(MPROF_EVENT_TRY_READ, 10, 1, 2, 0);
  ev(MPROF_EVENT_TRY_READ, 20, 2, 3, 0);
  ev(MPROF_EVENT_TRY_READ, 30, 3, 4, 0);
  ev(MPROF_EVENT_CREATE, 110, 5, 9, 0); /* 5 makes request 9 */
  ev(MPROF_EVENT_RESOLVE, 150, 4, 4, 0);
  ev(MPROF_EVENT_READ, 200, 6, 4, 0);    /* 6 reads 4... */
  ev(MPROF_EVENT_RESOLVE, 300, 6, 9, 0); /* ...and answers 9 */
  finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  assert_true(a.chain_count >= 1);
  assert_int_equal(a.chains[0].length, 4);
  for (uint32_t k = 0; k < 4; k++)
    assert_int_equal(a.chain_threads[a.chains[0].first + k],
                     mprof_model_find(model, k + 1));
  /* the longest resolved thread is 9 (110..300) -- 4 lived 4..150 */
  assert_int_equal(a.path_target, mprof_model_find(model, 9));
  assert_true(a.path_count >= 2);
  assert_int_equal(a.path[0].thread, mprof_model_find(model, 6));
  assert_int_equal(a.path[0].via, MPROF_ARROW_RESOLVE);
  assert_int_equal(a.path[0].start_ns, 199); /* since its read (t0 = 1) */
  assert_int_equal(a.path[1].thread, mprof_model_find(model, 4));
  assert_int_equal(a.path[1].via, MPROF_ARROW_READ);
  assert_int_equal(a.path[1].start_ns, 109); /* not before 9 began */
  assert_int_equal(a.path[1].end_ns, 149);
  mprof_analysis_free(&a);
  mprof_model_free(model);
}

/* --- Findings ------------------------------------------------------------- */

/* Create `child` of `type`, made by `creator` (0: none), on stream 0. */
static void create(uint64_t time, uint64_t creator, uint64_t child,
                   mprof_type_t type, const char *label) {
  ev_typed(0, MPROF_EVENT_CREATE, time, creator, child, 0, type);
  if (label) ev_text(MPROF_EVENT_LABEL, time, child, label);
}

/* The first finding of a kind, or NULL. */
static const mprof_finding_t *first_finding(const mprof_analysis_t *a,
                                            mprof_finding_kind_t kind) {
  for (size_t i = 0; i < a->finding_count; i++)
    if (a->findings[i].kind == kind) return &a->findings[i];
  return NULL;
}

static size_t findings_of(const mprof_analysis_t *a,
                          mprof_finding_kind_t kind) {
  size_t n = 0;
  for (size_t i = 0; i < a->finding_count; i++)
    n += a->findings[i].kind == kind;
  return n;
}

/* Fail request `id` at `time` with `error`. */
static void fail_request(uint64_t time, uint64_t id, const char *error) {
  ev_text_by(MPROF_EVENT_FAIL, time, id, id, error);
}

/* A loop (1) whose timer 2 runs 19.999 ms, then 25 ms, while timer 3
 * waits for its turn; in poll 10..100 and 20.1..20.2 ms. */
static void loop_story(void) {
  begin();
  create(0, 0, 1, MPROF_LOOP, "default loop");
  create(1, 0, 2, MPROF_TIMER, "timer");
  create(2, 0, 3, MPROF_TIMER, "timer");
  ev(MPROF_EVENT_SWITCH, 5, 0, 1, 0);
  ev(MPROF_EVENT_SUSPEND, 10, 1, 0, 0);
  ev(MPROF_EVENT_SWITCH, 100, 0, 2, 0);
  ev(MPROF_EVENT_SWITCH, 100 + 19999999, 2, 1, 0);
  ev(MPROF_EVENT_SUSPEND, 20100000, 1, 0, 0);
  ev(MPROF_EVENT_SWITCH, 20200000, 0, 2, 0);
  ev(MPROF_EVENT_SWITCH, 45200000, 2, 1, 0);
  ev(MPROF_EVENT_SWITCH, 45200100, 1, 3, 0);
  ev(MPROF_EVENT_SWITCH, 45200200, 3, 1, 0);
  ev(MPROF_EVENT_SWITCH, 45300000, 1, 0, 0);
}

/* A callback that holds the loop 20 ms or more is found, with the loop and
 * the callback that waited; the threshold is the caller's. */
static void test_loop_blocked(void **state) {
  (void)state;
  loop_story();
  const mprof_model_view_t *v = finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  assert_int_equal(findings_of(&a, MPROF_FINDING_LOOP_BLOCKED), 1);
  const mprof_finding_t *f = first_finding(&a, MPROF_FINDING_LOOP_BLOCKED);
  assert_int_equal(f->severity, MPROF_SEVERITY_WARNING);
  assert_int_equal(f->value_ns, 25000000);
  assert_int_equal(f->start_ns, 20200000);
  assert_int_equal(f->thread_count, 3);
  assert_int_equal(a.finding_threads[f->first_thread],
                   mprof_model_find(model, 2));
  assert_int_equal(a.finding_threads[f->first_thread + 1],
                   mprof_model_find(model, 1));
  assert_int_equal(a.finding_threads[f->first_thread + 2],
                   mprof_model_find(model, 3));
  const mprof_evidence_t *e = &a.evidence[f->first_evidence];
  assert_int_equal(e[0].kind, MPROF_EVIDENCE_RAN);
  assert_int_equal(e[1].kind, MPROF_EVIDENCE_PENDING);
  assert_int_equal(e[1].end_ns, 45200100);
  assert_string_equal(
      a.text + f->summary,
      "a callback of \"timer\" (timer#2) held \"default loop\" "
      "(loop#1) for 25.0 ms at 20.2 ms without returning to it; "
      "1 callback waited");
  /* the loop's life: in poll 10..100 and 20.1..20.2 ms, running 5..10 and
   * between its callbacks, not running while they ran */
  const mprof_thread_time_t *loop = &a.times[mprof_model_find(model, 1)];
  assert_int_equal(loop->in_poll_ns, 90 + 100000);
  assert_int_equal(loop->not_running_ns,
                   loop->life_ns - loop->running_ns - loop->in_poll_ns);
  assert_true(loop->not_running_ns >= 19999999 + 25000000);
  assert_int_equal(v->threads[mprof_model_find(model, 2)].type, MPROF_TIMER);
  mprof_analysis_free(&a);
  mprof_analysis_options_t options = {15000000, 0, 0};
  assert_int_equal(mprof_model_analyse_with(model, &options, &a), 0);
  assert_int_equal(findings_of(&a, MPROF_FINDING_LOOP_BLOCKED), 2);
  /* the first block delayed no callback: only an info */
  assert_int_equal(a.findings[a.finding_count - 1].kind,
                   MPROF_FINDING_LOOP_BLOCKED);
  assert_int_equal(a.findings[a.finding_count - 1].severity,
                   MPROF_SEVERITY_INFO);
  assert_int_equal(a.findings[a.finding_count - 1].value_ns, 19999999);
  mprof_analysis_free(&a);
  options.loop_blocked_ns = 30000000;
  assert_int_equal(mprof_model_analyse_with(model, &options, &a), 0);
  assert_int_equal(findings_of(&a, MPROF_FINDING_LOOP_BLOCKED), 0);
  mprof_analysis_free(&a);
  options.loop_blocked_ns = -1;
  assert_int_equal(mprof_model_analyse_with(model, &options, &a), MPROF_EINVAL);
  mprof_model_free(model);
}

/* A timer created inside an async handle's callback, after a signal to the
 * handle, does not wait on the handle: no lost wake-up (Node.js does this
 * in every run).  A wait on a condition that missed its signal is one,
 * and comes before its stall. */
static void test_lost_wakeup_only_on_waits(void **state) {
  (void)state;
  begin();
  create(1, 0, 1, MPROF_HANDLE, "async");
  create(2, 0, 5, MPROF_CONDITION, "ready");
  ev(MPROF_EVENT_SIGNAL, 10, 0, 1, 0);
  ev(MPROF_EVENT_SWITCH, 20, 0, 1, 0);
  create(21, 1, 2, MPROF_TIMER, "timer"); /* never closed: pending */
  ev(MPROF_EVENT_SIGNAL, 30, 1, 5, 0);    /* nobody waits on "ready" */
  ev(MPROF_EVENT_SWITCH, 40, 1, 0, 0);
  ev(MPROF_EVENT_CREATE_BY, 50, 0, 6, 5); /* a wait made by the condition */
  ev_text(MPROF_EVENT_LABEL, 50, 6, "wait for ready");
  ev(MPROF_EVENT_SHOULD_RESOLVE, 50, 0, 6, 0);
  ev(MPROF_EVENT_SWITCH, 1000, 0, 0, 0);
  finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  assert_int_equal(a.lost_wakeup_count, 1);
  assert_int_equal(a.lost_wakeups[0].waiter, mprof_model_find(model, 6));
  assert_true(a.finding_count >= 2);
  assert_int_equal(a.findings[0].kind, MPROF_FINDING_LOST_WAKEUP);
  assert_int_equal(a.findings[1].kind, MPROF_FINDING_STALLED);
  assert_int_equal(a.finding_threads[a.findings[0].first_thread],
                   mprof_model_find(model, 6));
  const mprof_evidence_t *e = &a.evidence[a.findings[0].first_evidence];
  assert_int_equal(e->kind, MPROF_EVIDENCE_ARROW);
  assert_int_equal(mprof_arrow_at(mprof_model_view(model), e->arrow).time_ns,
                   30 - 1);
  mprof_analysis_free(&a);
  mprof_model_free(model);
}

/* Requests are grouped by kind (numbers, paths and addresses left out),
 * with percentiles of their lives and their failures by error; one left
 * pending is leaked. */
static void test_requests_and_leaks(void **state) {
  (void)state;
  begin();
  static const char *const opens[] = {"fs open /tmp/x/f3", "fs open /tmp/y",
                                      "fs open /tmp/x/f10"};
  for (uint64_t i = 0; i < 3; i++) create(10 + i, 0, 1 + i, MPROF_FS, opens[i]);
  for (uint64_t i = 0; i < 3; i++) /* lives of 10, 20 and 30 ns */
    ev(MPROF_EVENT_RESOLVE, 10 + i + 10 * (i + 1), 1 + i, 1 + i, 0);
  for (uint64_t i = 0; i < 3; i++)
    create(100 + i, 0, 10 + i, MPROF_CONNECT, "connect 127.0.0.1:9");
  for (uint64_t i = 0; i < 3; i++)
    fail_request(110 + i, 10 + i, i < 2 ? "ECONNREFUSED" : "ETIMEDOUT");
  create(200, 0, 20, MPROF_WRITE, "write"); /* never ends */
  ev(MPROF_EVENT_SWITCH, 1000, 0, 0, 0);
  const mprof_model_view_t *v = finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  assert_int_equal(a.request_count, 3);
  const mprof_request_group_t *open = NULL, *connect = NULL;
  for (size_t i = 0; i < a.request_count; i++) {
    if (!strcmp(a.text + a.requests[i].name, "fs open")) open = &a.requests[i];
    if (!strcmp(a.text + a.requests[i].name, "connect"))
      connect = &a.requests[i];
  }
  assert_non_null(open);
  assert_int_equal(open->count, 3);
  assert_int_equal(open->p50_ns, 20);
  assert_int_equal(open->max_ns, 30);
  assert_int_equal(open->queue_p50_ns, -1);
  assert_non_null(connect);
  assert_int_equal(connect->failed, 3);
  assert_int_equal(connect->failure_count, 2);
  const mprof_failure_count_t *refused = &a.failures[connect->first_failure];
  assert_string_equal(v->strings + refused->error, "ECONNREFUSED");
  assert_int_equal(refused->count, 2);
  assert_int_equal(a.failures[connect->first_failure + 1].count, 1);
  assert_int_equal(findings_of(&a, MPROF_FINDING_LEAKED), 1);
  const mprof_finding_t *leak = first_finding(&a, MPROF_FINDING_LEAKED);
  assert_int_equal(a.finding_threads[leak->first_thread],
                   mprof_model_find(model, 20));
  assert_int_equal(leak->severity, MPROF_SEVERITY_WARNING);
  mprof_analysis_free(&a);
  mprof_model_free(model);
}

/* A connect refused and made again from its own callback, 6 times, is a
 * retry storm; 4 are not, nor are failures all made at once. */
static void test_retry_storm(void **state) {
  (void)state;
  for (uint64_t tries = 4; tries <= 6; tries += 2) {
    begin();
    for (uint64_t i = 1; i <= tries;
         i++) { /* each made in the last one's callback */
      create(100 * i, i - 1, i, MPROF_CONNECT, "connect 127.0.0.1:9");
      fail_request(100 * i + 50, i, "ECONNREFUSED");
    }
    for (uint64_t i = 0; i < 8; i++)
      create(1000 + i, 0, 100 + i, MPROF_WRITE, "write");
    for (uint64_t i = 0; i < 8; i++)
      fail_request(2000 + i, 100 + i, "ECANCELED");
    finish();
    mprof_analysis_t a;
    assert_int_equal(mprof_model_analyse(model, &a), 0);
    assert_int_equal(findings_of(&a, MPROF_FINDING_RETRY_STORM), tries == 6);
    const mprof_finding_t *f = first_finding(&a, MPROF_FINDING_RETRY_STORM);
    if (f) {
      assert_int_equal(a.finding_threads[f->first_thread],
                       mprof_model_find(model, 1));
      assert_int_equal(a.evidence[f->first_evidence].count, 6);
      assert_non_null(
          strstr(a.text + f->summary,
                 "6 \"connect\" requests failed in a row with ECONNREFUSED"));
    }
    mprof_analysis_free(&a);
    mprof_model_free(model);
  }
}

/* 64 writes pending at once for 100 ms or more is a backlog; the same
 * burst drained in 99 ms is not. */
static void test_write_backlog(void **state) {
  (void)state;
  for (uint64_t drain = 99000000; drain <= 100000000; drain += 1000000) {
    begin();
    create(10, 0, 1, MPROF_HANDLE, "tcp");
    for (uint64_t i = 0; i < 64; i++)
      create(100 + i, 1, 10 + i, MPROF_WRITE, "write");
    for (uint64_t i = 0; i < 64; i++)
      ev(MPROF_EVENT_RESOLVE, 100 + drain + i, 10 + i, 10 + i, 0);
    finish();
    mprof_analysis_t a;
    assert_int_equal(mprof_model_analyse(model, &a), 0);
    assert_int_equal(findings_of(&a, MPROF_FINDING_WRITE_BACKLOG),
                     drain >= 100000000);
    const mprof_finding_t *f = first_finding(&a, MPROF_FINDING_WRITE_BACKLOG);
    if (f) {
      assert_int_equal(a.finding_threads[f->first_thread],
                       mprof_model_find(model, 10));
      assert_int_equal(a.finding_threads[f->first_thread + 1],
                       mprof_model_find(model, 1));
      assert_int_equal(f->value_ns, 100000000);
    }
    mprof_analysis_free(&a);
    mprof_model_free(model);
  }
}

/* 1 waits on 2, 2 on 3 and 3 on 1, to the end: a wait cycle, closed when
 * 3 began to wait; 4 waits on 5, which ends: none. */
static void test_wait_cycle(void **state) {
  (void)state;
  begin();
  for (uint64_t i = 1; i <= 5; i++) ev(MPROF_EVENT_CREATE, i, 0, i, 0);
  ev(MPROF_EVENT_TRY_READ, 10, 1, 2, 0);
  ev(MPROF_EVENT_TRY_READ, 20, 2, 3, 0);
  ev(MPROF_EVENT_TRY_READ, 30, 3, 1, 0);
  ev(MPROF_EVENT_TRY_READ, 40, 4, 5, 0);
  ev(MPROF_EVENT_RESOLVE, 50, 5, 5, 0);
  ev(MPROF_EVENT_SWITCH, 1000, 0, 0, 0);
  finish();
  mprof_analysis_t a;
  assert_int_equal(mprof_model_analyse(model, &a), 0);
  assert_int_equal(a.cycle_count, 1);
  assert_int_equal(findings_of(&a, MPROF_FINDING_WAIT_CYCLE), 1);
  const mprof_finding_t *f = first_finding(&a, MPROF_FINDING_WAIT_CYCLE);
  assert_int_equal(f->severity, MPROF_SEVERITY_ERROR);
  assert_int_equal(f->thread_count, 3);
  for (uint32_t k = 0; k < 3; k++)
    assert_int_equal(a.finding_threads[f->first_thread + k],
                     mprof_model_find(model, k + 1));
  assert_int_equal(f->start_ns, 30 - 1);
  assert_string_equal(
      a.text + f->summary,
      "task#1 waits on task#2, which waits on task#3, which waits on "
      "task#1: a cycle of 3 waits, closed at 29 ns, still open when "
      "the trace ends");
  assert_int_equal(a.findings[0].kind, MPROF_FINDING_WAIT_CYCLE);
  mprof_analysis_free(&a);
  mprof_model_free(model);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lost_wakeup_and_stall),
      cmocka_unit_test(test_heard_signal_is_fine),
      cmocka_unit_test(test_chain_and_critical_path),
      cmocka_unit_test(test_loop_blocked),
      cmocka_unit_test(test_lost_wakeup_only_on_waits),
      cmocka_unit_test(test_requests_and_leaks),
      cmocka_unit_test(test_retry_storm),
      cmocka_unit_test(test_write_backlog),
      cmocka_unit_test(test_wait_cycle),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
