/* otlp.c -- mprof_export_otlp(): the model as an OTLP/JSON
 * ExportTraceServiceRequest, the body an OpenTelemetry collector takes on
 * POST /v1/traces.  Written while walking the model; only indexes (by
 * thread) are built, never the JSON.
 *
 * Mapping (docs/OTLP.md): a resource per trace; a span per async thread,
 * its parent the thread that created it, its OTel trace the tree of its
 * top-level ancestor; its labels as span events; every other arrow into
 * it, and every message it received from another process, as a link from
 * the thread it came from; a span per finding, in a scope of its own,
 * the child of the thread at fault.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"

typedef struct otlp_s {
  FILE *f;
  const mprof_model_t *model;
  const mprof_model_view_t *view;
  const mprof_export_options_t *options;
  const mprof_analysis_t *analysis; /* the findings to write */
  mprof__export_progress_t *progress;
  uint32_t *top;             /* per thread: its top-level ancestor */
  uint32_t *in_first;        /* per thread + 1: arrows into it in in_arrows */
  uint32_t *in_arrows;       /* arrow indexes grouped by target */
  int64_t *running_ns;       /* per thread: time it ran */
  mprof_message_t *messages; /* between traces, by receiving thread */
  size_t message_count, message_cap;
  int out_of_memory;
} otlp_t;

static uint64_t fnv1a(uint64_t h, const void *data, size_t size) {
  const unsigned char *p = data;
  for (size_t i = 0; i < size; i++) h = (h ^ p[i]) * 0x100000001b3u;
  return h;
}

/* The hash of trace i's uuid, which every id of its spans starts from. */
static uint64_t trace_hash(const otlp_t *o, uint32_t trace) {
  assert(trace < o->options->count);
  const uint8_t *uuid = mprof_trace_info(o->options->traces[trace])->uuid;
  return fnv1a(0xcbf29ce484222325u, uuid, 16);
}

/* A span id unique across traces: the trace's uuid and the thread id.  The
 * reader delivers no id with a top byte (the model's trace index) of its
 * own. */
static uint64_t span_id(const otlp_t *o, uint32_t thread) {
  uint64_t id = o->view->threads[thread].id;
  uint64_t h =
      fnv1a(trace_hash(o, MPROF_MODEL_THREAD_TRACE(id)), &id, sizeof id);
  return h ? h : 1;
}

/* The OTel trace id: the trace's uuid hash, then the top span's id. */
static void put_trace_id(const otlp_t *o, uint32_t thread) {
  uint32_t top = o->top[thread];
  fprintf(o->f, "\"%016" PRIx64 "%016" PRIx64 "\"",
          trace_hash(o, MPROF_MODEL_THREAD_TRACE(o->view->threads[top].id)),
          span_id(o, top));
}

/* ns on the model's axis as ns since the Unix epoch, as OTLP's unsigned
 * times want them: saturated (a damaged clock_offset can put it anywhere). */
static int64_t unix_ns(const otlp_t *o, int64_t ns) {
  int64_t at;
  if (__builtin_add_overflow(o->view->wall_start_ns, ns, &at))
    at = ns > 0 ? INT64_MAX : 0;
  return at < 0 ? 0 : at;
}

static void put_time(const otlp_t *o, const char *key, int64_t ns) {
  fprintf(o->f, ",\"%s\":\"%" PRId64 "\"", key, unix_ns(o, ns));
}

static void put_attribute(FILE *f, int first, const char *key,
                          const char *value) {
  fprintf(f, "%s{\"key\":\"%s\",\"value\":{\"stringValue\":", first ? "" : ",",
          key);
  mprof_json_put_text(f, value, strlen(value));
  fputs("}}", f);
}

static void put_int_attribute(FILE *f, const char *key, int64_t value) {
  fprintf(f, ",{\"key\":\"%s\",\"value\":{\"intValue\":\"%" PRId64 "\"}}", key,
          value);
}

/* --- Indexes -------------------------------------------------------------- */

static uint32_t top_of(otlp_t *o, uint32_t t) {
  uint32_t at = t;
  for (size_t steps = 0; steps < o->view->thread_count; steps++) {
    uint32_t creator = o->view->threads[at].creator;
    if (o->top[at] != MPROF_NO_THREAD) return o->top[at];
    if (creator == MPROF_ROOT_THREAD || creator >= o->view->thread_count)
      return at;
    at = creator;
  }
  return t; /* a cycle of creators in a damaged trace */
}

static int collect_message(void *context, const mprof_message_t *msg) {
  otlp_t *o = context;
  if (o->message_count == o->message_cap) {
    size_t cap = o->message_cap ? 2 * o->message_cap : 64;
    mprof_message_t *grown = realloc(o->messages, cap * sizeof *grown);
    if (!grown) return o->out_of_memory = 1;
    o->messages = grown;
    o->message_cap = cap;
  }
  o->messages[o->message_count++] = *msg;
  return 0;
}

static int index_model(otlp_t *o) {
  const mprof_model_view_t *v = o->view;
  size_t n = v->thread_count;
  o->top = malloc(n * sizeof *o->top);
  o->in_first = calloc(n + 1, sizeof *o->in_first);
  o->in_arrows =
      malloc((v->arrow_count ? v->arrow_count : 1) * sizeof *o->in_arrows);
  o->running_ns = calloc(n, sizeof *o->running_ns);
  if (!o->top || !o->in_first || !o->in_arrows || !o->running_ns) return -1;
  for (size_t t = 0; t < n; t++) o->top[t] = MPROF_NO_THREAD;
  for (uint32_t t = 1; t < n; t++) o->top[t] = top_of(o, t);
  for (size_t i = 0; i < v->arrow_count; i++)
    o->in_first[mprof_arrow_at(v, i).to + 1]++;
  for (size_t t = 0; t < n; t++) o->in_first[t + 1] += o->in_first[t];
  uint32_t *fill = calloc(n, sizeof *fill);
  if (!fill) return -1;
  for (uint32_t i = 0; i < v->arrow_count; i++) {
    uint32_t to = mprof_arrow_at(v, i).to;
    o->in_arrows[o->in_first[to] + fill[to]++] = i;
  }
  free(fill);
  for (size_t i = 0; i < v->running_count; i++) {
    mprof_span_t span = mprof_running_at(v, i);
    if (span.thread < n)
      o->running_ns[span.thread] += span.end_ns - span.start_ns;
  }
  if (mprof_model_messages(o->model, collect_message, o)) return -1;
  return o->out_of_memory ? -1 : 0;
}

static void index_free(otlp_t *o) {
  free(o->top);
  free(o->in_first);
  free(o->in_arrows);
  free(o->running_ns);
  free(o->messages);
}

/* --- Spans ---------------------------------------------------------------- */

static void put_events(const otlp_t *o, const mprof_thread_t *th) {
  fputs(",\"events\":[", o->f);
  for (uint32_t i = 0; i < th->label_count; i++) {
    mprof_label_t l = mprof_label_at(o->view, th->first_label + i);
    fputs(i ? ",{\"name\":\"label\"" : "{\"name\":\"label\"", o->f);
    put_time(o, "timeUnixNano", l.time_ns);
    fputs(",\"attributes\":[", o->f);
    put_attribute(o->f, 1, "mprof.label", o->view->strings + l.text);
    fputs("]}", o->f);
  }
  fputs("]", o->f);
}

/* A link from span `from`, of kind `kind`, at model time ns. */
static void put_link(const otlp_t *o, int first, uint32_t from,
                     const char *kind, int64_t ns) {
  fputs(first ? "{\"traceId\":" : ",{\"traceId\":", o->f);
  put_trace_id(o, from);
  fprintf(o->f, ",\"spanId\":\"%016" PRIx64 "\",\"attributes\":[",
          span_id(o, from));
  put_attribute(o->f, 1, "mprof.arrow", kind);
  put_int_attribute(o->f, "mprof.arrow.time_unix_nano", unix_ns(o, ns));
  fputs("]}", o->f);
}

/* The first message received by thread t or a later one. */
static size_t first_message(const otlp_t *o, uint32_t t) {
  size_t lo = 0, hi = o->message_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (o->messages[mid].receive_thread < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Every arrow into t but its creation, and every message it received, as
 * a link from where it came. */
static void put_links(const otlp_t *o, uint32_t t) {
  int first = 1;
  fputs(",\"links\":[", o->f);
  for (uint32_t i = o->in_first[t]; i < o->in_first[t + 1]; i++) {
    mprof_arrow_t a = mprof_arrow_at(o->view, o->in_arrows[i]);
    if (a.kind == MPROF_ARROW_CREATE || a.from == MPROF_ROOT_THREAD ||
        a.from >= o->view->thread_count)
      continue;
    put_link(o, first, a.from,
             mprof_arrow_kind_name((mprof_arrow_kind_t)a.kind), a.time_ns);
    first = 0;
  }
  for (size_t i = first_message(o, t);
       i < o->message_count && o->messages[i].receive_thread == t; i++) {
    put_link(o, first, o->messages[i].send_thread, "message",
             o->messages[i].send_ns);
    first = 0;
  }
  fputs("]", o->f);
}

static void put_span(const otlp_t *o, uint32_t t, int first) {
  const mprof_thread_t *th = &o->view->threads[t];
  char name[256];
  mprof_model_thread_name(o->model, t, name, sizeof name);
  fputs(first ? "{\"traceId\":" : ",\n{\"traceId\":", o->f);
  put_trace_id(o, t);
  fprintf(o->f, ",\"spanId\":\"%016" PRIx64 "\"", span_id(o, t));
  if (th->creator != MPROF_ROOT_THREAD && th->creator < o->view->thread_count)
    fprintf(o->f, ",\"parentSpanId\":\"%016" PRIx64 "\"",
            span_id(o, th->creator));
  fputs(",\"name\":", o->f);
  mprof_json_put_text(o->f, name, strlen(name));
  fputs(",\"kind\":1", o->f); /* SPAN_KIND_INTERNAL */
  put_time(o, "startTimeUnixNano", th->start_ns);
  put_time(o, "endTimeUnixNano", th->end_ns);
  fputs(",\"attributes\":[", o->f);
  put_attribute(o->f, 1, "mprof.thread.type",
                mprof_type_name((mprof_type_t)th->type));
  put_int_attribute(o->f, "mprof.thread.id", (int64_t)th->id);
  put_attribute(o->f, 0, "mprof.ending",
                mprof_ending_name((mprof_ending_t)th->ending));
  put_int_attribute(o->f, "mprof.running_ns", o->running_ns[t]);
  if (th->flags & MPROF_THREAD_STALLED)
    put_attribute(o->f, 0, "mprof.stalled", "never resolved");
  fputs("]", o->f);
  put_events(o, th);
  put_links(o, t);
  if (th->ending == MPROF_ENDING_FAILED) {
    fputs(",\"status\":{\"code\":2,\"message\":", o->f); /* ERROR */
    const char *why = th->failure ? o->view->strings + th->failure : "failed";
    mprof_json_put_text(o->f, why, strlen(why));
    fputs("}", o->f);
  }
  fputs("}", o->f);
}

/* --- Findings ------------------------------------------------------------ */

/* Finding i's span id: unique, from its trace's uuid and its index. */
static uint64_t finding_span_id(const otlp_t *o, uint32_t trace, size_t i) {
  uint64_t h = fnv1a(trace_hash(o, trace), "finding", 7);
  h = fnv1a(h, &i, sizeof i);
  return h ? h : 1;
}

/* Whether thread t has a span: every thread but the root, which the
 * trace never holds (a finding may name it: what made a request). */
static int has_span(const otlp_t *o, uint32_t t) {
  return t != MPROF_ROOT_THREAD && t < o->view->thread_count;
}

/* Its evidence as span events named after their kind, at their start. */
static void put_evidence(const otlp_t *o, const mprof_finding_t *f) {
  char name[256];
  fputs(",\"events\":[", o->f);
  for (uint32_t k = 0; k < f->evidence_count; k++) {
    const mprof_evidence_t *e = &o->analysis->evidence[f->first_evidence + k];
    fprintf(o->f, "%s{\"name\":\"%s\"", k ? "," : "",
            mprof_evidence_kind_name((mprof_evidence_kind_t)e->kind));
    put_time(o, "timeUnixNano", e->start_ns);
    fputs(",\"attributes\":[", o->f);
    put_attribute(
        o->f, 1, "mprof.evidence.thread",
        mprof_model_thread_name(o->model, e->thread, name, sizeof name));
    put_int_attribute(o->f, "mprof.evidence.thread.id",
                      (int64_t)o->view->threads[e->thread].id);
    put_int_attribute(o->f, "mprof.evidence.end_unix_nano",
                      unix_ns(o, e->end_ns));
    put_int_attribute(o->f, "mprof.evidence.count", e->count);
    fputs("]}", o->f);
  }
  fputs("]", o->f);
}

/* The threads it names that have a span, the one at fault first, as
 * links. */
static void put_finding_links(const otlp_t *o, const mprof_finding_t *f) {
  int first = 1;
  fputs(",\"links\":[", o->f);
  for (uint32_t k = 0; k < f->thread_count; k++) {
    uint32_t t = o->analysis->finding_threads[f->first_thread + k];
    if (!has_span(o, t)) continue;
    fputs(first ? "{\"traceId\":" : ",{\"traceId\":", o->f);
    first = 0;
    put_trace_id(o, t);
    fprintf(o->f, ",\"spanId\":\"%016" PRIx64 "\",\"attributes\":[",
            span_id(o, t));
    put_attribute(o->f, 1, "mprof.finding.role", k ? "involved" : "at fault");
    put_int_attribute(o->f, "mprof.thread.id", (int64_t)o->view->threads[t].id);
    fputs("]}", o->f);
  }
  fputs("]", o->f);
}

/* Finding i, of trace `trace`: a span over its time, in the OTel trace of
 * the thread at fault, its child (where that thread has no span, or there
 * is none, a root span of an OTel trace of its own). */
static void put_finding(const otlp_t *o, uint32_t trace, size_t i, int first) {
  const mprof_finding_t *f = &o->analysis->findings[i];
  uint32_t fault = f->thread_count
                       ? o->analysis->finding_threads[f->first_thread]
                       : MPROF_NO_THREAD;
  uint64_t id = finding_span_id(o, trace, i);
  const char *summary = o->analysis->text + f->summary;
  fputs(first ? "{\"traceId\":" : ",\n{\"traceId\":", o->f);
  if (has_span(o, fault))
    put_trace_id(o, fault);
  else
    fprintf(o->f, "\"%016" PRIx64 "%016" PRIx64 "\"", trace_hash(o, trace), id);
  fprintf(o->f, ",\"spanId\":\"%016" PRIx64 "\"", id);
  if (has_span(o, fault))
    fprintf(o->f, ",\"parentSpanId\":\"%016" PRIx64 "\"", span_id(o, fault));
  const char *kind = mprof_finding_kind_name((mprof_finding_kind_t)f->kind);
  fprintf(o->f, ",\"name\":\"%s\",\"kind\":1", kind); /* INTERNAL */
  put_time(o, "startTimeUnixNano", f->start_ns);
  put_time(o, "endTimeUnixNano",
           f->end_ns > f->start_ns ? f->end_ns : f->start_ns);
  fputs(",\"attributes\":[", o->f);
  put_attribute(o->f, 1, "mprof.finding.kind", kind);
  put_attribute(o->f, 0, "mprof.finding.severity",
                mprof_severity_name((mprof_severity_t)f->severity));
  put_attribute(o->f, 0, "mprof.finding.summary", summary);
  put_int_attribute(o->f, "mprof.finding.value_ns", f->value_ns);
  fputs("]", o->f);
  put_evidence(o, f);
  put_finding_links(o, f);
  if (f->severity == MPROF_SEVERITY_ERROR) {
    fputs(",\"status\":{\"code\":2,\"message\":", o->f); /* ERROR */
    mprof_json_put_text(o->f, summary, strlen(summary));
    fputs("}", o->f);
  }
  fputs("}", o->f);
}

/* The findings of trace i (those at fault in it), as a scope of their own
 * after its threads' spans; nothing where it has none. */
static void put_findings(const otlp_t *o, uint32_t trace) {
  int first = 1;
  for (size_t i = 0; i < o->analysis->finding_count && !ferror(o->f); i++) {
    const mprof_finding_t *f = &o->analysis->findings[i];
    if (mprof__finding_trace(o->model, o->analysis, f) != trace) continue;
    if (first)
      fputs(",{\"scope\":{\"name\":\"mprof.findings\",\"version\":\"0.1.0\"},"
            "\"spans\":[\n",
            o->f);
    mprof__export_step(o->progress);
    put_finding(o, trace, i, first);
    first = 0;
  }
  if (!first) fputs("\n]}", o->f);
}

/* The resource of trace i and the spans of its threads. */
static void put_resource(const otlp_t *o, uint32_t i) {
  const char *path = o->options->names[i];
  const char *slash = strrchr(path, '/');
  fputs(i ? ",\n{\"resource\":{\"attributes\":["
          : "{\"resource\":{\"attributes\":[",
        o->f);
  put_attribute(o->f, 1, "service.name", slash ? slash + 1 : path);
  put_attribute(o->f, 0, "mprof.trace.path", path);
  fputs("]},\"scopeSpans\":[{\"scope\":{\"name\":\"mprof\","
        "\"version\":\"0.1.0\"},\"spans\":[\n",
        o->f);
  int first = 1;
  for (uint32_t t = 1; t < o->view->thread_count && !ferror(o->f); t++)
    if (MPROF_MODEL_THREAD_TRACE(o->view->threads[t].id) == i) {
      mprof__export_step(o->progress);
      put_span(o, t, first);
      first = 0;
    }
  fputs("\n]}", o->f);
  put_findings(o, i);
  fputs("]}", o->f);
}

int mprof_export_otlp(FILE *f, const mprof_model_t *m,
                      const mprof_export_options_t *options) {
  mprof__export_progress_t progress;
  mprof_analysis_t own;
  otlp_t o = {f,    m,    NULL, options, NULL, &progress, NULL,
              NULL, NULL, NULL, NULL,    0,    0,         0};
  int err = mprof__export_begin(m, options, &own, &o.analysis, &progress);
  if (err) return err;
  o.view = mprof_model_view(m);
  progress.total = o.view->thread_count - 1 + o.analysis->finding_count;
  if (index_model(&o)) {
    err = MPROF_ENOMEM;
  } else {
    fputs("{\"resourceSpans\":[\n", f);
    for (size_t i = 0; i < options->count; i++) put_resource(&o, (uint32_t)i);
    fputs("\n]}\n", f);
    err = mprof__export_result(f);
  }
  index_free(&o);
  mprof__export_end(&own, o.analysis);
  return err;
}
