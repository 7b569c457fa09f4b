/* findings.c -- the findings every view lists (docs/analysis.md defines
 * each kind): what went wrong, at fault which thread, when, with the
 * evidence, and one line of text for a person.  Here: making a finding
 * and its text, those from what analysis.c found (lost wake-ups, wait
 * cycles, stalls), what the trace cannot tell, and the list, sorted most
 * severe first, then by kind, then by time.  findings_loops.c looks at
 * the loops' OS threads, findings_requests.c at the requests. */
#include <string.h>

#include "findings_internal.h"

static const char *const kind_names[] = {
#define MPROF__FINDING_NAME(name, text) text,
    MPROF_FINDING_KINDS(MPROF__FINDING_NAME)
#undef MPROF__FINDING_NAME
};

const char *mprof_finding_kind_name(mprof_finding_kind_t kind) {
  return (unsigned)kind < MPROF_FINDING_KIND_COUNT ? kind_names[kind]
                                                   : "unknown";
}

const char *mprof_severity_name(mprof_severity_t severity) {
  static const char *const names[] = {"error", "warning", "info"};
  return (unsigned)severity < 3 ? names[severity] : "unknown";
}

const char *mprof_evidence_kind_name(mprof_evidence_kind_t kind) {
  static const char *const names[] = {"arrow",   "ran",  "queued",
                                      "pending", "spun", "waited"};
  return (unsigned)kind < MPROF_EVIDENCE_KIND_COUNT ? names[kind] : "unknown";
}

/* --- Text ----------------------------------------------------------------- */

void mprof__put(text_t *t, const char *s) {
  while (*s && t->n + 1 < sizeof t->buf) t->buf[t->n++] = *s++;
  t->buf[t->n] = 0;
}

void mprof__put_uint(text_t *t, uint64_t v) {
  char digits[24];
  size_t d = 0;
  do digits[d++] = (char)('0' + v % 10);
  while ((v /= 10) && d < sizeof digits);
  char s[2] = {0, 0};
  while (d > 0) {
    s[0] = digits[--d];
    mprof__put(t, s);
  }
}

/* ns as "148 ns", "12.3 us", "62.1 ms" or "2.0 s": three digits at most
 * before one decimal. */
void mprof__put_duration(text_t *t, int64_t ns) {
  static const char *const units[] = {"ns", "us", "ms", "s"};
  uint64_t v = ns > 0 ? (uint64_t)ns : 0, scale = 1;
  int unit = 0;
  while (unit < 3 && v >= scale * 1000) {
    scale *= 1000;
    unit++;
  }
  mprof__put_uint(t, v / scale);
  if (unit) {
    mprof__put(t, ".");
    mprof__put_uint(t, v % scale * 10 / scale);
  }
  mprof__put(t, " ");
  mprof__put(t, units[unit]);
}

const char *mprof_model_thread_label(const mprof_model_t *m, uint32_t thread) {
  const mprof_model_view_t *v = &m->view;
  if (thread >= v->thread_count || !v->threads[thread].label_count) return NULL;
  const mprof_thread_t *th = &v->threads[thread];
  const char *best = v->strings + mprof_label_at(v, th->first_label).text;
  if (th->type != MPROF_HANDLE) return best;
  for (uint32_t k = 1; k < th->label_count; k++) {
    const char *text = v->strings + mprof_label_at(v, th->first_label + k).text;
    if (!(text[0] == 'n' && text[1] == 'e' && text[2] == 't' && text[3] == ' '))
      best = text;
  }
  return best;
}

/* "label" (type#id), or type#id. */
void mprof__put_thread(text_t *t, const mprof_model_t *m, uint32_t thread) {
  const mprof_thread_t *th = &m->view.threads[thread];
  const char *label = mprof_model_thread_label(m, thread);
  if (thread == MPROF_ROOT_THREAD) {
    mprof__put(t, "(root)");
    return;
  }
  if (label) {
    mprof__put(t, "\"");
    mprof__put(t, label);
    mprof__put(t, "\" (");
  }
  mprof__put(t, (th->flags & MPROF_THREAD_PREEXISTING)
                    ? "preexisting"
                    : mprof_type_name((mprof_type_t)th->type));
  mprof__put(t, "#");
  mprof__put_uint(t, th->id);
  if (label) mprof__put(t, ")");
}

static size_t text_cap(size_t size) {
  size_t cap = 256;
  while (cap < size) cap *= 2;
  return cap;
}

int mprof__analysis_text(mprof_analysis_t *out, const char *text,
                         uint32_t *at) {
  size_t length = strlen(text) + 1;
  size_t cap = out->text_size ? text_cap(out->text_size) : 0;
  if (out->text_size + length > cap) {
    char *grown = realloc(out->text, text_cap(out->text_size + length));
    if (!grown) return MPROF_ENOMEM;
    out->text = grown;
  }
  memcpy(out->text + out->text_size, text, length);
  *at = (uint32_t)out->text_size;
  out->text_size += length;
  return 0;
}

/* --- Building findings ---------------------------------------------------- */

void mprof__finding_begin(finder_t *f, mprof_finding_kind_t kind,
                          mprof_severity_t severity, int64_t start_ns,
                          int64_t end_ns) {
  memset(&f->current, 0, sizeof f->current);
  f->current.kind = kind;
  f->current.severity = severity;
  f->current.start_ns = start_ns;
  f->current.end_ns = end_ns;
  f->current.first_thread = (uint32_t)f->out->finding_thread_count;
  f->current.first_evidence = (uint32_t)f->out->evidence_count;
  f->text.n = 0;
  f->text.buf[0] = 0;
}

/* Name a thread of the current finding (the first named is at fault);
 * once is enough. */
int mprof__finding_thread(finder_t *f, uint32_t t) {
  mprof_analysis_t *out = f->out;
  for (uint32_t k = 0; k < f->current.thread_count; k++)
    if (out->finding_threads[f->current.first_thread + k] == t) return 0;
  if (f->current.thread_count >= FINDING_THREADS) return 0;
  if (mprof__grow(&out->finding_threads, &f->cap_threads,
                  out->finding_thread_count + 1, sizeof *out->finding_threads))
    return MPROF_ENOMEM;
  out->finding_threads[out->finding_thread_count++] = t;
  f->current.thread_count++;
  return 0;
}

int mprof__finding_evidence(finder_t *f, mprof_evidence_kind_t kind,
                            uint32_t thread, uint32_t arrow, uint32_t count,
                            int64_t start_ns, int64_t end_ns) {
  mprof_analysis_t *out = f->out;
  if (f->current.evidence_count >= FINDING_EVIDENCE) return 0;
  if (mprof__grow(&out->evidence, &f->cap_evidence, out->evidence_count + 1,
                  sizeof *out->evidence))
    return MPROF_ENOMEM;
  out->evidence[out->evidence_count++] =
      (mprof_evidence_t){kind, thread, arrow, count, start_ns, end_ns};
  f->current.evidence_count++;
  return 0;
}

static int add_arrow(finder_t *f, uint32_t arrow) {
  mprof_arrow_t a = mprof_arrow_at(f->v, arrow);
  return mprof__finding_evidence(f, MPROF_EVIDENCE_ARROW, a.from, arrow, 1,
                                 a.time_ns, a.time_ns);
}

/* The current finding, with its summary, joins the list. */
int mprof__finding_commit(finder_t *f) {
  mprof_analysis_t *out = f->out;
  if (mprof__analysis_text(out, f->text.buf, &f->current.summary) ||
      mprof__grow(&out->findings, &f->cap_findings, out->finding_count + 1,
                  sizeof *out->findings))
    return MPROF_ENOMEM;
  out->findings[out->finding_count++] = f->current;
  return 0;
}

/* --- Lost wake-ups and stalls (analysis.c found them) --------------------- */

/* An error about thread t (it never ended) holds only if the trace holds
 * all of t's life: where t's creation is missing, or the recorder lost
 * events, or the caller knows the trace is damaged, its end may be among
 * what is missing.  Then it is an info that says so.  Called once the
 * summary is written. */
void mprof__unless_events_missing(finder_t *f, uint32_t t) {
  const char *why = (f->v->threads[t].flags & MPROF_THREAD_PREEXISTING)
                        ? " (cannot tell: its creation is not in the trace,"
                          " nor, perhaps, its end)"
                    : f->v->discarded ? " (cannot tell: the recorder lost"
                                        " events, perhaps its end)"
                    : f->options->events_missing
                        ? " (cannot tell: the trace is damaged, and its end"
                          " may be in what was lost)"
                        : NULL;
  if (!why) return;
  f->current.severity = MPROF_SEVERITY_INFO;
  mprof__put(&f->text, why);
}

static int lost_wakeup(finder_t *f, const mprof_lost_wakeup_t *l) {
  mprof_arrow_t sig = mprof_arrow_at(f->v, l->signal_arrow);
  const mprof_thread_t *waiter = &f->v->threads[l->waiter];
  mprof__finding_begin(f, MPROF_FINDING_LOST_WAKEUP, MPROF_SEVERITY_ERROR,
                       sig.time_ns, f->v->end_ns);
  mprof__put_thread(&f->text, f->m, l->waiter);
  mprof__put(&f->text, " waits for ");
  mprof__put_thread(&f->text, f->m, l->condition);
  mprof__put(&f->text, " from ");
  mprof__put_duration(&f->text, waiter->start_ns);
  mprof__put(&f->text, " and never wakes: its signal, from ");
  mprof__put_thread(&f->text, f->m, sig.from);
  mprof__put(&f->text, " at ");
  mprof__put_duration(&f->text, sig.time_ns);
  mprof__put(&f->text, ", came when nobody waited");
  mprof__unless_events_missing(f, l->waiter);
  int err = mprof__finding_thread(f, l->waiter);
  if (!err) err = mprof__finding_thread(f, l->condition);
  if (!err) err = mprof__finding_thread(f, sig.from);
  if (!err) err = add_arrow(f, l->signal_arrow);
  const uint32_t *refs = f->out->arrow_refs;
  for (size_t i = 0; !err && i < f->out->stall_count; i++) {
    const mprof_stall_t *s = &f->out->stalls[i];
    for (uint32_t k = 0; !err && s->thread == l->waiter && k < s->arrow_count;
         k++)
      err = add_arrow(f, refs[s->first_arrow + k]);
  }
  return err ? err : mprof__finding_commit(f);
}

/* Threads that wait on each other, and nothing else can wake. */
static int wait_cycle(finder_t *f, const mprof_chain_t *cycle) {
  const uint32_t *members = f->out->chain_threads + cycle->first;
  mprof__finding_begin(f, MPROF_FINDING_WAIT_CYCLE, MPROF_SEVERITY_ERROR,
                       cycle->start_ns, cycle->end_ns);
  int err = 0;
  for (uint32_t k = 0; !err && k < cycle->length; k++) {
    mprof__put_thread(&f->text, f->m, members[k]);
    mprof__put(&f->text, k ? ", which waits on " : " waits on ");
    err = mprof__finding_thread(f, members[k]);
    if (!err)
      err = mprof__finding_evidence(f, MPROF_EVIDENCE_WAITED, members[k],
                                    MPROF_NO_THREAD, 1, cycle->start_ns,
                                    cycle->end_ns);
  }
  mprof__put_thread(&f->text, f->m, members[0]);
  mprof__put(&f->text, ": a cycle of ");
  mprof__put_uint(&f->text, cycle->length);
  mprof__put(&f->text, " waits, closed at ");
  mprof__put_duration(&f->text, cycle->start_ns);
  mprof__put(&f->text, ", still open when the trace ends");
  mprof__unless_events_missing(f, members[0]);
  return err ? err : mprof__finding_commit(f);
}

static int stalled(finder_t *f, const mprof_stall_t *s) {
  const mprof_thread_t *th = &f->v->threads[s->thread];
  mprof__finding_begin(f, MPROF_FINDING_STALLED, MPROF_SEVERITY_ERROR,
                       th->start_ns, f->v->end_ns);
  mprof__put_thread(&f->text, f->m, s->thread);
  mprof__put(&f->text, " should resolve and never did: created by ");
  mprof__put_thread(&f->text, f->m, th->creator);
  mprof__put(&f->text, " at ");
  mprof__put_duration(&f->text, th->start_ns);
  if (s->last != s->thread) {
    mprof__put(&f->text, ", became ");
    mprof__put_thread(&f->text, f->m, s->last);
  }
  mprof__put(&f->text, ", last seen at ");
  mprof__put_duration(&f->text, f->v->threads[s->last].last_seen_ns);
  mprof__unless_events_missing(f, s->thread);
  int err = mprof__finding_thread(f, s->thread);
  if (!err && s->last != s->thread) err = mprof__finding_thread(f, s->last);
  for (uint32_t k = 0; !err && k < s->arrow_count; k++)
    err = add_arrow(f, f->out->arrow_refs[s->first_arrow + k]);
  return err ? err : mprof__finding_commit(f);
}

/* --- What the trace cannot tell ------------------------------------------- */

static int cannot_tell(finder_t *f) {
  uint32_t preexisting = f->facts->preexisting;
  int err = 0;
  if (preexisting) {
    mprof__finding_begin(f, MPROF_FINDING_CANNOT_TELL, MPROF_SEVERITY_INFO, 0,
                         0);
    mprof__put_uint(&f->text, preexisting);
    mprof__put(&f->text, preexisting == 1 ? " thread" : " threads");
    mprof__put(&f->text, " existed before the trace begins (a ring that"
                         " overwrote its start?): what they did before it, and"
                         " who made them, cannot be told");
    err = mprof__finding_thread(f, f->facts->first_preexisting);
    if (!err) err = mprof__finding_commit(f);
  }
  if (!err && f->v->discarded) {
    mprof__finding_begin(f, MPROF_FINDING_CANNOT_TELL, MPROF_SEVERITY_INFO, 0,
                         f->v->end_ns);
    mprof__put_uint(&f->text, f->v->discarded);
    mprof__put(&f->text, " events were lost by the recorder (a full buffer):"
                         " what they held cannot be told");
    err = mprof__finding_commit(f);
  }
  return err;
}

/* --- Entry point ---------------------------------------------------------- */

static int by_severity(const void *pa, const void *pb) {
  const mprof_finding_t *a = pa, *b = pb;
  if (a->severity != b->severity) return a->severity < b->severity ? -1 : 1;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
  return (a->summary > b->summary) - (a->summary < b->summary);
}

int mprof__find_findings(const mprof_model_t *m,
                         const mprof_analysis_options_t *options,
                         const mprof__facts_t *facts, mprof_analysis_t *out) {
  finder_t f;
  memset(&f, 0, sizeof f);
  f.m = m;
  f.v = &m->view;
  f.options = options;
  f.out = out;
  f.facts = facts;
  f.loop_stream = facts->loop_stream;
  int err = 0;
  for (size_t i = 0; !err && i < out->lost_wakeup_count; i++)
    err = lost_wakeup(&f, &out->lost_wakeups[i]);
  for (size_t i = 0; !err && i < out->cycle_count; i++)
    err = wait_cycle(&f, &out->cycles[i]);
  for (size_t i = 0; !err && i < out->stall_count; i++)
    err = stalled(&f, &out->stalls[i]);
  if (!err) err = mprof__find_in_loops(&f);
  if (!err) err = mprof__find_pool(&f);
  if (!err) err = mprof__find_storms(&f);
  if (!err) err = mprof__find_backlog(&f);
  if (!err) err = mprof__find_leaked(&f);
  if (!err) err = cannot_tell(&f);
  /* qsort() must not be given the NULL of an empty list */
  if (!err && out->finding_count > 1)
    qsort(out->findings, out->finding_count, sizeof *out->findings,
          by_severity);
  return err;
}
