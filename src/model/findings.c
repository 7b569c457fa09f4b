/* findings.c -- the findings every view lists (docs/analysis.md defines
 * each kind): what went wrong, at fault which thread, when, with the
 * evidence, and one line of text for a person.  From what analysis.c found
 * (stalls, lost wake-ups) and from the loops' OS threads: a callback that
 * held its loop (loop_blocked), a loop that spun without sleeping in its
 * poll (busy_loop), the thread pool's queue (pool_saturated), requests
 * left pending (leaked), and what the trace cannot tell (cannot_tell).
 * Sorted most severe first, then by kind, then by time. */
#include <string.h>

#include "analysis_internal.h"

/* A loop is judged busy or not window by window: a busy window has this
 * many iterations at least (20,000 a second: a loop that sleeps in its
 * poll between events, however busy, makes a few thousand).  Wall-clock
 * time in the poll says nothing here: an OS thread that spins is
 * preempted, and that shows as time in the poll too. */
#define BUSY_WINDOW_NS 50000000
#define BUSY_MIN_ITERATIONS 1000
/* A retry storm: this many failures in a row, each request made again
 * within STORM_RETRY_NS of the failure before. */
#define STORM_FAILURES 5
#define STORM_RETRY_NS 1000000000
/* A write backlog: this many writes pending at once, each pending this
 * long in all. */
#define BACKLOG_WRITES 64
#define BACKLOG_AGE_NS 100000000
/* Threads and evidence kept per finding, at most. */
#define FINDING_THREADS 8
#define FINDING_EVIDENCE 16

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
  static const char *const names[] = {"arrow", "ran", "queued", "pending",
                                      "spun", "waited"};
  return (unsigned)kind < MPROF_EVIDENCE_KIND_COUNT ? names[kind] : "unknown";
}

/* --- Text ------------------------------------------------------------------ */

typedef struct text_s {
  char buf[1024];
  size_t n;
} text_t;

static void put(text_t *t, const char *s) {
  while (*s && t->n + 1 < sizeof t->buf) t->buf[t->n++] = *s++;
  t->buf[t->n] = 0;
}

static void put_uint(text_t *t, uint64_t v) {
  char digits[24];
  size_t d = 0;
  do digits[d++] = (char)('0' + v % 10);
  while ((v /= 10) && d < sizeof digits);
  char s[2] = {0, 0};
  while (d > 0) {
    s[0] = digits[--d];
    put(t, s);
  }
}

/* ns as "148 ns", "12.3 us", "62.1 ms" or "2.0 s": three digits at most
 * before one decimal. */
static void put_duration(text_t *t, int64_t ns) {
  static const char *const units[] = {"ns", "us", "ms", "s"};
  uint64_t v = ns > 0 ? (uint64_t)ns : 0, scale = 1;
  int unit = 0;
  while (unit < 3 && v >= scale * 1000) {
    scale *= 1000;
    unit++;
  }
  put_uint(t, v / scale);
  if (unit) {
    put(t, ".");
    put_uint(t, v % scale * 10 / scale);
  }
  put(t, " ");
  put(t, units[unit]);
}

const char *mprof_model_thread_label(const mprof_model_t *m, uint32_t thread) {
  const mprof_model_view_t *v = &m->view;
  if (thread >= v->thread_count || !v->threads[thread].label_count) return NULL;
  const mprof_thread_t *th = &v->threads[thread];
  const char *best = v->strings + v->labels[th->first_label].text;
  if (th->type != MPROF_HANDLE) return best;
  for (uint32_t k = 1; k < th->label_count; k++) {
    const char *text = v->strings + v->labels[th->first_label + k].text;
    if (!(text[0] == 'n' && text[1] == 'e' && text[2] == 't' && text[3] == ' '))
      best = text;
  }
  return best;
}

/* "label" (type#id), or type#id. */
static void put_thread(text_t *t, const mprof_model_t *m, uint32_t thread) {
  const mprof_thread_t *th = &m->view.threads[thread];
  const char *label = mprof_model_thread_label(m, thread);
  if (thread == MPROF_ROOT_THREAD) {
    put(t, "(root)");
    return;
  }
  if (label) {
    put(t, "\"");
    put(t, label);
    put(t, "\" (");
  }
  put(t, (th->flags & MPROF_THREAD_PREEXISTING)
             ? "preexisting"
             : mprof_type_name((mprof_type_t)th->type));
  put(t, "#");
  put_uint(t, th->id);
  if (label) put(t, ")");
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

/* --- Building findings --------------------------------------------------------- */

typedef struct finder_s {
  const mprof_model_t *m;
  const mprof_model_view_t *v;
  const mprof_analysis_options_t *options;
  mprof_analysis_t *out;
  size_t cap_findings, cap_threads, cap_evidence;
  mprof_finding_t current;  /* the finding being made */
  text_t text;              /* its summary */
  const mprof__facts_t *facts;
  const uint8_t *loop_stream; /* by stream index: a loop ran there */
  uint32_t *runs;           /* by thread: callbacks run (busy_loop) */
  uint8_t *is_loop;         /* by thread: a loop (its type, or it slept) */
} finder_t;

static void begin(finder_t *f, mprof_finding_kind_t kind,
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
static int name_thread(finder_t *f, uint32_t t) {
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

static int add_evidence(finder_t *f, mprof_evidence_kind_t kind,
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
  const mprof_arrow_t *a = &f->v->arrows[arrow];
  return add_evidence(f, MPROF_EVIDENCE_ARROW, a->from, arrow, 1, a->time_ns,
                      a->time_ns);
}

/* The current finding, with its summary, joins the list. */
static int commit(finder_t *f) {
  mprof_analysis_t *out = f->out;
  if (mprof__analysis_text(out, f->text.buf, &f->current.summary) ||
      mprof__grow(&out->findings, &f->cap_findings, out->finding_count + 1,
                  sizeof *out->findings))
    return MPROF_ENOMEM;
  out->findings[out->finding_count++] = f->current;
  return 0;
}

/* --- Lost wake-ups and stalls (analysis.c found them) ------------------------------- */

/* An error about thread t (it never ended) holds only if the trace holds
 * all of t's life: where t's creation is missing, or the recorder lost
 * events, or the caller knows the trace is damaged, its end may be among
 * what is missing.  Then it is an info that says so.  Called once the
 * summary is written. */
static void unless_events_missing(finder_t *f, uint32_t t) {
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
  put(&f->text, why);
}

static int lost_wakeup(finder_t *f, const mprof_lost_wakeup_t *l) {
  const mprof_arrow_t *sig = &f->v->arrows[l->signal_arrow];
  const mprof_thread_t *waiter = &f->v->threads[l->waiter];
  begin(f, MPROF_FINDING_LOST_WAKEUP, MPROF_SEVERITY_ERROR, sig->time_ns,
        f->v->duration_ns);
  put_thread(&f->text, f->m, l->waiter);
  put(&f->text, " waits for ");
  put_thread(&f->text, f->m, l->condition);
  put(&f->text, " from ");
  put_duration(&f->text, waiter->start_ns);
  put(&f->text, " and never wakes: its signal, from ");
  put_thread(&f->text, f->m, sig->from);
  put(&f->text, " at ");
  put_duration(&f->text, sig->time_ns);
  put(&f->text, ", came when nobody waited");
  unless_events_missing(f, l->waiter);
  int err = name_thread(f, l->waiter);
  if (!err) err = name_thread(f, l->condition);
  if (!err) err = name_thread(f, sig->from);
  if (!err) err = add_arrow(f, l->signal_arrow);
  const uint32_t *refs = f->out->arrow_refs;
  for (size_t i = 0; !err && i < f->out->stall_count; i++) {
    const mprof_stall_t *s = &f->out->stalls[i];
    for (uint32_t k = 0; !err && s->thread == l->waiter && k < s->arrow_count; k++)
      err = add_arrow(f, refs[s->first_arrow + k]);
  }
  return err ? err : commit(f);
}

/* Threads that wait on each other, and nothing else can wake. */
static int wait_cycle(finder_t *f, const mprof_chain_t *cycle) {
  const uint32_t *members = f->out->chain_threads + cycle->first;
  begin(f, MPROF_FINDING_WAIT_CYCLE, MPROF_SEVERITY_ERROR, cycle->start_ns,
        cycle->end_ns);
  int err = 0;
  for (uint32_t k = 0; !err && k < cycle->length; k++) {
    put_thread(&f->text, f->m, members[k]);
    put(&f->text, k ? ", which waits on " : " waits on ");
    err = name_thread(f, members[k]);
    if (!err)
      err = add_evidence(f, MPROF_EVIDENCE_WAITED, members[k], MPROF_NO_THREAD, 1,
                         cycle->start_ns, cycle->end_ns);
  }
  put_thread(&f->text, f->m, members[0]);
  put(&f->text, ": a cycle of ");
  put_uint(&f->text, cycle->length);
  put(&f->text, " waits, closed at ");
  put_duration(&f->text, cycle->start_ns);
  put(&f->text, ", still open when the trace ends");
  unless_events_missing(f, members[0]);
  return err ? err : commit(f);
}

static int stalled(finder_t *f, const mprof_stall_t *s) {
  const mprof_thread_t *th = &f->v->threads[s->thread];
  begin(f, MPROF_FINDING_STALLED, MPROF_SEVERITY_ERROR, th->start_ns,
        f->v->duration_ns);
  put_thread(&f->text, f->m, s->thread);
  put(&f->text, " should resolve and never did: created by ");
  put_thread(&f->text, f->m, th->creator);
  put(&f->text, " at ");
  put_duration(&f->text, th->start_ns);
  if (s->last != s->thread) {
    put(&f->text, ", became ");
    put_thread(&f->text, f->m, s->last);
  }
  put(&f->text, ", last seen at ");
  put_duration(&f->text, f->v->threads[s->last].last_seen_ns);
  unless_events_missing(f, s->thread);
  int err = name_thread(f, s->thread);
  if (!err && s->last != s->thread) err = name_thread(f, s->last);
  for (uint32_t k = 0; !err && k < s->arrow_count; k++)
    err = add_arrow(f, f->out->arrow_refs[s->first_arrow + k]);
  return err ? err : commit(f);
}

/* --- The loops' OS threads ----------------------------------------------------------- */

/* A loop stream's timeline: its running spans and idle bands in order. */
typedef struct item_s {
  int64_t start_ns, end_ns;
  uint32_t stream;
  uint32_t thread;         /* running thread; MPROF_NO_THREAD: in poll */
} item_t;

typedef struct timeline_s {
  item_t *items;
  size_t count;
} timeline_t;

/* Sort items[0..n) by start, stably: a radix sort over 16 bits of the
 * start at a time (sorting a big trace's millions of spans by comparisons
 * took most of the analysis).  *items may be swapped for its copy.
 * Returns 0 or MPROF_ENOMEM. */
static int sort_by_start(item_t **items, size_t n) {
  int64_t latest = 0;
  for (size_t i = 0; i < n; i++)
    if ((*items)[i].start_ns > latest) latest = (*items)[i].start_ns;
  item_t *from = *items, *to = malloc((n + 1) * sizeof *to);
  uint32_t *first = malloc(65537 * sizeof *first);
  if (!to || !first) {
    free(to);
    free(first);
    return MPROF_ENOMEM;
  }
  for (unsigned shift = 0; shift < 64 && ((uint64_t)latest >> shift); shift += 16) {
    memset(first, 0, 65537 * sizeof *first);
    for (size_t i = 0; i < n; i++)
      first[(((uint64_t)from[i].start_ns >> shift) & 0xffff) + 1]++;
    for (size_t d = 0; d < 65536; d++) first[d + 1] += first[d];
    for (size_t i = 0; i < n; i++)
      to[first[((uint64_t)from[i].start_ns >> shift) & 0xffff]++] = from[i];
    item_t *swap = from;
    from = to;
    to = swap;
  }
  free(to);
  free(first);
  *items = from;
  return 0;
}

/* The stretches of a stream worth a detector's look, in order, apart. */
typedef struct range_s {
  int64_t start_ns, end_ns;
} range_t;

typedef struct ranges_s {
  range_t *at;
  size_t count, cap;
} ranges_t;

/* Add [start, end] after the ranges so far (joined to the last one where
 * they meet).  Returns 0 or MPROF_ENOMEM. */
static int range_add(ranges_t *r, int64_t start, int64_t end) {
  if (r->count && start <= r->at[r->count - 1].end_ns) {
    if (end > r->at[r->count - 1].end_ns) r->at[r->count - 1].end_ns = end;
    return 0;
  }
  if (mprof__grow(&r->at, &r->cap, r->count + 1, sizeof *r->at)) return MPROF_ENOMEM;
  r->at[r->count++] = (range_t){start, end};
  return 0;
}

/* Does [start, end] meet one of the ranges? */
static int in_ranges(const ranges_t *r, int64_t start, int64_t end) {
  size_t lo = 0, hi = r->count;
  while (lo < hi) { /* the first range that ends at start or later */
    size_t mid = lo + (hi - lo) / 2;
    if (r->at[mid].end_ns < start) lo = mid + 1; else hi = mid;
  }
  return lo < r->count && r->at[lo].start_ns <= end;
}

/* The spans and idle bands of one stream a loop ran on, within the
 * ranges, by time. */
static int build_timeline(finder_t *f, uint32_t stream, const ranges_t *ranges,
                          timeline_t *tl) {
  const mprof_model_view_t *v = f->v;
  size_t n = 0;
  for (int fill = 0; fill < 2; fill++) { /* count, then fill */
    for (size_t i = 0; i < v->running_count; i++) {
      const mprof_span_t *s = &v->running[i];
      if (s->stream != stream || !in_ranges(ranges, s->start_ns, s->end_ns)) continue;
      if (fill) tl->items[tl->count++] = (item_t){s->start_ns, s->end_ns, stream, s->thread};
      else n++;
    }
    for (size_t i = 0; i < v->band_count; i++) {
      const mprof_span_t *s = &v->bands[i].span;
      if (s->stream != stream || v->bands[i].kind != MPROF_BAND_IDLE ||
          !in_ranges(ranges, s->start_ns, s->end_ns))
        continue;
      if (fill) tl->items[tl->count++] = (item_t){s->start_ns, s->end_ns, stream, MPROF_NO_THREAD};
      else n++;
    }
    if (!fill && !(tl->items = malloc((n + 1) * sizeof *tl->items))) return MPROF_ENOMEM;
  }
  return sort_by_start(&tl->items, tl->count);
}

/* The loops of one stream's timeline: besides the threads of type loop
 * (marked already), threads from before the trace (whose creation, and so
 * type, a ring overwrote) that went to sleep in half the stream's idle
 * bands or more.  Uses f->runs, left zeroed. */
static void mark_loops(finder_t *f, const timeline_t *tl) {
  uint32_t bands = 0;
  for (size_t i = 1; i < tl->count; i++) {
    const item_t *before = &tl->items[i - 1], *band = &tl->items[i];
    if (band->thread != MPROF_NO_THREAD) continue;
    bands++;
    if (before->thread != MPROF_NO_THREAD && before->end_ns == band->start_ns &&
        (f->v->threads[before->thread].flags & MPROF_THREAD_PREEXISTING))
      f->runs[before->thread]++;
  }
  for (size_t i = 0; i < tl->count; i++) {
    uint32_t t = tl->items[i].thread;
    if (t == MPROF_NO_THREAD || !f->runs[t]) continue;
    f->is_loop[t] = (uint64_t)f->runs[t] * 2 >= bands;
    f->runs[t] = 0;
  }
}

/* Is the loop there (running itself, or in its poll) during item i? */
static int loop_present(const finder_t *f, const item_t *i) {
  return i->thread == MPROF_NO_THREAD || f->is_loop[i->thread];
}

/* The callbacks that ran after items[end] and before the loop's next poll
 * waited while the loop was held: name them. */
static int waiting_meanwhile(finder_t *f, const item_t *items, size_t end,
                             size_t hi, int64_t held_from, uint32_t *waited) {
  int err = 0;
  for (size_t k = end + 1; !err && k < hi && items[k].thread != MPROF_NO_THREAD; k++) {
    uint32_t t = items[k].thread;
    if (loop_present(f, &items[k]) || t == items[end].thread) continue;
    const mprof_thread_t *th = &f->v->threads[t];
    int64_t from = th->start_ns > held_from ? th->start_ns : held_from;
    uint32_t before = f->current.thread_count;
    err = name_thread(f, t);
    if (!err && f->current.thread_count > before) {
      (*waited)++;
      err = add_evidence(f, MPROF_EVIDENCE_PENDING, t, MPROF_NO_THREAD, 1, from,
                         items[k].start_ns);
    }
  }
  return err;
}

/* items[first..last] ran from the loop's hand back to it, too long. */
static int loop_blocked(finder_t *f, const item_t *items, size_t first,
                        size_t last, size_t hi, uint32_t loop) {
  int64_t start = items[first].start_ns, end = items[last].end_ns;
  begin(f, MPROF_FINDING_LOOP_BLOCKED, MPROF_SEVERITY_WARNING, start, end);
  f->current.value_ns = end - start;
  int err = name_thread(f, items[first].thread);
  if (!err) err = name_thread(f, loop);
  for (size_t k = first; !err && k <= last; k++)
    err = add_evidence(f, MPROF_EVIDENCE_RAN, items[k].thread, MPROF_NO_THREAD,
                       1, items[k].start_ns, items[k].end_ns);
  uint32_t waited = 0;
  if (!err) err = waiting_meanwhile(f, items, last, hi, start, &waited);
  /* a block nothing waited for (a program's start-up work) delayed
   * nothing that the trace shows */
  if (!waited) f->current.severity = MPROF_SEVERITY_INFO;
  put(&f->text, "a callback of ");
  put_thread(&f->text, f->m, items[first].thread);
  put(&f->text, " held ");
  put_thread(&f->text, f->m, loop);
  put(&f->text, " for ");
  put_duration(&f->text, end - start);
  put(&f->text, " at ");
  put_duration(&f->text, start);
  put(&f->text, " without returning to it; ");
  put_uint(&f->text, waited);
  put(&f->text, waited == 1 ? " callback waited" : " callbacks waited");
  return err ? err : commit(f);
}

/* The first loop thread that runs in items[lo..hi), or NO (a timeline cut
 * to the places worth a look may begin with a band). */
static uint32_t first_loop(const finder_t *f, const item_t *items, size_t lo,
                           size_t hi) {
  for (size_t i = lo; i < hi; i++)
    if (items[i].thread != MPROF_NO_THREAD && f->is_loop[items[i].thread])
      return items[i].thread;
  return MPROF_NO_THREAD;
}

/* Callbacks on one loop stream (items[lo..hi)) that held the loop at
 * least the threshold: a run of spans of other threads that begins where
 * the loop handed over and goes on, span after span, until the loop is
 * back. */
static int find_blocked(finder_t *f, const item_t *items, size_t lo,
                        size_t hi) {
  int64_t loop_end = -1;
  uint32_t loop = first_loop(f, items, lo, hi);
  for (size_t i = lo; i < hi;) {
    if (loop_present(f, &items[i])) {
      loop_end = items[i].end_ns;
      if (items[i].thread != MPROF_NO_THREAD) loop = items[i].thread;
      i++;
      continue;
    }
    size_t last = i;
    while (last + 1 < hi && !loop_present(f, &items[last + 1]) &&
           items[last + 1].start_ns == items[last].end_ns)
      last++;
    if (loop != MPROF_NO_THREAD && items[i].start_ns == loop_end &&
        items[last].end_ns - items[i].start_ns >= f->options->loop_blocked_ns) {
      int err = loop_blocked(f, items, i, last, hi, loop);
      if (err) return err;
    }
    i = last + 1;
  }
  return 0;
}

/* Is thread t a handle of one of these kinds (its first label)? */
static int handle_kind(const finder_t *f, uint32_t t, const char *const *kinds) {
  const mprof_thread_t *th = &f->v->threads[t];
  if (th->type != MPROF_HANDLE || !th->label_count) return 0;
  const char *label = f->v->strings + f->v->labels[th->first_label].text;
  for (; *kinds; kinds++)
    if (!strcmp(label, *kinds)) return 1;
  return 0;
}

/* Does a callback of thread t do no I/O: a timer, or an idle, prepare or
 * check handle (what keeps a loop iterating by itself)? */
static int spins_alone(const finder_t *f, uint32_t t) {
  static const char *const kinds[] = {"idle", "prepare", "check", NULL};
  return f->v->threads[t].type == MPROF_TIMER || handle_kind(f, t, kinds);
}

/* A prepare handle's callback runs just before the poll: the tracer's
 * mark of the poll (where the idle band begins) may come before it, so
 * the poll lasts until the first callback of another kind. */
static int runs_before_poll(const finder_t *f, uint32_t t) {
  static const char *const kinds[] = {"prepare", NULL};
  return handle_kind(f, t, kinds);
}

/* The busy windows of one loop, one after the other, and the window
 * being judged. */
typedef struct streak_s {
  int64_t start_ns, end_ns; /* the busy windows so far (start -1: none) */
  uint32_t polls, empty;    /* their iterations, those with no I/O callback */
  int64_t window_ns;        /* the window's start, or -1 */
  uint32_t window_polls, window_empty;
  int productive;           /* the current iteration ran an I/O callback */
  uint32_t *touched;        /* threads whose runs[] it raised */
  size_t touched_count, touched_cap;
  uint32_t loop;
} streak_t;

static int by_runs_desc(const finder_t *f, uint32_t a, uint32_t b) {
  return f->runs[a] > f->runs[b];
}

/* The streak's spinners (threads that ran in half its iterations or
 * more), most runs first, into the current finding. */
static int name_spinners(finder_t *f, streak_t *s) {
  for (size_t i = 1; i < s->touched_count; i++)
    for (size_t j = i; j > 0 && by_runs_desc(f, s->touched[j], s->touched[j - 1]); j--) {
      uint32_t tmp = s->touched[j];
      s->touched[j] = s->touched[j - 1];
      s->touched[j - 1] = tmp;
    }
  int err = 0;
  for (size_t i = 0; !err && i < s->touched_count && i < 3; i++) {
    uint32_t t = s->touched[i];
    if (f->runs[t] * 2 < s->polls) break;
    if (i) put(&f->text, ", ");
    put_thread(&f->text, f->m, t);
    put(&f->text, " ran ");
    put_uint(&f->text, f->runs[t]);
    put(&f->text, " times");
    err = name_thread(f, t);
    if (!err)
      err = add_evidence(f, MPROF_EVIDENCE_SPUN, t, MPROF_NO_THREAD, f->runs[t],
                         s->start_ns, s->end_ns);
  }
  return err;
}

static int busy_loop(finder_t *f, streak_t *s) {
  begin(f, MPROF_FINDING_BUSY_LOOP, MPROF_SEVERITY_WARNING, s->start_ns, s->end_ns);
  f->current.value_ns = s->end_ns - s->start_ns;
  put_thread(&f->text, f->m, s->loop);
  put(&f->text, " never slept in its poll for ");
  put_duration(&f->text, s->end_ns - s->start_ns);
  put(&f->text, " from ");
  put_duration(&f->text, s->start_ns);
  put(&f->text, " (");
  put_uint(&f->text, s->polls);
  put(&f->text, " iterations, ");
  put_uint(&f->text, s->empty);
  put(&f->text, " with no I/O): ");
  int err = name_spinners(f, s);
  if (!err) err = name_thread(f, s->loop);
  return err ? err : commit(f);
}

/* The busy windows are over: a finding if they last long enough. */
static int streak_end(finder_t *f, streak_t *s) {
  int err = 0;
  if (s->start_ns >= 0 && s->loop != MPROF_NO_THREAD &&
      s->end_ns - s->start_ns >= f->options->busy_loop_ns)
    err = busy_loop(f, s);
  for (size_t i = 0; i < s->touched_count; i++) f->runs[s->touched[i]] = 0;
  s->touched_count = 0;
  s->polls = s->empty = 0;
  s->start_ns = -1;
  return err;
}

/* The window that began at s->window_ns ends at now: busy (iterations
 * enough, nine in ten with no I/O) it joins the streak; else the streak
 * is over. */
static int window_end(finder_t *f, streak_t *s, int64_t now) {
  int err = 0;
  if (s->window_ns < 0) return 0;
  if (s->window_polls >= BUSY_MIN_ITERATIONS &&
      (uint64_t)s->window_empty * 10 >= (uint64_t)s->window_polls * 9) {
    if (s->start_ns < 0) s->start_ns = s->window_ns;
    s->end_ns = now;
    s->polls += s->window_polls;
    s->empty += s->window_empty;
  } else {
    err = streak_end(f, s);
  }
  s->window_ns = -1;
  return err;
}

/* A callback of t began in the streak. */
static int streak_run(finder_t *f, streak_t *s, uint32_t t) {
  if (!spins_alone(f, t)) s->productive = 1;
  if (f->runs[t]++ == 0) {
    if (mprof__grow(&s->touched, &s->touched_cap, s->touched_count + 1,
                    sizeof *s->touched))
      return MPROF_ENOMEM;
    s->touched[s->touched_count++] = t;
  }
  return 0;
}

/* A poll of the loop that began at start, in the current window (or the
 * first of a new one). */
static int streak_poll(finder_t *f, streak_t *s, int64_t start) {
  int err = 0;
  if (s->window_ns >= 0 && start - s->window_ns >= BUSY_WINDOW_NS)
    err = window_end(f, s, start);
  if (s->window_ns < 0) {
    s->window_ns = start;
    s->window_polls = s->window_empty = 0;
  }
  s->window_polls++;
  s->window_empty += !s->productive;
  s->productive = 0;
  return err;
}

/* Stretches of one loop stream (items[lo..hi)) where the loop went round
 * and round, never sleeping in its poll, and its iterations did no I/O.
 * An iteration's poll is its idle band; callbacks of prepare handles
 * right after the band still come before the poll. */
static int find_busy(finder_t *f, const item_t *items, size_t lo, size_t hi) {
  streak_t s;
  memset(&s, 0, sizeof s);
  s.loop = first_loop(f, items, lo, hi);
  s.start_ns = s.window_ns = -1;
  int err = 0;
  int64_t loop_end = -1, poll_start = -1;
  for (size_t i = lo; !err && i < hi; i++) {
    const item_t *it = &items[i];
    if (it->thread == MPROF_NO_THREAD) {
      if (poll_start >= 0) err = streak_poll(f, &s, poll_start);
      poll_start = it->start_ns;
      loop_end = it->end_ns;
    } else if (loop_present(f, it)) {
      s.loop = it->thread;
      loop_end = it->end_ns;
    } else if (it->start_ns == loop_end) {
      if (poll_start >= 0 && !runs_before_poll(f, it->thread)) {
        err = streak_poll(f, &s, poll_start);
        poll_start = -1;
      }
      if (!err && s.window_ns >= 0) err = streak_run(f, &s, it->thread);
    }
  }
  if (!err) err = window_end(f, &s, loop_end);
  if (!err) err = streak_end(f, &s);
  free(s.touched);
  return err;
}

/* The loop's presences on a stream (its own spans and its idle bands),
 * in time order, as they are walked. */
typedef struct presence_s {
  int64_t end_ns;          /* of the latest presence so far (-1: none) */
  int64_t gap_from_ns;     /* a long gap began here, until the next band
                              ends (-1: none open) */
  size_t bands_in_window, window_first; /* bands of the latest 50 ms */
} presence_t;

/* The loop is present during [start, end] (a band if band): a gap as long
 * as a blocked loop before it opens a range, up to the end of the band
 * after it (the callbacks that waited run before it). */
static int presence_at(finder_t *f, presence_t *p, ranges_t *r, int64_t start,
                       int64_t end, int band) {
  int err = 0;
  if (p->end_ns >= 0 && start - p->end_ns >= f->options->loop_blocked_ns &&
      p->gap_from_ns < 0)
    p->gap_from_ns = p->end_ns;
  if (band && p->gap_from_ns >= 0) {
    err = range_add(r, p->gap_from_ns, end);
    p->gap_from_ns = -1;
  }
  if (end > p->end_ns) p->end_ns = end;
  return err;
}

/* A band of stream: a window of 50 ms crowded with bands is a range. */
static int band_at(finder_t *f, presence_t *p, ranges_t *r, uint32_t stream,
                   const mprof_span_t *band) {
  const mprof_band_t *bands = f->v->bands;
  p->bands_in_window++;
  while (band->start_ns - bands[p->window_first].span.start_ns >= BUSY_WINDOW_NS) {
    if (bands[p->window_first].span.stream == stream &&
        bands[p->window_first].kind == MPROF_BAND_IDLE)
      p->bands_in_window--;
    p->window_first++;
  }
  if (p->bands_in_window < BUSY_MIN_ITERATIONS) return 0;
  return range_add(r, bands[p->window_first].span.start_ns, band->end_ns);
}

/* The stretches of a stream worth the detectors' look, into *r: gaps
 * between the loop's presences as long as a blocked loop, and windows
 * crowded with polls.  A cheap walk (the loop's own spans and the bands
 * are in order already) that spares a big trace's loops a timeline of
 * all their spans.  A stream whose loop is from before the trace is
 * looked at whole. */
static int places_to_look(finder_t *f, uint32_t stream, ranges_t *r) {
  const mprof_model_view_t *v = f->v;
  const mprof_model_t *m = f->m;
  uint32_t loop = MPROF_NO_THREAD;
  for (size_t k = 0; k < f->facts->loop_count && loop == MPROF_NO_THREAD; k++)
    if (mprof__thread_stream(m, f->facts->loops[k]) == stream) loop = f->facts->loops[k];
  if (loop == MPROF_NO_THREAD) return range_add(r, 0, INT64_MAX);
  presence_t p = {-1, -1, 0, 0};
  uint32_t row = v->threads[loop].row;
  size_t k = m->row_running_first[row], k_end = m->row_running_first[row + 1];
  size_t b = 0;
  int err = 0;
  while (!err) {
    while (k < k_end && (v->running[k].thread != loop || v->running[k].stream != stream)) k++;
    while (b < v->band_count &&
           (v->bands[b].span.stream != stream || v->bands[b].kind != MPROF_BAND_IDLE))
      b++;
    if (k == k_end && b == v->band_count) break;
    if (b == v->band_count || (k < k_end && v->running[k].start_ns < v->bands[b].span.start_ns)) {
      err = presence_at(f, &p, r, v->running[k].start_ns, v->running[k].end_ns, 0);
      k++;
    } else {
      const mprof_span_t *band = &v->bands[b++].span;
      err = presence_at(f, &p, r, band->start_ns, band->end_ns, 1);
      if (!err) err = band_at(f, &p, r, stream, band);
    }
  }
  if (!err && p.gap_from_ns >= 0) err = range_add(r, p.gap_from_ns, INT64_MAX);
  return err;
}

/* The per-thread arrays of the loops' detectors, made for the first
 * stream that needs them.  Returns 0 or MPROF_ENOMEM. */
static int loop_arrays(finder_t *f) {
  if (f->runs) return 0;
  f->runs = calloc(f->v->thread_count + 1, sizeof *f->runs);
  f->is_loop = calloc(f->v->thread_count + 1, 1);
  if (!f->runs || !f->is_loop) return MPROF_ENOMEM;
  for (size_t k = 0; k < f->facts->loop_count; k++) f->is_loop[f->facts->loops[k]] = 1;
  return 0;
}

static int find_in_loops(finder_t *f) {
  int err = 0;
  for (uint32_t stream = 0; !err && stream < f->v->stream_count; stream++) {
    timeline_t tl = {NULL, 0};
    ranges_t ranges = {NULL, 0, 0};
    if (!f->loop_stream[stream]) continue;
    err = places_to_look(f, stream, &ranges);
    if (!err && ranges.count) err = loop_arrays(f);
    if (!err && ranges.count) err = build_timeline(f, stream, &ranges, &tl);
    free(ranges.at);
    if (!err) {
      mark_loops(f, &tl);
      err = find_blocked(f, tl.items, 0, tl.count);
    }
    if (!err) err = find_busy(f, tl.items, 0, tl.count);
    free(tl.items);
  }
  free(f->runs);
  free(f->is_loop);
  f->runs = NULL;
  f->is_loop = NULL;
  return err;
}

/* --- The thread pool ---------------------------------------------------------------- */

/* A work request that waited in the queue longer than it ran. */
typedef struct late_s {
  int64_t queue_ns;
  uint32_t thread;
} late_t;

typedef struct pool_s {
  const int64_t *queue_ns, *run_ns; /* by thread (the facts') */
  uint32_t size;               /* OS threads the pool's work ran on */
  late_t *late;
  size_t late_count;
} pool_t;

static int by_queue_desc(const void *pa, const void *pb) {
  const late_t *a = pa, *b = pb;
  if (a->queue_ns != b->queue_ns) return a->queue_ns > b->queue_ns ? -1 : 1;
  return (a->thread > b->thread) - (a->thread < b->thread);
}

/* OS threads (streams) off the loops that ran work. */
static uint32_t pool_size(const finder_t *f, const pool_t *p) {
  uint8_t *seen = calloc(f->v->stream_count + 1, 1);
  uint32_t size = 0;
  if (!seen) return 0;
  for (size_t i = 0; i < f->v->running_count; i++) {
    const mprof_span_t *s = &f->v->running[i];
    if (p->run_ns[s->thread] >= 0 && !f->loop_stream[s->stream] && !seen[s->stream]) {
      seen[s->stream] = 1;
      size++;
    }
  }
  free(seen);
  return size;
}

static int pool_saturated(finder_t *f, pool_t *p) {
  qsort(p->late, p->late_count, sizeof *p->late, by_queue_desc);
  uint32_t worst = p->late[0].thread;
  int64_t start = INT64_MAX, end = 0;
  for (size_t k = 0; k < p->late_count; k++) {
    uint32_t t = p->late[k].thread;
    const mprof_thread_t *th = &f->v->threads[t];
    if (th->start_ns < start) start = th->start_ns;
    int64_t ran = th->start_ns + p->queue_ns[t] + p->run_ns[t];
    if (ran > end) end = ran;
  }
  begin(f, MPROF_FINDING_POOL_SATURATED, MPROF_SEVERITY_WARNING, start, end);
  f->current.value_ns = p->queue_ns[worst];
  put_uint(&f->text, (uint64_t)p->late_count);
  put(&f->text, " work requests waited in the thread pool's queue longer than"
                " they ran (a pool of ");
  put_uint(&f->text, p->size);
  put(&f->text, p->size == 1 ? " thread" : " threads");
  put(&f->text, "); the longest, ");
  put_thread(&f->text, f->m, worst);
  put(&f->text, ", waited ");
  put_duration(&f->text, p->queue_ns[worst]);
  put(&f->text, " to run ");
  put_duration(&f->text, p->run_ns[worst]);
  int err = 0;
  for (size_t k = 0; !err && k < p->late_count && k < FINDING_EVIDENCE / 2; k++) {
    uint32_t t = p->late[k].thread;
    int64_t created = f->v->threads[t].start_ns, ran = created + p->queue_ns[t];
    err = name_thread(f, t);
    if (!err) err = add_evidence(f, MPROF_EVIDENCE_QUEUED, t, MPROF_NO_THREAD, 1, created, ran);
    if (!err)
      err = add_evidence(f, MPROF_EVIDENCE_RAN, t, MPROF_NO_THREAD, 1, ran, ran + p->run_ns[t]);
  }
  return err ? err : commit(f);
}

static int by_time(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

/* When each work request first ran in the pool, sorted (its count in
 * *count). */
static int64_t *pool_starts(const finder_t *f, const pool_t *p, size_t *count) {
  int64_t *starts = malloc((f->v->thread_count + 1) * sizeof *starts);
  *count = 0;
  if (!starts) return NULL;
  for (uint32_t t = 1; t < f->v->thread_count; t++)
    if (p->run_ns[t] >= 0)
      starts[(*count)++] = f->v->threads[t].start_ns + p->queue_ns[t];
  qsort(starts, *count, sizeof *starts, by_time);
  return starts;
}

/* How many of the sorted times fall in (from, to). */
static size_t count_between(const int64_t *sorted, size_t n, int64_t from,
                            int64_t to) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] <= from) lo = mid + 1; else hi = mid;
  }
  size_t first = lo;
  for (hi = n; lo < hi;) {
    size_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] < to) lo = mid + 1; else hi = mid;
  }
  return lo - first;
}

/* Work that waited in the queue longer than it ran (and a millisecond at
 * least) while the pool started as many other jobs as it has threads or
 * more (a job that only waited for the pool to start is not late), as
 * many such jobs as the pool has threads or more: the pool is too small
 * for what is asked of it. */
static int find_pool(finder_t *f) {
  size_t n = f->v->thread_count, started = 0;
  pool_t p;
  memset(&p, 0, sizeof p);
  p.queue_ns = f->facts->queue_ns;
  p.run_ns = f->facts->run_ns;
  if (!p.queue_ns) return 0; /* no work ran */
  p.late = malloc((n + 1) * sizeof *p.late);
  int err = p.late ? 0 : MPROF_ENOMEM;
  if (!err) p.size = pool_size(f, &p);
  int64_t *starts = err || !p.size ? NULL : pool_starts(f, &p, &started);
  if (!err && p.size && !starts) err = MPROF_ENOMEM;
  for (uint32_t t = 1; starts && t < n; t++) {
    int64_t created = f->v->threads[t].start_ns, queue = p.queue_ns[t];
    if (p.run_ns[t] >= 0 && queue > p.run_ns[t] && queue >= 1000000 &&
        count_between(starts, started, created, created + queue) >= p.size)
      p.late[p.late_count++] = (late_t){queue, t};
  }
  if (!err && p.size && p.late_count >= p.size) err = pool_saturated(f, &p);
  free(starts);
  free(p.late);
  return err;
}

/* --- Requests left pending ---------------------------------------------------------- */

/* One finding for the pending requests (the facts' list) of the kind of
 * the one at pending[at], from there on; done[] marks them. */
static int leaked(finder_t *f, size_t at, uint8_t *done) {
  const uint32_t *pending = f->facts->pending;
  uint32_t first = pending[at];
  char kind[128], other[128];
  mprof__request_kind(f->m, first, kind, sizeof kind);
  begin(f, MPROF_FINDING_LEAKED, MPROF_SEVERITY_WARNING,
        f->v->threads[first].start_ns, f->v->duration_ns);
  uint32_t count = 0;
  int err = 0;
  for (size_t k = at; !err && k < f->facts->pending_count; k++) {
    uint32_t t = pending[k];
    if (done[k] || f->v->threads[t].type != f->v->threads[first].type) continue;
    mprof__request_kind(f->m, t, other, sizeof other);
    if (strcmp(kind, other)) continue;
    done[k] = 1;
    count++;
    err = name_thread(f, t);
    if (!err)
      err = add_evidence(f, MPROF_EVIDENCE_PENDING, t, MPROF_NO_THREAD, 1,
                         f->v->threads[t].start_ns, f->v->duration_ns);
  }
  put_uint(&f->text, count);
  put(&f->text, " \"");
  put(&f->text, kind);
  put(&f->text, count == 1 ? "\" request was" : "\" requests were");
  put(&f->text, " still pending when the trace ended; the first, ");
  put_thread(&f->text, f->m, first);
  put(&f->text, ", made by ");
  put_thread(&f->text, f->m, f->v->threads[first].creator);
  put(&f->text, " at ");
  put_duration(&f->text, f->v->threads[first].start_ns);
  if (!err) err = name_thread(f, f->v->threads[first].creator);
  return err ? err : commit(f);
}

static int find_leaked(finder_t *f) {
  size_t n = f->facts->pending_count;
  uint8_t *done = calloc(n + 1, 1);
  if (!done) return MPROF_ENOMEM;
  int err = 0;
  for (size_t k = 0; !err && k < n; k++)
    if (!done[k]) err = leaked(f, k, done);
  free(done);
  return err;
}

/* --- Retry storms ------------------------------------------------------------------- */

/* Failures in a row of one kind of request, with one error, each made
 * again soon after the one before failed. */
typedef struct storm_s {
  char kind[128];
  uint32_t error;          /* model string offset of the failure text */
  uint32_t first, last;    /* thread indexes */
  uint32_t count;
  int64_t last_end_ns;
} storm_t;

static int retry_storm(finder_t *f, const storm_t *st) {
  const mprof_thread_t *first = &f->v->threads[st->first];
  begin(f, MPROF_FINDING_RETRY_STORM, MPROF_SEVERITY_WARNING, first->start_ns,
        st->last_end_ns);
  put_uint(&f->text, st->count);
  put(&f->text, " \"");
  put(&f->text, st->kind);
  put(&f->text, "\" requests failed in a row with ");
  put(&f->text, f->v->strings + st->error);
  put(&f->text, ", each made again within ");
  put_duration(&f->text, STORM_RETRY_NS);
  put(&f->text, " of the failure before, over ");
  put_duration(&f->text, st->last_end_ns - first->start_ns);
  put(&f->text, ": the first, ");
  put_thread(&f->text, f->m, st->first);
  put(&f->text, ", made by ");
  put_thread(&f->text, f->m, first->creator);
  int err = name_thread(f, st->first);
  if (!err) err = name_thread(f, st->last);
  if (!err) err = name_thread(f, first->creator);
  if (!err)
    err = add_evidence(f, MPROF_EVIDENCE_RAN, st->first, MPROF_NO_THREAD, st->count,
                       first->start_ns, st->last_end_ns);
  return err ? err : commit(f);
}

/* The storm of request t's kind and error among storms[0..n), or n. */
static size_t storm_of(const finder_t *f, const storm_t *storms, size_t n,
                       const char *kind, uint32_t t) {
  const char *error = f->v->strings + f->v->threads[t].failure;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(storms[i].kind, kind) &&
        !strcmp(f->v->strings + storms[i].error, error))
      return i;
  return n;
}

/* The failed requests (in creation order): a kind that failed
 * STORM_FAILURES times in a row with one error, each made again within
 * STORM_RETRY_NS of the one before, is a storm; its longest run is told
 * once. */
static int find_storms(finder_t *f) {
  storm_t *storms = NULL, *worst = NULL;
  size_t count = 0, cap = 0, worst_cap = 0;
  int err = 0;
  char kind[128];
  for (size_t k = 0; !err && k < f->facts->failed_count; k++) {
    uint32_t t = f->facts->failed[k];
    const mprof_thread_t *th = &f->v->threads[t];
    mprof__request_kind(f->m, t, kind, sizeof kind);
    size_t i = storm_of(f, storms, count, kind, t);
    if (i == count) {
      if (mprof__grow(&storms, &cap, count + 1, sizeof *storms) ||
          mprof__grow(&worst, &worst_cap, count + 1, sizeof *worst)) {
        err = MPROF_ENOMEM;
        break;
      }
      memset(&storms[i], 0, sizeof storms[i]);
      memcpy(storms[i].kind, kind, sizeof kind);
      storms[i].error = th->failure;
      worst[i] = storms[i];
      count++;
    }
    storm_t *st = &storms[i];
    /* a retry is made by the attempt before it (in its callback, before
     * it ended) or after that one failed, and soon after */
    if (!st->count || !(th->creator == st->last || th->start_ns >= st->last_end_ns) ||
        th->start_ns - st->last_end_ns > STORM_RETRY_NS) {
      st->first = t;
      st->count = 0;
    }
    st->count++;
    st->last = t;
    st->last_end_ns = th->end_ns;
    if (st->count > worst[i].count) worst[i] = *st;
  }
  for (size_t i = 0; !err && i < count; i++)
    if (worst[i].count >= STORM_FAILURES) err = retry_storm(f, &worst[i]);
  free(storms);
  free(worst);
  return err;
}

/* --- Write backlogs ------------------------------------------------------------------ */

typedef struct write_s {
  int64_t start_ns, end_ns;  /* end: the trace's end if it never ended */
  uint32_t thread;
} write_t;

static int by_write_start(const void *pa, const void *pb) {
  const write_t *a = pa, *b = pb;
  if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
  return (a->thread > b->thread) - (a->thread < b->thread);
}

/* peak writes pending at `at`, writes[oldest] the oldest of those that
 * stayed pending long. */
static int backlog(finder_t *f, const write_t *writes, size_t n, size_t peak,
                   int64_t at, size_t oldest) {
  uint32_t t = writes[oldest].thread;
  int64_t waited = writes[oldest].end_ns - writes[oldest].start_ns;
  begin(f, MPROF_FINDING_WRITE_BACKLOG, MPROF_SEVERITY_WARNING,
        writes[oldest].start_ns, writes[oldest].end_ns);
  f->current.value_ns = waited;
  put_uint(&f->text, peak);
  put(&f->text, " writes were pending at ");
  put_duration(&f->text, at);
  put(&f->text, ", the oldest, ");
  put_thread(&f->text, f->m, t);
  put(&f->text, " made by ");
  put_thread(&f->text, f->m, f->v->threads[t].creator);
  put(&f->text, ", pending ");
  put_duration(&f->text, waited);
  put(&f->text, " in all: the writer does not wait for its writes to complete");
  int err = name_thread(f, t);
  if (!err) err = name_thread(f, f->v->threads[t].creator);
  for (size_t k = oldest; !err && k < n && writes[k].start_ns <= at; k++)
    if (writes[k].end_ns > at)
      err = add_evidence(f, MPROF_EVIDENCE_PENDING, writes[k].thread, MPROF_NO_THREAD,
                         1, writes[k].start_ns, writes[k].end_ns);
  return err ? err : commit(f);
}

/* The most writes pending at once, and when (the first time): a backlog
 * if BACKLOG_WRITES or more of them stayed pending BACKLOG_AGE_NS or more
 * in all (a burst that drains at once is none). */
static int find_backlog(finder_t *f) {
  size_t n = f->facts->write_count;
  if (n < BACKLOG_WRITES) return 0;
  write_t *writes = malloc(n * sizeof *writes);
  int64_t *ends = malloc(n * sizeof *ends);
  int err = !writes || !ends ? MPROF_ENOMEM : 0;
  for (size_t k = 0; !err && k < n; k++) {
    const mprof_thread_t *th = &f->v->threads[f->facts->writes[k]];
    int64_t end = th->ending == MPROF_ENDING_PENDING ? f->v->duration_ns : th->end_ns;
    writes[k] = (write_t){th->start_ns, end, f->facts->writes[k]};
    ends[k] = end;
  }
  size_t peak = 0, pending = 0, j = 0;
  int64_t at = 0;
  if (!err) {
    qsort(writes, n, sizeof *writes, by_write_start);
    qsort(ends, n, sizeof *ends, by_time);
  }
  for (size_t k = 0; !err && k < n; k++) {
    while (j < n && ends[j] <= writes[k].start_ns) j++, pending--;
    if (++pending > peak) {
      peak = pending;
      at = writes[k].start_ns;
    }
  }
  if (!err && peak >= BACKLOG_WRITES) {
    /* of the writes pending then, those that stayed pending long */
    size_t stuck = 0, oldest = n;
    for (size_t k = 0; k < n && writes[k].start_ns <= at; k++)
      if (writes[k].end_ns > at && writes[k].end_ns - writes[k].start_ns >= BACKLOG_AGE_NS) {
        if (!stuck++) oldest = k;
      }
    if (stuck >= BACKLOG_WRITES) err = backlog(f, writes, n, peak, at, oldest);
  }
  free(writes);
  free(ends);
  return err;
}

/* --- What the trace cannot tell ------------------------------------------------------- */

static int cannot_tell(finder_t *f) {
  uint32_t preexisting = f->facts->preexisting;
  int err = 0;
  if (preexisting) {
    begin(f, MPROF_FINDING_CANNOT_TELL, MPROF_SEVERITY_INFO, 0, 0);
    put_uint(&f->text, preexisting);
    put(&f->text, preexisting == 1 ? " thread" : " threads");
    put(&f->text, " existed before the trace begins (a ring that"
                  " overwrote its start?): what they did before it, and"
                  " who made them, cannot be told");
    err = name_thread(f, f->facts->first_preexisting);
    if (!err) err = commit(f);
  }
  if (!err && f->v->discarded) {
    begin(f, MPROF_FINDING_CANNOT_TELL, MPROF_SEVERITY_INFO, 0, f->v->duration_ns);
    put_uint(&f->text, f->v->discarded);
    put(&f->text, " events were lost by the recorder (a full buffer):"
                  " what they held cannot be told");
    err = commit(f);
  }
  return err;
}

/* --- Entry point ---------------------------------------------------------------------- */

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
  if (!err) err = find_in_loops(&f);
  if (!err) err = find_pool(&f);
  if (!err) err = find_storms(&f);
  if (!err) err = find_backlog(&f);
  if (!err) err = find_leaked(&f);
  if (!err) err = cannot_tell(&f);
  if (!err) qsort(out->findings, out->finding_count, sizeof *out->findings, by_severity);
  return err;
}
