/* model_events.c -- what the model holds, item by item, as one JSON
 * object: the truth the export tests compare the exports with, event by
 * event (test_chrome.sh through Chrome DevTools' trace engine,
 * test_otlp.sh).  Strings are hex of their raw bytes, so that a test can
 * undo the export's own escaping and compare bytes.  Places are given as
 * the export documents them (docs/interop.md): pid = trace + 1, tid =
 * stream number + 1.
 *
 *   model_events TRACE...
 *
 * Several traces are one model (mprof_model_load_many), as in the export.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mprof/model.h"

static void put_hex(const char *text) {
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)text; *p; p++)
    printf("%02x", *p);
  putchar('"');
}

static void put_thread_name(const mprof_model_t *m, uint32_t thread) {
  char name[256];
  put_hex(mprof_model_thread_name(m, thread, name, sizeof name));
}

static uint32_t stream_pid(const mprof_model_t *m, uint32_t stream) {
  return MPROF_MODEL_TRACE(mprof_model_stream_id(m, stream)) + 1;
}

static uint32_t stream_tid(const mprof_model_t *m, uint32_t stream) {
  return (mprof_model_stream_id(m, stream) & 0xffffff) + 1;
}

/* Each OS-thread stream's track. */
static void put_streams(const mprof_model_t *m, const mprof_model_view_t *v) {
  fputs(",\"streams\":[", stdout);
  for (uint32_t s = 0; s < v->stream_count; s++)
    printf("%s[%" PRIu32 ",%" PRIu32 "]", s ? "," : "", stream_pid(m, s),
           stream_tid(m, s));
  fputs("]", stdout);
}

/* Each async thread: index, trace id, process, creator, ending, when,
 * name and labels. */
static void put_threads(const mprof_model_t *m, const mprof_model_view_t *v) {
  fputs("\"threads\":[", stdout);
  for (uint32_t t = 1; t < v->thread_count; t++) {
    const mprof_thread_t *th = &v->threads[t];
    printf("%s\n{\"index\":%" PRIu32 ",\"id\":%" PRId64 ",\"pid\":%" PRIu32
           ",\"creator\":%" PRIu32 ",\"ending\":\"%s\",\"start\":%" PRId64
           ",\"end\":%" PRId64 ",\"name\":",
           t > 1 ? "," : "", t, (int64_t)th->id,
           MPROF_MODEL_THREAD_TRACE(th->id) + 1, th->creator,
           mprof_ending_name((mprof_ending_t)th->ending), th->start_ns,
           th->end_ns);
    put_thread_name(m, t);
    fputs(",\"labels\":[", stdout);
    for (uint32_t i = 0; i < th->label_count; i++) {
      mprof_label_t l = mprof_label_at(v, th->first_label + i);
      printf("%s[%" PRId64 ",", i ? "," : "", l.time_ns);
      put_hex(v->strings + l.text);
      putchar(']');
    }
    fputs("]}", stdout);
  }
  fputs("]", stdout);
}

static void put_span(const mprof_model_t *m, const mprof_span_t *span,
                     const char *cat, const char *name, int first) {
  printf("%s\n{\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"cat\":\"%s\","
         "\"thread\":%" PRIu32 ",\"start\":%" PRId64 ",\"end\":%" PRId64
         ",\"name\":",
         first ? "" : ",", stream_pid(m, span->stream),
         stream_tid(m, span->stream), cat,
         span->thread == MPROF_NO_THREAD ? 0 : span->thread, span->start_ns,
         span->end_ns);
  if (name)
    put_hex(name);
  else
    put_thread_name(m, span->thread);
  putchar('}');
}

/* Running intervals (named after their thread) and idle bands. */
static void put_spans(const mprof_model_t *m, const mprof_model_view_t *v) {
  fputs(",\"spans\":[", stdout);
  for (size_t i = 0; i < v->running_count; i++) {
    mprof_span_t span = mprof_running_at(v, i);
    put_span(m, &span, "running", NULL, i == 0);
  }
  for (size_t i = 0; i < v->band_count; i++) {
    mprof_band_t band = mprof_band_at(v, i);
    put_span(m, &band.span, "idle", band.kind == MPROF_BAND_GC ? "gc" : "idle",
             i == 0 && v->running_count == 0);
  }
  fputs("]", stdout);
}

/* Each arrow: its kind, stream, threads, time, and where its two ends are
 * drawn. */
static void put_arrows(const mprof_model_t *m, const mprof_model_view_t *v) {
  fputs(",\"arrows\":[", stdout);
  for (size_t i = 0; i < v->arrow_count; i++) {
    mprof_arrow_t a = mprof_arrow_at(v, i);
    int64_t from_ns, to_ns;
    mprof_model_arrow_ends(m, &a, &from_ns, &to_ns);
    printf("%s\n{\"kind\":\"%s\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
           ",\"from\":%" PRIu32 ",\"to\":%" PRIu32 ",\"time\":%" PRId64
           ",\"from_ns\":%" PRId64 ",\"to_ns\":%" PRId64 ",\"from_name\":",
           i ? "," : "", mprof_arrow_kind_name((mprof_arrow_kind_t)a.kind),
           stream_pid(m, a.stream), stream_tid(m, a.stream), a.from, a.to,
           a.time_ns, from_ns, to_ns);
    put_thread_name(m, a.from);
    fputs(",\"to_name\":", stdout);
    put_thread_name(m, a.to);
    putchar('}');
  }
  fputs("]", stdout);
}

static int put_message(void *context, const mprof_message_t *msg) {
  int *first = context;
  printf("%s\n{\"from\":%" PRIu32 ",\"to\":%" PRIu32 ",\"from_ns\":%" PRId64
         ",\"to_ns\":%" PRId64 "}",
         *first ? "" : ",", msg->send_thread, msg->receive_thread, msg->send_ns,
         msg->receive_ns);
  *first = 0;
  return 0;
}

/* Every counter sample: the counter's process and name, time, value. */
static void put_samples(const mprof_model_view_t *v) {
  fputs(",\"samples\":[", stdout);
  int first = 1;
  for (size_t c = 0; c < v->counter_count; c++) {
    const mprof_counter_series_t *s = &v->counters[c];
    for (uint32_t j = 0; j < s->sample_count; j++) {
      mprof_sample_t sample = mprof_sample_at(v, s->first_sample + j);
      printf("%s\n{\"pid\":%" PRIu32 ",\"time\":%" PRId64 ",\"value\":%" PRId64
             ",\"name\":",
             first ? "" : ",", MPROF_MODEL_TRACE(s->id) + 1, sample.time_ns,
             sample.value);
      put_hex(v->strings + s->name);
      putchar('}');
      first = 0;
    }
  }
  fputs("]", stdout);
}

int main(int argc, char **argv) {
  if (argc < 2 || argc - 1 > MPROF_MODEL_MAX_TRACES) {
    fprintf(stderr, "usage: model_events TRACE...\n");
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
  printf("{\"wall_start\":%" PRId64 ",", v->wall_start_ns);
  put_threads(m, v);
  put_streams(m, v);
  put_spans(m, v);
  put_arrows(m, v);
  fputs(",\"messages\":[", stdout);
  int first = 1;
  int failed = mprof_model_messages(m, put_message, &first);
  fputs("]", stdout);
  put_samples(v);
  puts("}");
  mprof_model_free(m);
  for (int i = 1; i < argc; i++) mprof_trace_close(traces[i - 1]);
  return failed ? 1 : 0;
}
