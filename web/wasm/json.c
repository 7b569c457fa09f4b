/* json.c -- the browser viewer's JSON answers: a trace's summary and
 * palette, one thread's details, the analysis' findings, and where two
 * traces diverge.  Trace strings are escaped (quote, backslash, control
 * characters as \u00XX), so any label makes valid JSON once JS has decoded
 * the bytes as UTF-8 (with replacement characters). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web.h"

/* Lists in one answer are cut at this many entries. */
#define LIST_LIMIT 200

static void put(mprof_web_json_t *j, const char *s, size_t n) {
  if (j->length + n + 1 > j->capacity) {
    size_t cap = j->capacity ? j->capacity : 1024;
    while (cap < j->length + n + 1) cap *= 2;
    char *t = realloc(j->text, cap);
    if (!t) return; /* stays short: mprof_web_json_done() notices */
    j->text = t;
    j->capacity = cap;
  }
  memcpy(j->text + j->length, s, n);
  j->length += n;
}

void mprof_web_json_raw(mprof_web_json_t *j, const char *text) {
  put(j, text, strlen(text));
}

const char *mprof_web_json_done(mprof_web_json_t *j) {
  put(j, "", 0);
  if (!j->text) return "null";
  j->text[j->length] = 0;
  return j->text;
}

/* A comma unless a value is the first of its object or array. */
static void sep(mprof_web_json_t *j) {
  char last = j->length ? j->text[j->length - 1] : '[';
  if (last != '[' && last != '{' && last != ':') put(j, ",", 1);
}

static void key(mprof_web_json_t *j, const char *name) {
  sep(j);
  put(j, "\"", 1);
  mprof_web_json_raw(j, name);
  put(j, "\":", 2);
}

static void begin(mprof_web_json_t *j, const char *name, const char *bracket) {
  if (name)
    key(j, name);
  else
    sep(j);
  mprof_web_json_raw(j, bracket);
}

static void num(mprof_web_json_t *j, const char *name, int64_t value) {
  char buf[32];
  key(j, name);
  snprintf(buf, sizeof buf, "%lld", (long long)value);
  mprof_web_json_raw(j, buf);
}

static void str(mprof_web_json_t *j, const char *name, const char *text) {
  if (name)
    key(j, name);
  else
    sep(j);
  put(j, "\"", 1);
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    char esc[8];
    if (*p == '"' || *p == '\\') {
      esc[0] = '\\', esc[1] = (char)*p;
      put(j, esc, 2);
    } else if (*p < 0x20 || *p == 0x7f) {
      snprintf(esc, sizeof esc, "\\u%04x", *p);
      put(j, esc, 6);
    } else {
      put(j, (const char *)p, 1);
    }
  }
  put(j, "\"", 1);
}

/* {"index": i, "name": ...} of a thread, or null. */
static void thread_ref(mprof_web_json_t *j, const char *name,
                       const mprof_model_t *m, uint32_t thread) {
  char buf[256];
  if (thread == MPROF_NO_THREAD || thread == MPROF_ROOT_THREAD) {
    begin(j, name, "null"); /* a member, or an array's item (name NULL) */
    return;
  }
  begin(j, name, "{");
  num(j, "index", thread);
  str(j, "name", mprof_model_thread_name(m, thread, buf, sizeof buf));
  mprof_web_json_raw(j, "}");
}

/* --- Summary -------------------------------------------------------------- */

void mprof_web_json_summary(mprof_web_json_t *j, const mprof_model_t *m) {
  const mprof_model_view_t *v = mprof_model_view(m);
  mprof_web_json_raw(j, "{");
  num(j, "duration", v->duration_ns);
  num(j, "rows", v->row_count);
  num(j, "row_px", MPROF_SCENE_ROW_PX);
  num(j, "threads", (int64_t)v->thread_count - 1);
  num(j, "events", (int64_t)v->events);
  num(j, "discarded", (int64_t)v->discarded);
  /* a string: JS numbers hold ns since 1970 only to 256 ns (BigInt it) */
  char wall[32];
  snprintf(wall, sizeof wall, "%lld", (long long)v->wall_start_ns);
  str(j, "wall_start", wall);
  begin(j, "counters", "[");
  for (size_t c = 0; c < v->counter_count; c++)
    str(j, NULL, v->strings + v->counters[c].name);
  mprof_web_json_raw(j, "]");
  begin(j, "palette", "[");
  for (int c = 0; c < MPROF_COLOUR_COUNT; c++) {
    char rgb[8];
    snprintf(rgb, sizeof rgb, "#%06x", (unsigned)mprof_scene_palette[c].rgb);
    begin(j, NULL, "{");
    str(j, "name", mprof_scene_palette[c].name);
    str(j, "rgb", rgb);
    if (c >= MPROF_COLOUR_ARROW && c < MPROF_COLOUR_FAILED) /* its kind */
      str(j, "arrow",
          mprof_arrow_kind_name((mprof_arrow_kind_t)(c - MPROF_COLOUR_ARROW)));
    mprof_web_json_raw(j, "}");
  }
  mprof_web_json_raw(j, "]}");
}

/* --- One thread --------------------------------------------------------------
 */

static const char *ending_name(const mprof_thread_t *t) {
  static const char *const names[] = {"pending", "resolved", "failed",
                                      "merged"};
  if (t->flags & MPROF_THREAD_STALLED && t->ending == MPROF_ENDING_FAILED)
    return "never resolved";
  return t->ending < 4 ? names[t->ending] : "?";
}

static void thread_labels(mprof_web_json_t *j, const mprof_model_view_t *v,
                          const mprof_thread_t *t) {
  begin(j, "labels", "[");
  for (uint32_t k = 0; k < t->label_count && k < LIST_LIMIT; k++) {
    mprof_label_t l = mprof_label_at(v, t->first_label + k);
    begin(j, NULL, "{");
    num(j, "time", l.time_ns);
    str(j, "text", v->strings + l.text);
    mprof_web_json_raw(j, "}");
  }
  mprof_web_json_raw(j, "]");
}

static void thread_interactions(mprof_web_json_t *j, const mprof_model_t *m,
                                uint32_t thread) {
  const mprof_model_view_t *v = mprof_model_view(m);
  size_t shown = 0;
  begin(j, "interactions", "[");
  for (size_t i = 0; i < v->arrow_count && shown < LIST_LIMIT; i++) {
    mprof_arrow_t a = mprof_arrow_at(v, i);
    if (a.from != thread && a.to != thread) continue;
    shown++;
    begin(j, NULL, "{");
    str(j, "kind", mprof_arrow_kind_name((mprof_arrow_kind_t)a.kind));
    str(j, "dir", a.from == thread ? "to" : "from");
    num(j, "time", a.time_ns);
    thread_ref(j, "other", m, a.from == thread ? a.to : a.from);
    mprof_web_json_raw(j, "}");
  }
  mprof_web_json_raw(j, "]");
}

/* Finding i: its place in the list, kind, severity, summary, the thread
 * at fault and the range a click shows. */
static void finding(mprof_web_json_t *j, const mprof_model_t *m,
                    const mprof_analysis_t *a, size_t i) {
  const mprof_finding_t *f = &a->findings[i];
  begin(j, NULL, "{");
  num(j, "index", (int64_t)i);
  str(j, "kind", mprof_finding_kind_name((mprof_finding_kind_t)f->kind));
  str(j, "severity", mprof_severity_name((mprof_severity_t)f->severity));
  str(j, "summary", a->text + f->summary);
  thread_ref(j, "thread", m,
             f->thread_count ? a->finding_threads[f->first_thread]
                             : MPROF_NO_THREAD);
  num(j, "start", f->start_ns);
  num(j, "end", f->end_ns);
  mprof_web_json_raw(j, "}");
}

static int finding_names(const mprof_analysis_t *a, const mprof_finding_t *f,
                         uint32_t thread) {
  for (uint32_t k = 0; k < f->thread_count; k++)
    if (a->finding_threads[f->first_thread + k] == thread) return 1;
  return 0;
}

/* The findings that name this thread, in the list's order. */
static void thread_findings(mprof_web_json_t *j, const mprof_model_t *m,
                            const mprof_analysis_t *a, uint32_t thread) {
  begin(j, "findings", "[");
  for (size_t i = 0; i < a->finding_count; i++)
    if (finding_names(a, &a->findings[i], thread)) finding(j, m, a, i);
  mprof_web_json_raw(j, "]");
}

/* The wait chains this thread is in, each its threads in order. */
static void thread_chains(mprof_web_json_t *j, const mprof_model_t *m,
                          const mprof_analysis_t *a, uint32_t thread) {
  begin(j, "chains", "[");
  for (size_t i = 0; i < a->chain_count; i++) {
    const uint32_t *c = a->chain_threads + a->chains[i].first;
    uint32_t k = 0, n = a->chains[i].length;
    while (k < n && c[k] != thread) k++;
    if (k == n) continue;
    begin(j, NULL, "[");
    for (k = 0; k < n; k++) thread_ref(j, NULL, m, c[k]);
    mprof_web_json_raw(j, "]");
  }
  mprof_web_json_raw(j, "]");
}

static void thread_time(mprof_web_json_t *j, const mprof_analysis_t *a,
                        uint32_t thread) {
  if (thread >= a->time_count) return;
  const mprof_thread_time_t *t = &a->times[thread];
  begin(j, "time", "{");
  num(j, "life", t->life_ns);
  num(j, "running", t->running_ns);
  num(j, "waiting", t->waiting_ns);
  num(j, "in_poll", t->in_poll_ns);
  num(j, "not_running", t->not_running_ns);
  mprof_web_json_raw(j, "}");
}

void mprof_web_json_thread(mprof_web_json_t *j, const mprof_model_t *m,
                           const mprof_analysis_t *a, uint32_t thread) {
  const mprof_model_view_t *v = mprof_model_view(m);
  const mprof_thread_t *t = &v->threads[thread];
  char buf[256];
  mprof_web_json_raw(j, "{");
  num(j, "index", thread);
  snprintf(buf, sizeof buf, "%llu", (unsigned long long)t->id);
  str(j, "id", buf);
  str(j, "name", mprof_model_thread_name(m, thread, buf, sizeof buf));
  str(j, "type", mprof_type_name((mprof_type_t)t->type));
  num(j, "row", t->row);
  num(j, "start", t->start_ns);
  num(j, "end", t->end_ns);
  str(j, "ending", ending_name(t));
  str(j, "failure", t->failure ? v->strings + t->failure : "");
  thread_ref(j, "creator", m, t->creator);
  thread_ref(j, "becomes", m, t->becomes);
  thread_labels(j, v, t);
  thread_interactions(j, m, thread);
  thread_findings(j, m, a, thread);
  thread_chains(j, m, a, thread);
  thread_time(j, a, thread);
  mprof_web_json_raw(j, "}");
}

/* --- Findings
 * ------------------------------------------------------------------ */

/* Every finding, most severe first (the order of the analysis, which
 * `mprof report` lists too). */
void mprof_web_json_findings(mprof_web_json_t *j, const mprof_model_t *m,
                             const mprof_analysis_t *a) {
  mprof_web_json_raw(j, "[");
  for (size_t i = 0; i < a->finding_count; i++) finding(j, m, a, i);
  mprof_web_json_raw(j, "]");
}

/* --- Divergence
 * ---------------------------------------------------------------- */

void mprof_web_json_divergence(mprof_web_json_t *j, const mprof_model_t *a,
                               const mprof_model_t *b) {
  mprof_divergence_t d;
  if (!mprof_scene_diverge(a, b, &d)) {
    mprof_web_json_raw(j, "null");
    return;
  }
  mprof_web_json_raw(j, "{");
  num(j, "index", (int64_t)d.index);
  num(j, "a_time", d.a_time_ns);
  num(j, "b_time", d.b_time_ns);
  thread_ref(j, "a_thread", a, d.a_thread);
  thread_ref(j, "b_thread", b, d.b_thread);
  mprof_web_json_raw(j, "}");
}
