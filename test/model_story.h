/* model_story.h -- a small story told to the model by hand, for the model
 * tests (test_model*.c): begin() a model at 1 tick = 1 ns, feed it events
 * with ev() and its kin, finish() it, look its threads up by id. */
#ifndef MPROF_TEST_MODEL_STORY_H
#define MPROF_TEST_MODEL_STORY_H

#include "mprof/model.h"

/* The model of the story being told (begin() makes it). */
extern mprof_model_t *model;

void begin(void);
/* Feed an event of stream `stream` (threads of `type`, when it creates). */
void ev_typed(uint32_t stream, mprof_event_kind_t kind, uint64_t time,
              uint64_t thread, uint64_t a, uint64_t b, mprof_type_t type);
/* Feed an event of stream `stream` (tasks, when it creates). */
void ev_stream(uint32_t stream, mprof_event_kind_t kind, uint64_t time,
               uint64_t thread, uint64_t a, uint64_t b);
/* The same on stream 0. */
void ev(mprof_event_kind_t kind, uint64_t time, uint64_t thread, uint64_t a,
        uint64_t b);
/* An event with a text (a label, a failure, a counter's name). */
void ev_text(mprof_event_kind_t kind, uint64_t time, uint64_t a,
             const char *text);
/* The same, recorded while `thread` runs. */
void ev_text_by(mprof_event_kind_t kind, uint64_t time, uint64_t thread,
                uint64_t a, const char *text);
/* Finish the model; its view. */
const mprof_model_view_t *finish(void);
/* The thread of trace id `id` (it must exist). */
const mprof_thread_t *thread(uint64_t id);
/* How many arrows of a kind the model holds. */
size_t count_arrows(mprof_arrow_kind_t kind);

#endif /* MPROF_TEST_MODEL_STORY_H */
