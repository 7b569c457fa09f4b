/* why.c -- why a thread took as long as it did: its life as a chain of
 * waits, walked back from its end (docs/analysis.md, "Why").  Each hop
 * is a thread and the span of the asked-about life it accounts for:
 * the thread ran since it came out of its latest wait (or received a
 * message, or began); before that it waited on something, which someone
 * resolved or signalled, who in turn ran since its own latest wait, and
 * so on back to a thread that waited on nothing, then to its creator, to
 * the root.  `mprof why` prints one chain; the report one per kind of
 * request, for its slowest.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

static const char *const via_names[MPROF_WHY_VIA_COUNT] = {
    "target", "waited", "resolved", "signalled", "created", "sent"};

const char *mprof_why_via_name(mprof_why_via_t via) {
  return (unsigned)via < MPROF_WHY_VIA_COUNT ? via_names[via] : "unknown";
}

/* --- Messages between processes ------------------------------------------- */

typedef struct message_list_s {
  mprof_message_t *items;
  size_t count, cap;
} message_list_t;

static int keep_message(void *context, const mprof_message_t *message) {
  message_list_t *list = context;
  if (mprof__grow(&list->items, &list->cap, list->count + 1,
                  sizeof *list->items))
    return 1;
  list->items[list->count++] = *message;
  return 0;
}

static int by_receiver(const void *pa, const void *pb) {
  const mprof_message_t *a = pa, *b = pb;
  if (a->receive_thread != b->receive_thread)
    return a->receive_thread < b->receive_thread ? -1 : 1;
  return (a->receive_ns > b->receive_ns) - (a->receive_ns < b->receive_ns);
}

/* Does the model hold more than one trace (a stream of trace 1 or more)? */
static int several_traces(const mprof_model_t *m) {
  for (uint32_t s = 0; s < m->view.stream_count; s++)
    if (MPROF_MODEL_TRACE(mprof_model_stream_id(m, s))) return 1;
  return 0;
}

int mprof__why_make(const mprof_model_t *m, const mprof__adjacency_t *adjacency,
                    mprof__why_t *out) {
  memset(out, 0, sizeof *out);
  out->model = m;
  out->adjacency = adjacency;
  if (!several_traces(m)) return 0;
  message_list_t list = {NULL, 0, 0};
  int err = mprof_model_messages(m, keep_message, &list);
  if (err) {
    free(list.items);
    return err;
  }
  if (list.count)
    qsort(list.items, list.count, sizeof *list.items, by_receiver);
  out->messages = list.items;
  out->message_count = list.count;
  return 0;
}

void mprof__why_free(mprof__why_t *why) {
  free(why->messages);
  why->messages = NULL;
}

/* The latest message thread t received at or before time, or NULL. */
static const mprof_message_t *message_before(const mprof__why_t *w, uint32_t t,
                                             int64_t time) {
  size_t lo = 0, hi = w->message_count; /* first receive after (t, time) */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const mprof_message_t *x = &w->messages[mid];
    if (x->receive_thread < t ||
        (x->receive_thread == t && x->receive_ns <= time))
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0 || w->messages[lo - 1].receive_thread != t) return NULL;
  return &w->messages[lo - 1];
}

/* --- The walk ------------------------------------------------------------- */

/* Where one hop leads: the next thread, how, and until when it counts. */
typedef struct step_s {
  int64_t start_ns; /* where this hop begins */
  uint32_t thread, via, arrow;
  int64_t end_ns; /* where the next hop ends */
} step_t;

/* The wait of t that ended latest at or before `time` (clipped to it),
 * among those begun before it: 1 and *step, or 0. */
static int latest_wait(const mprof__why_t *w, uint32_t t, int64_t time,
                       step_t *step) {
  const mprof__adjacency_t *adj = w->adjacency;
  int found = 0;
  for (uint32_t k = adj->first[t]; k < adj->first[t + 1]; k++) {
    mprof_arrow_t a = mprof_arrow_at(&w->model->view, adj->adj[k]);
    if (a.time_ns >= time) break;
    if (a.kind != MPROF_ARROW_TRY_READ || a.from != t || a.to == t) continue;
    int64_t end = mprof__wait_end(w->model, adj, &a);
    if (end > time) end = time;
    if (!found || end >= step->start_ns) {
      *step = (step_t){end, a.to, MPROF_WHY_WAITED, adj->adj[k], end};
      found = 1;
    }
  }
  return found;
}

/* Who resolved t (a resolve arrow from another thread), else who last
 * signalled it, at or before time: 1 and *step, or 0. */
static int resolver(const mprof__why_t *w, uint32_t t, int64_t time,
                    step_t *step) {
  const mprof__adjacency_t *adj = w->adjacency;
  int found = 0;
  for (uint32_t k = adj->first[t]; k < adj->first[t + 1]; k++) {
    mprof_arrow_t a = mprof_arrow_at(&w->model->view, adj->adj[k]);
    if (a.time_ns > time) break;
    if (a.to != t || a.from == t) continue;
    if (a.kind == MPROF_ARROW_RESOLVE) {
      *step = (step_t){0, a.from, MPROF_WHY_RESOLVED, adj->adj[k], a.time_ns};
      return 1;
    }
    if (a.kind == MPROF_ARROW_SIGNAL) {
      *step = (step_t){0, a.from, MPROF_WHY_SIGNALLED, adj->adj[k], a.time_ns};
      found = 1;
    }
  }
  return found;
}

/* The arrow that created t, or MPROF_NO_THREAD. */
static uint32_t creation(const mprof__why_t *w, uint32_t t) {
  const mprof__adjacency_t *adj = w->adjacency;
  for (uint32_t k = adj->first[t]; k < adj->first[t + 1]; k++) {
    mprof_arrow_t a = mprof_arrow_at(&w->model->view, adj->adj[k]);
    if (a.kind == MPROF_ARROW_CREATE && a.to == t) return adj->adj[k];
  }
  return MPROF_NO_THREAD;
}

/* What came before thread t ran up to `time`: its latest wait, or a
 * message it received since, or else its creation. */
static step_t before_running(const mprof__why_t *w, uint32_t t, int64_t time) {
  const mprof_thread_t *th = &w->model->view.threads[t];
  step_t wait;
  int waited = latest_wait(w, t, time, &wait);
  const mprof_message_t *message = message_before(w, t, time);
  if (message && (!waited || message->receive_ns > wait.start_ns))
    return (step_t){message->receive_ns, message->send_thread, MPROF_WHY_SENT,
                    MPROF_NO_THREAD, message->send_ns};
  if (waited) return wait;
  return (step_t){th->start_ns, th->creator, MPROF_WHY_CREATED, creation(w, t),
                  th->start_ns};
}

/* Is the hop's thread something threads wait on, so that who resolved or
 * signalled it comes before its own past: what the hop before waited on,
 * or a condition (the creator of a wait on it). */
static int is_awaited(const mprof_model_t *m, const mprof_why_hop_t *hop) {
  return hop->via == MPROF_WHY_WAITED ||
         m->view.threads[hop->thread].type == MPROF_CONDITION;
}

/* Has the chain already been at thread t until time (a cycle of waits)? */
static int seen(const mprof_why_hop_t *hops, size_t count, uint32_t t,
                int64_t time) {
  for (size_t i = 0; i < count; i++)
    if (hops[i].thread == t && hops[i].end_ns == time) return 1;
  return 0;
}

int mprof__why_chain(const mprof__why_t *w, uint32_t thread,
                     mprof_why_hop_t *hops, size_t *count) {
  const mprof_model_t *m = w->model;
  mprof_why_hop_t hop = {thread, MPROF_WHY_TARGET, MPROF_NO_THREAD, 0,
                         mprof__effective_end(m, thread)};
  *count = 0;
  while (*count < MPROF_WHY_LIMIT && hop.thread != MPROF_ROOT_THREAD &&
         hop.thread < m->view.thread_count &&
         !seen(hops, *count, hop.thread, hop.end_ns)) {
    step_t next;
    int resolved =
        is_awaited(m, &hop) && resolver(w, hop.thread, hop.end_ns, &next);
    if (!resolved) next = before_running(w, hop.thread, hop.end_ns);
    hop.start_ns = next.start_ns < hop.end_ns ? next.start_ns : hop.end_ns;
    if (hop.via == MPROF_WHY_WAITED) /* it counts from the wait's start */
      hop.start_ns = mprof_arrow_at(&m->view, hop.arrow).time_ns;
    else if (resolved) /* it counts from its signal on */
      hop.start_ns = next.end_ns < hop.end_ns ? next.end_ns : hop.end_ns;
    hops[(*count)++] = hop;
    int64_t end = next.end_ns < hop.end_ns ? next.end_ns : hop.end_ns;
    hop = (mprof_why_hop_t){next.thread, next.via, next.arrow, 0, end};
  }
  return 0;
}

int mprof_model_why(const mprof_model_t *m, uint32_t thread,
                    mprof_why_hop_t **hops, size_t *count) {
  *hops = NULL;
  *count = 0;
  if (!m->finished || thread == MPROF_ROOT_THREAD ||
      thread >= m->view.thread_count)
    return MPROF_EINVAL;
  mprof__adjacency_t adjacency;
  mprof__why_t why;
  int err = mprof__adjacency_make(m, &adjacency);
  if (err) return err;
  err = mprof__why_make(m, &adjacency, &why);
  mprof_why_hop_t *out = malloc(MPROF_WHY_LIMIT * sizeof *out);
  if (!err && !out) err = MPROF_ENOMEM;
  if (!err) err = mprof__why_chain(&why, thread, out, count);
  mprof__why_free(&why);
  mprof__adjacency_free(&adjacency);
  if (err) {
    free(out);
    *count = 0;
    return err;
  }
  *hops = out;
  return 0;
}
