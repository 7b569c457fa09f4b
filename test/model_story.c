/* model_story.c -- how the model tests (test_model*.c) tell a story: a
 * model at 1 tick = 1 ns, fed events by hand, finished, its threads and
 * arrows looked up (model_story.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model_story.h"

/* A model at 1 tick = 1 ns, fed events through ev(). */
mprof_model_t *model;

void begin(void) {
  assert_int_equal(mprof_model_new(1000000000, 0, &model), 0);
}

/* Feed an event of stream `stream` (threads of `type`, when it creates). */
void ev_typed(uint32_t stream, mprof_event_kind_t kind, uint64_t time,
              uint64_t thread, uint64_t a, uint64_t b, mprof_type_t type) {
  mprof_event_t e;
  memset(&e, 0, sizeof e);
  e.kind = kind;
  e.time_ticks = time;
  e.stream = stream;
  e.thread = thread;
  e.a = a;
  e.b = b;
  e.type = type;
  assert_int_equal(mprof_model_add(model, &e), 0);
}

/* Feed an event of stream `stream` (tasks, when it creates). */
void ev_stream(uint32_t stream, mprof_event_kind_t kind, uint64_t time,
               uint64_t thread, uint64_t a, uint64_t b) {
  ev_typed(stream, kind, time, thread, a, b, MPROF_TASK);
}

void ev(mprof_event_kind_t kind, uint64_t time, uint64_t thread, uint64_t a,
        uint64_t b) {
  ev_stream(0, kind, time, thread, a, b);
}

void ev_text(mprof_event_kind_t kind, uint64_t time, uint64_t a,
             const char *text) {
  ev_text_by(kind, time, 0, a, text);
}

void ev_text_by(mprof_event_kind_t kind, uint64_t time, uint64_t thread,
                uint64_t a, const char *text) {
  mprof_event_t e;
  memset(&e, 0, sizeof e);
  e.kind = kind;
  e.time_ticks = time;
  e.thread = thread;
  e.a = a;
  e.text = text;
  e.text_length = strlen(text);
  assert_int_equal(mprof_model_add(model, &e), 0);
}

const mprof_model_view_t *finish(void) {
  assert_int_equal(mprof_model_finish(model), 0);
  return mprof_model_view(model);
}

const mprof_thread_t *thread(uint64_t id) {
  uint32_t i = mprof_model_find(model, id);
  assert_int_not_equal(i, MPROF_NO_THREAD);
  return &mprof_model_view(model)->threads[i];
}

size_t count_arrows(mprof_arrow_kind_t kind) {
  const mprof_model_view_t *v = mprof_model_view(model);
  size_t n = 0;
  for (size_t i = 0; i < v->arrow_count; i++)
    n += mprof_arrow_at(v, i).kind == kind;
  return n;
}
