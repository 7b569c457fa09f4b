/* test_why.c -- why chains (mprof_model_why, src/model/why.c): a model fed
 * by hand, whose chain is known hop by hop: a request waited on a lookup,
 * resolved by a worker that had waited on a disk read, resolved by a
 * thread on another OS thread, made by the root's first task. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mprof/model.h"

static mprof_model_t *model;

/* The arrow of kind from thread id `from` to `to`. */
static uint32_t arrow(mprof_arrow_kind_t kind, uint64_t from, uint64_t to) {
  const mprof_model_view_t *v = mprof_model_view(model);
  for (uint32_t i = 0; i < v->arrow_count; i++) {
    mprof_arrow_t a = mprof_arrow_at(v, i);
    if (a.kind == kind && a.from == mprof_model_find(model, from) &&
        a.to == mprof_model_find(model, to))
      return i;
  }
  fail_msg("no %s arrow %llu -> %llu", mprof_arrow_kind_name(kind),
           (unsigned long long)from, (unsigned long long)to);
  return MPROF_NO_THREAD;
}

/* One event of the story: on OS thread `stream`, at `time` ticks of 1
 * ns, `thread` does `kind` to `a` (threads it creates are tasks). */
typedef struct story_event_s {
  uint32_t stream;
  mprof_event_kind_t kind;
  uint64_t time, thread, a;
} story_event_t;

static const story_event_t story[] = {
    {0, MPROF_EVENT_CREATE, 1, 0, 1},    /* the root's task 1 makes: */
    {0, MPROF_EVENT_CREATE, 2, 1, 2},    /*   2, the request */
    {0, MPROF_EVENT_CREATE, 3, 1, 3},    /*   3, a lookup */
    {0, MPROF_EVENT_CREATE, 5, 1, 5},    /*   5, a worker */
    {0, MPROF_EVENT_CREATE, 6, 1, 7},    /*   7, a disk read */
    {1, MPROF_EVENT_CREATE, 7, 1, 8},    /*   8, on another OS thread */
    {0, MPROF_EVENT_TRY_READ, 10, 2, 3}, /* the request waits on the lookup */
    {0, MPROF_EVENT_TRY_READ, 30, 5, 7}, /* the worker on the disk read */
    {1, MPROF_EVENT_RESOLVE, 70, 8, 7},  /* 8 ends the disk read */
    {0, MPROF_EVENT_READ, 75, 5, 7},
    {0, MPROF_EVENT_RESOLVE, 80, 5, 3}, /* the worker ends the lookup */
    {0, MPROF_EVENT_READ, 90, 2, 3},
    {0, MPROF_EVENT_RESOLVE, 100, 2, 2}, /* the request ends */
};

/* The story's model; its time 0 is the first event's, tick 1. */
static void feed_story(void) {
  assert_int_equal(mprof_model_new(1000000000, 0, &model), 0);
  for (size_t i = 0; i < sizeof story / sizeof *story; i++) {
    mprof_event_t e = {.kind = story[i].kind,
                       .time_ticks = story[i].time,
                       .stream = story[i].stream,
                       .thread = story[i].thread,
                       .a = story[i].a,
                       .type = MPROF_TASK};
    assert_int_equal(mprof_model_add(model, &e), 0);
  }
  assert_int_equal(mprof_model_finish(model), 0);
}

static void check_hop(const mprof_why_hop_t *hop, uint64_t id,
                      mprof_why_via_t via, uint32_t arrow_index,
                      int64_t start_ns, int64_t end_ns) {
  assert_int_equal(hop->thread, mprof_model_find(model, id));
  assert_string_equal(mprof_why_via_name((mprof_why_via_t)hop->via),
                      mprof_why_via_name(via));
  assert_int_equal(hop->arrow, arrow_index);
  assert_int_equal(hop->start_ns, start_ns);
  assert_int_equal(hop->end_ns, end_ns);
}

/* Back from the request's end: it ran since its wait on the lookup ended
 * (79); the lookup, waited on from 9, was resolved by the worker; the
 * worker ran since its own wait ended (69), on the disk read, waited on
 * from 29 and resolved by 8 on OS thread 1; 8 began at 6, made by 1,
 * which began at 0, made by the root. */
static void test_chain_hop_by_hop(void **state) {
  (void)state;
  feed_story();
  mprof_why_hop_t *hops;
  size_t count;
  assert_int_equal(
      mprof_model_why(model, mprof_model_find(model, 2), &hops, &count), 0);
  assert_int_equal(count, 6);
  check_hop(&hops[0], 2, MPROF_WHY_TARGET, MPROF_NO_THREAD, 79, 99);
  check_hop(&hops[1], 3, MPROF_WHY_WAITED, arrow(MPROF_ARROW_TRY_READ, 2, 3), 9,
            79);
  check_hop(&hops[2], 5, MPROF_WHY_RESOLVED, arrow(MPROF_ARROW_RESOLVE, 5, 3),
            69, 79);
  check_hop(&hops[3], 7, MPROF_WHY_WAITED, arrow(MPROF_ARROW_TRY_READ, 5, 7),
            29, 69);
  check_hop(&hops[4], 8, MPROF_WHY_RESOLVED, arrow(MPROF_ARROW_RESOLVE, 8, 7),
            6, 69);
  check_hop(&hops[5], 1, MPROF_WHY_CREATED, arrow(MPROF_ARROW_CREATE, 1, 8), 0,
            6);
  free(hops);
  mprof_model_free(model);
}

/* The root and threads the model does not hold have no chain. */
static void test_bad_threads(void **state) {
  (void)state;
  feed_story();
  mprof_why_hop_t *hops;
  size_t count;
  assert_int_equal(mprof_model_why(model, MPROF_ROOT_THREAD, &hops, &count),
                   MPROF_EINVAL);
  assert_int_equal(mprof_model_why(model, 1000, &hops, &count), MPROF_EINVAL);
  assert_null(hops);
  mprof_model_free(model);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain_hop_by_hop),
      cmocka_unit_test(test_bad_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
