/* model_counts.c -- what the model holds, in numbers, as one JSON object:
 * the figures the export tests check the exports against (test_chrome.sh:
 * as Chrome DevTools' trace engine parses them; test_otlp.sh).
 *
 *   model_counts TRACE...
 *
 * Several traces are counted as one model (mprof_model_load_many).
 */
#include <inttypes.h>
#include <stdio.h>

#include "mprof/model.h"

/* Arrows whose two ends are drawn at different times: the flows DevTools
 * keeps (it drops a flow whose ends have one timestamp). */
static size_t arrows_apart(const mprof_model_t *m) {
  const mprof_model_view_t *v = mprof_model_view(m);
  size_t n = 0;
  for (size_t i = 0; i < v->arrow_count; i++) {
    int64_t from_ns, to_ns;
    mprof_model_arrow_ends(m, &v->arrows[i], &from_ns, &to_ns);
    n += from_ns != to_ns;
  }
  return n;
}

/* Arrows an OTLP export makes links: all but creations and those from the
 * root. */
static size_t links(const mprof_model_view_t *v) {
  size_t n = 0;
  for (size_t i = 0; i < v->arrow_count; i++)
    n += v->arrows[i].kind != MPROF_ARROW_CREATE &&
         v->arrows[i].from != MPROF_ROOT_THREAD;
  return n;
}

static size_t failed(const mprof_model_view_t *v) {
  size_t n = 0;
  for (size_t i = 1; i < v->thread_count; i++)
    n += v->threads[i].ending == MPROF_ENDING_FAILED;
  return n;
}

/* Messages between the traces, and those whose ends are apart. */
typedef struct messages_s {
  size_t count, apart;
} messages_t;

static int count_message(void *context, const mprof_message_t *msg) {
  messages_t *n = context;
  n->count++;
  n->apart += msg->send_ns != msg->receive_ns;
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc - 1 > MPROF_MODEL_MAX_TRACES) {
    fprintf(stderr, "usage: model_counts TRACE...\n");
    return 2;
  }
  mprof_trace_t *traces[MPROF_MODEL_MAX_TRACES];
  for (int i = 1; i < argc; i++)
    if (mprof_trace_open(argv[i], NULL, NULL, &traces[i - 1])) return 1;
  mprof_model_t *m;
  if (mprof_model_load_many((const mprof_trace_t *const *)traces,
                            (size_t)argc - 1, NULL, &m))
    return 1;
  const mprof_model_view_t *v = mprof_model_view(m);
  messages_t messages = {0, 0};
  if (mprof_model_messages(m, count_message, &messages)) return 1;
  printf("{\"threads\":%zu,\"labels\":%zu,\"running\":%zu,\"bands\":%zu,"
         "\"arrows\":%zu,\"arrows_apart\":%zu,\"counters\":%zu,"
         "\"samples\":%zu,\"streams\":%" PRIu32 ",\"links\":%zu,"
         "\"failed\":%zu,\"messages\":%zu,\"messages_apart\":%zu}\n",
         v->thread_count - 1, v->label_count, v->running_count, v->band_count,
         v->arrow_count, arrows_apart(m), v->counter_count, v->sample_count,
         v->stream_count, links(v), failed(v), messages.count,
         messages.apart);
  mprof_model_free(m);
  for (int i = 1; i < argc; i++) mprof_trace_close(traces[i - 1]);
  return 0;
}
