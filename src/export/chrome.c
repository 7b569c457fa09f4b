/* chrome.c -- mprof_export_chrome(): the model as Chrome's Trace Event
 * Format (JSON), which Chrome DevTools' Performance panel and Perfetto
 * open.  Several traces share one time axis (one process each).  The JSON
 * is written while walking the model, one event per line, never held in
 * memory.
 *
 * Mapping (docs/interop.md): a process per trace (pid = trace + 1); an
 * async slice (b/e, id = thread index) per async thread with its labels as
 * instants (n); a track per OS-thread stream (tid = stream + 1) holding the
 * running intervals and idle bands as complete slices (X); a flow (s/f)
 * per arrow, bound to an instant (i) at each end; a flow per message
 * between processes (a matched send and receive); a counter track (C) per
 * counter; per finding a global instant (i, s g) and an async slice (b/e,
 * cat finding) over its time.
 */
#include <inttypes.h>
#include <string.h>

#include "export_internal.h"

/* What every event line needs. */
typedef struct chrome_s {
  FILE *f;
  const mprof_model_t *model;
  const mprof_model_view_t *view;
  const mprof_analysis_t *analysis; /* the findings to write */
  int first;       /* no event written yet (no comma before the next) */
  size_t messages; /* message flows written */
  mprof__export_progress_t progress; /* counts the model's items written */
} chrome_t;

/* Microseconds with the nanoseconds kept: Chrome's unit is the us. */
static void put_us(FILE *f, int64_t ns) {
  fprintf(f, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
}

/* Start an event object: {"ph":"X","pid":P,"tid":T,"ts":TS */
static void event_open(chrome_t *c, char phase, uint32_t pid, uint32_t tid,
                       int64_t ts_ns) {
  fprintf(c->f,
          "%s{\"ph\":\"%c\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":",
          c->first ? "" : ",\n", phase, pid, tid);
  put_us(c->f, ts_ns);
  c->first = 0;
}

/* "key":"text" (escaped), after a comma unless first. */
static void put_name(FILE *f, int first, const char *key, const char *text) {
  fprintf(f, "%s\"%s\":", first ? "" : ",", key);
  mprof_json_put_text(f, text, strlen(text));
}

static uint32_t stream_pid(const chrome_t *c, uint32_t stream) {
  return MPROF_MODEL_TRACE(mprof_model_stream_id(c->model, stream)) + 1;
}

static uint32_t stream_tid(const chrome_t *c, uint32_t stream) {
  return (mprof_model_stream_id(c->model, stream) & 0xffffff) + 1;
}

static uint32_t thread_pid(const chrome_t *c, uint32_t thread) {
  return MPROF_MODEL_THREAD_TRACE(c->view->threads[thread].id) + 1;
}

/* Process names (the trace paths) and stream names. */
static void put_names(chrome_t *c, const char *const *paths, size_t count) {
  for (size_t i = 0; i < count; i++) {
    event_open(c, 'M', (uint32_t)i + 1, 0, 0);
    fputs(",\"name\":\"process_name\",\"args\":{", c->f);
    put_name(c->f, 1, "name", paths[i]);
    fputs("}}", c->f);
    event_open(c, 'M', (uint32_t)i + 1, 0, 0);
    fputs(",\"name\":\"thread_name\",\"args\":{\"name\":\"async threads\"}}",
          c->f);
  }
  for (uint32_t s = 0; s < c->view->stream_count; s++) {
    event_open(c, 'M', stream_pid(c, s), stream_tid(c, s), 0);
    fprintf(c->f,
            ",\"name\":\"thread_name\",\"args\":{\"name\":\"stream %" PRIu32
            "\"}}",
            stream_tid(c, s) - 1);
  }
}

/* An async thread: b, its labels as n, e. */
static void put_thread(chrome_t *c, uint32_t t) {
  const mprof_thread_t *th = &c->view->threads[t];
  char name[256];
  mprof__export_step(&c->progress);
  mprof_model_thread_name(c->model, t, name, sizeof name);
  uint32_t pid = thread_pid(c, t);
  event_open(c, 'b', pid, 0, th->start_ns);
  fprintf(c->f, ",\"cat\":\"thread\",\"id\":\"0x%" PRIx32 "\"", t);
  put_name(c->f, 0, "name", name);
  fprintf(c->f, ",\"args\":{\"id\":%" PRIu64 ",\"type\":\"%s\"}}", th->id,
          mprof_type_name((mprof_type_t)th->type));
  for (uint32_t i = 0; i < th->label_count; i++) {
    mprof_label_t l = mprof_label_at(c->view, th->first_label + i);
    event_open(c, 'n', pid, 0, l.time_ns);
    fprintf(c->f, ",\"cat\":\"thread\",\"id\":\"0x%" PRIx32 "\"", t);
    put_name(c->f, 0, "name", name);
    fputs(",\"args\":{", c->f);
    put_name(c->f, 1, "label", c->view->strings + l.text);
    fputs("}}", c->f);
  }
  event_open(c, 'e', pid, 0, th->end_ns);
  fprintf(c->f, ",\"cat\":\"thread\",\"id\":\"0x%" PRIx32 "\"", t);
  put_name(c->f, 0, "name", name);
  fprintf(c->f, ",\"args\":{\"ending\":\"%s\"",
          mprof_ending_name((mprof_ending_t)th->ending));
  if (th->failure) put_name(c->f, 0, "failure", c->view->strings + th->failure);
  fputs("}}", c->f);
}

/* A running interval or band as a complete slice on its stream's track. */
static void put_span(chrome_t *c, const mprof_span_t *span, const char *cat,
                     const char *name) {
  mprof__export_step(&c->progress);
  event_open(c, 'X', stream_pid(c, span->stream), stream_tid(c, span->stream),
             span->start_ns);
  fprintf(c->f, ",\"cat\":\"%s\",\"dur\":", cat);
  put_us(c->f, span->end_ns - span->start_ns);
  put_name(c->f, 0, "name", name);
  fputs("}", c->f);
}

static void put_spans(chrome_t *c) {
  char name[256];
  for (size_t i = 0; i < c->view->running_count && !ferror(c->f); i++) {
    mprof_span_t span = mprof_running_at(c->view, i);
    mprof_model_thread_name(c->model, span.thread, name, sizeof name);
    put_span(c, &span, "running", name);
  }
  for (size_t i = 0; i < c->view->band_count && !ferror(c->f); i++) {
    mprof_band_t band = mprof_band_at(c->view, i);
    put_span(c, &band.span, "idle", band.kind == MPROF_BAND_GC ? "gc" : "idle");
  }
}

/* Where a flow end goes: a track, a time, a category and a name. */
typedef struct flow_end_s {
  uint32_t pid, tid;
  int64_t ns;
  const char *cat, *kind;
} flow_end_t;

/* One end of flow id: an instant to bind to, and the flow event. */
static void put_flow_end(chrome_t *c, const flow_end_t *end, size_t id,
                         char phase, uint32_t thread) {
  char name[256];
  mprof_model_thread_name(c->model, thread, name, sizeof name);
  event_open(c, 'i', end->pid, end->tid, end->ns);
  fprintf(c->f, ",\"s\":\"t\",\"cat\":\"%s\",\"name\":\"%s\",\"args\":{",
          end->cat, end->kind);
  put_name(c->f, 1, phase == 's' ? "from" : "to", name);
  fputs("}}", c->f);
  event_open(c, phase, end->pid, end->tid, end->ns);
  fprintf(c->f, ",\"cat\":\"%s\",\"name\":\"%s\",\"id\":%zu%s}", end->cat,
          end->kind, id, phase == 'f' ? ",\"bp\":\"e\"" : "");
}

/* An arrow: both ends on the stream where its event happened. */
static void put_arrows(chrome_t *c) {
  for (size_t i = 0; i < c->view->arrow_count && !ferror(c->f); i++) {
    mprof_arrow_t a = mprof_arrow_at(c->view, i);
    mprof__export_step(&c->progress);
    flow_end_t from = {stream_pid(c, a.stream), stream_tid(c, a.stream), 0,
                       "arrow",
                       mprof_arrow_kind_name((mprof_arrow_kind_t)a.kind)};
    flow_end_t to = from;
    mprof_model_arrow_ends(c->model, &a, &from.ns, &to.ns);
    put_flow_end(c, &from, i + 1, 's', a.from);
    put_flow_end(c, &to, i + 1, 'f', a.to);
  }
}

/* A message between processes: a flow from the sending thread's process to
 * the receiving one's (on their async-thread tracks). */
static int put_message(void *context, const mprof_message_t *msg) {
  chrome_t *c = context;
  size_t id = c->view->arrow_count + ++c->messages;
  flow_end_t send = {thread_pid(c, msg->send_thread), 0, msg->send_ns,
                     "message", "message"};
  flow_end_t receive = {thread_pid(c, msg->receive_thread), 0, msg->receive_ns,
                        "message", "message"};
  put_flow_end(c, &send, id, 's', msg->send_thread);
  put_flow_end(c, &receive, id, 'f', msg->receive_thread);
  return 0;
}

static void put_counters(chrome_t *c) {
  for (size_t i = 0; i < c->view->counter_count; i++) {
    const mprof_counter_series_t *s = &c->view->counters[i];
    for (uint32_t j = 0; j < s->sample_count && !ferror(c->f); j++) {
      mprof_sample_t sample = mprof_sample_at(c->view, s->first_sample + j);
      mprof__export_step(&c->progress);
      event_open(c, 'C', MPROF_MODEL_TRACE(s->id) + 1, 0, sample.time_ns);
      put_name(c->f, 0, "name", c->view->strings + s->name);
      fprintf(c->f, ",\"args\":{\"value\":%" PRId64 "}}", sample.value);
    }
  }
}

/* --- Findings ------------------------------------------------------------- */

/* {"id":ID,"name":NAME}: a thread as the async slice names it. */
static void put_thread_ref(chrome_t *c, uint32_t t) {
  char name[256];
  fprintf(c->f, "{\"id\":%" PRIu64, c->view->threads[t].id);
  put_name(c->f, 0, "name",
           mprof_model_thread_name(c->model, t, name, sizeof name));
  fputs("}", c->f);
}

/* "threads":[THREAD...], the one at fault first. */
static void put_finding_threads(chrome_t *c, const mprof_finding_t *f) {
  fputs(",\"threads\":[", c->f);
  for (uint32_t k = 0; k < f->thread_count; k++) {
    if (k) fputs(",", c->f);
    put_thread_ref(c, c->analysis->finding_threads[f->first_thread + k]);
  }
  fputs("]", c->f);
}

/* "evidence":[{"kind":K,"thread":THREAD,"count":N,"start_ns":S,
 * "end_ns":E}...] */
static void put_finding_evidence(chrome_t *c, const mprof_finding_t *f) {
  fputs(",\"evidence\":[", c->f);
  for (uint32_t k = 0; k < f->evidence_count; k++) {
    const mprof_evidence_t *e = &c->analysis->evidence[f->first_evidence + k];
    fprintf(c->f, "%s{\"kind\":\"%s\",\"thread\":", k ? "," : "",
            mprof_evidence_kind_name((mprof_evidence_kind_t)e->kind));
    put_thread_ref(c, e->thread);
    fprintf(c->f,
            ",\"count\":%" PRIu32 ",\"start_ns\":%" PRId64
            ",\"end_ns\":%" PRId64 "}",
            e->count, e->start_ns, e->end_ns);
  }
  fputs("]", c->f);
}

/* A finding at its start: a global instant named after its kind, its
 * severity, summary, threads, times and evidence in args. */
static void put_finding_instant(chrome_t *c, const mprof_finding_t *f,
                                uint32_t pid) {
  event_open(c, 'i', pid, 0, f->start_ns);
  fprintf(c->f, ",\"s\":\"g\",\"cat\":\"finding\",\"name\":\"%s\"",
          mprof_finding_kind_name((mprof_finding_kind_t)f->kind));
  fprintf(c->f, ",\"args\":{\"severity\":\"%s\"",
          mprof_severity_name((mprof_severity_t)f->severity));
  put_name(c->f, 0, "summary", c->analysis->text + f->summary);
  put_finding_threads(c, f);
  fprintf(c->f,
          ",\"start_ns\":%" PRId64 ",\"end_ns\":%" PRId64
          ",\"value_ns\":%" PRId64,
          f->start_ns, f->end_ns, f->value_ns);
  put_finding_evidence(c, f);
  fputs("}}", c->f);
}

/* Finding i (from 0) as an async slice over [start_ns, end_ns), on the
 * async-thread track of its process, so its time is seen at a glance. */
static void put_finding_slice(chrome_t *c, const mprof_finding_t *f,
                              uint32_t pid, size_t i) {
  const char *kind = mprof_finding_kind_name((mprof_finding_kind_t)f->kind);
  event_open(c, 'b', pid, 0, f->start_ns);
  fprintf(c->f,
          ",\"cat\":\"finding\",\"id\":\"0x%zx\",\"name\":\"%s\",\"args\":{"
          "\"severity\":\"%s\"}}",
          i, kind, mprof_severity_name((mprof_severity_t)f->severity));
  event_open(c, 'e', pid, 0, f->end_ns > f->start_ns ? f->end_ns : f->start_ns);
  fprintf(c->f, ",\"cat\":\"finding\",\"id\":\"0x%zx\",\"name\":\"%s\"}", i,
          kind);
}

static void put_findings(chrome_t *c) {
  for (size_t i = 0; i < c->analysis->finding_count && !ferror(c->f); i++) {
    const mprof_finding_t *f = &c->analysis->findings[i];
    uint32_t pid = mprof__finding_trace(c->model, c->analysis, f) + 1;
    mprof__export_step(&c->progress);
    put_finding_instant(c, f, pid);
    put_finding_slice(c, f, pid, i);
  }
}

/* --- Entry point ---------------------------------------------------------- */

static size_t item_count(const mprof_model_view_t *v,
                         const mprof_analysis_t *a) {
  return v->thread_count - 1 + v->running_count + v->band_count +
         v->arrow_count + v->sample_count + a->finding_count;
}

int mprof_export_chrome(FILE *f, const mprof_model_t *m,
                        const mprof_export_options_t *options) {
  chrome_t c = {f, m, NULL, NULL, 1, 0, {NULL, NULL, 0, 0}};
  mprof_analysis_t own;
  int err = mprof__export_begin(m, options, &own, &c.analysis, &c.progress);
  if (err) return err;
  c.view = mprof_model_view(m);
  c.progress.total = item_count(c.view, c.analysis);
  fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f);
  put_names(&c, options->names, options->count);
  for (uint32_t t = 1; t < c.view->thread_count && !ferror(f); t++)
    put_thread(&c, t);
  put_spans(&c);
  put_arrows(&c);
  err = mprof_model_messages(m, put_message, &c);
  if (!err) {
    put_counters(&c);
    put_findings(&c);
    fputs("\n]}\n", f);
    err = mprof__export_result(f);
  }
  mprof__export_end(&own, c.analysis);
  return err;
}
