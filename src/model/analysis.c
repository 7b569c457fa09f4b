/* analysis.c -- what went wrong and where the time went, from a finished
 * model:
 *  - stalls: should_resolve threads that never resolved, with the last
 *    interactions before they stalled;
 *  - lost wake-ups: a signal that no waiter heard, followed by a wait on
 *    the same thing that never ends;
 *  - per thread: time running, waiting (by what it waited on), in poll
 *    (a loop's idle bands) and not running;
 *  - wait chains: who waited on whom, transitively, longest first;
 *  - wait cycles: threads that wait on each other, still at the end;
 *  - the critical path of the longest resolved thread, back through
 *    resolves, reads and creations;
 *  - then the findings and the requests' latency (findings.c,
 *    requests.c), from all of the above.
 * A wait is a try_read of a pending input: it lasts until the waiter reads
 * that input, or the input ends, or the waiter does.  Legacy traces of
 * Lwt programs hold no try_read (older mirage-profile wrote none): there a
 * bind makes a thread that waits for its input and reads it once the input
 * resolved, so a read of an input that was still pending when the reader
 * was created stands for a wait from the reader's creation to the input's
 * end.
 */
#include <string.h>

#include "analysis_internal.h"

typedef struct wait_edge_s {
  uint32_t waiter, on;
  int64_t start_ns, end_ns;
} wait_edge_t;

typedef struct context_s {
  const mprof_model_t *model;
  const mprof_model_view_t *view;
  const mprof_thread_t *threads;
  size_t thread_count;
  mprof__adjacency_t adjacency;
  wait_edge_t *edges; /* by waiter, then start */
  size_t edge_count;
  uint32_t *edges_first; /* edges of thread t: [first[t], first[t+1]) */
  mprof_analysis_t *out;
  size_t cap_stalls, cap_lost, cap_waits, cap_chains, cap_chain_threads,
      cap_refs, cap_path, cap_cycles;
} context_t;

#define PUSH(ctx, field, count, capname, item)                                 \
  (mprof__grow(&(ctx)->out->field, &(ctx)->capname, (ctx)->out->count + 1,     \
               sizeof *(ctx)->out->field)                                      \
       ? MPROF_ENOMEM                                                          \
       : ((ctx)->out->field[(ctx)->out->count++] = (item), 0))

int mprof__adjacency_make(const mprof_model_t *m, mprof__adjacency_t *out) {
  size_t n = m->view.thread_count, arrows = m->view.arrow_count;
  out->first = calloc(n + 2, sizeof *out->first);
  out->adj = malloc((2 * arrows + 1) * sizeof *out->adj);
  if (!out->first || !out->adj) {
    mprof__adjacency_free(out);
    return MPROF_ENOMEM;
  }
  /* counted into first[t + 2], summed, then each arrow placed at
   * first[t + 1]++, which leaves first[t + 1] where t + 1's arrows start:
   * no second array of positions */
  uint32_t *first = out->first;
  for (size_t i = 0; i < arrows; i++) {
    mprof_arrow_t a = mprof_arrow_at(&m->view, i);
    first[a.from + 2]++;
    first[a.to + 2]++;
  }
  for (size_t t = 0; t < n; t++) first[t + 2] += first[t + 1];
  for (size_t i = 0; i < arrows; i++) {
    mprof_arrow_t a = mprof_arrow_at(&m->view, i);
    out->adj[first[a.from + 1]++] = (uint32_t)i;
    out->adj[first[a.to + 1]++] = (uint32_t)i;
  }
  return 0;
}

void mprof__adjacency_free(mprof__adjacency_t *adjacency) {
  free(adjacency->first);
  free(adjacency->adj);
  adjacency->first = adjacency->adj = NULL;
}

static int64_t effective_end(const context_t *c, uint32_t i) {
  return mprof__effective_end(c->model, i);
}

/* --- Waits ---------------------------------------------------------------- */

int64_t mprof__wait_settle(int64_t start_ns, int64_t input_end_ns,
                           int64_t waiter_end_ns, int64_t read_ns) {
  int64_t end = input_end_ns < waiter_end_ns ? input_end_ns : waiter_end_ns;
  if (read_ns < end) end = read_ns;
  return end > start_ns ? end : start_ns;
}

int64_t mprof__wait_end(const mprof_model_t *m,
                        const mprof__adjacency_t *adjacency,
                        const mprof_arrow_t *a) {
  int64_t read_ns = INT64_MAX;
  const uint32_t *first = adjacency->first;
  for (uint32_t k = first[a->from]; k < first[a->from + 1]; k++) {
    mprof_arrow_t r = mprof_arrow_at(&m->view, adjacency->adj[k]);
    if ((r.kind == MPROF_ARROW_READ || r.kind == MPROF_ARROW_READ_FAILED) &&
        r.to == a->from && r.from == a->to && r.time_ns >= a->time_ns) {
      read_ns = r.time_ns;
      break;
    }
  }
  return mprof__wait_settle(a->time_ns, mprof__effective_end(m, a->to),
                            mprof__effective_end(m, a->from), read_ns);
}

/* The wait that legacy read arrow `a` stands for (see the top): 1 and
 * *edge set, or 0 if its input was not pending when the reader began. */
static int read_wait(const context_t *c, const mprof_arrow_t *a,
                     wait_edge_t *edge) {
  const mprof_thread_t *input = &c->threads[a->from];
  const mprof_thread_t *reader = &c->threads[a->to];
  if (a->kind != MPROF_ARROW_READ && a->kind != MPROF_ARROW_READ_FAILED)
    return 0;
  if (mprof__never_ends(input) || input->end_ns <= reader->start_ns) return 0;
  int64_t end = input->end_ns < a->time_ns ? input->end_ns : a->time_ns;
  *edge = (wait_edge_t){a->to, a->from, reader->start_ns, end};
  return 1;
}

/* The wait arrow i begins, if any: a try_read, or a legacy read standing
 * for one where the trace holds no try_read at all. */
static int arrow_wait(const context_t *c, size_t i, int reads_are_waits,
                      wait_edge_t *edge) {
  mprof_arrow_t a = mprof_arrow_at(c->view, i);
  if (reads_are_waits) return read_wait(c, &a, edge);
  if (a.kind != MPROF_ARROW_TRY_READ) return 0;
  *edge = (wait_edge_t){a.from, a.to, a.time_ns,
                        mprof__wait_end(c->model, &c->adjacency, &a)};
  return 1;
}

/* The waits, grouped by waiter (stable: arrows are in time order), each
 * placed where it belongs as it is made: counted by waiter into
 * edges_first[t + 2], summed, then placed as the arrows by thread are
 * (mprof__adjacency_make), so that no unsorted copy is ever made. */
static int collect_waits(context_t *c) {
  size_t n = c->thread_count, arrows = c->model->view.arrow_count;
  uint32_t *first = c->edges_first = calloc(n + 2, sizeof *first);
  if (!first) return MPROF_ENOMEM;
  int reads_are_waits = 0;
  wait_edge_t edge;
  for (size_t i = 0; i < arrows; i++) {
    mprof_arrow_t a = mprof_arrow_at(c->view, i);
    if (a.kind == MPROF_ARROW_TRY_READ) {
      first[a.from + 2]++;
      c->edge_count++;
    }
  }
  if (c->edge_count == 0 && c->model->legacy) {
    reads_are_waits = 1;
    for (size_t i = 0; i < arrows; i++) {
      mprof_arrow_t a = mprof_arrow_at(c->view, i);
      if (read_wait(c, &a, &edge)) {
        first[edge.waiter + 2]++;
        c->edge_count++;
      }
    }
  }
  c->edges = malloc((c->edge_count + 1) * sizeof *c->edges);
  if (!c->edges) return MPROF_ENOMEM;
  for (size_t t = 0; t < n; t++) first[t + 2] += first[t + 1];
  for (size_t i = 0; i < arrows; i++)
    if (arrow_wait(c, i, reads_are_waits, &edge))
      c->edges[first[edge.waiter + 1]++] = edge;
  return 0;
}

/* --- Time per thread ------------------------------------------------------ */

static int add_wait_time(context_t *c, mprof_thread_time_t *tt, uint32_t on,
                         int64_t ns) {
  mprof_analysis_t *out = c->out;
  for (uint32_t k = tt->first_wait; k < tt->first_wait + tt->wait_count; k++)
    if (out->waits[k].on == on) {
      out->waits[k].ns += ns;
      return 0;
    }
  mprof_wait_t w = {on, ns};
  if (PUSH(c, waits, wait_count, cap_waits, w)) return MPROF_ENOMEM;
  tt->wait_count++;
  return 0;
}

int64_t mprof__wait_part(int64_t *covered, int64_t start_ns, int64_t end_ns,
                         int64_t life_end_ns) {
  int64_t from = start_ns > *covered ? start_ns : *covered;
  int64_t to = end_ns < life_end_ns ? end_ns : life_end_ns;
  if (to <= from) return 0;
  *covered = to;
  return to - from;
}

/* Waiting time of thread t: the union of its waits within its life, each
 * moment counted once, for the wait that began first. */
static int thread_waiting(context_t *c, uint32_t t, int64_t life_end,
                          mprof_thread_time_t *tt) {
  int64_t covered = c->threads[t].start_ns;
  tt->first_wait = (uint32_t)c->out->wait_count;
  for (uint32_t k = c->edges_first[t]; k < c->edges_first[t + 1]; k++) {
    const wait_edge_t *e = &c->edges[k];
    int64_t part = mprof__wait_part(&covered, e->start_ns, e->end_ns, life_end);
    if (!part) continue;
    tt->waiting_ns += part;
    if (add_wait_time(c, tt, e->on, part)) return MPROF_ENOMEM;
  }
  return 0;
}

/* Time the loop thread t spent in its poll: the idle bands of the stream
 * it runs on, within [start, end). */
static int64_t loop_in_poll(const context_t *c, uint32_t t, int64_t start,
                            int64_t end) {
  const mprof_model_view_t *v = &c->model->view;
  uint32_t stream = mprof__thread_stream(c->model, t);
  int64_t sum = 0;
  for (size_t i = 0; stream != MPROF_NO_THREAD && i < v->band_count; i++) {
    mprof_band_t b = mprof_band_at(v, i);
    if (b.span.stream != stream || b.kind != MPROF_BAND_IDLE) continue;
    int64_t from = b.span.start_ns > start ? b.span.start_ns : start;
    int64_t to = b.span.end_ns < end ? b.span.end_ns : end;
    if (to > from) sum += to - from;
  }
  return sum;
}

void mprof__split_idle(mprof_thread_time_t *tt, int loop, int64_t poll_ns) {
  int64_t idle = tt->life_ns - tt->running_ns - tt->waiting_ns;
  tt->idle_ns = idle > 0 ? idle : 0;
  if (loop) tt->in_poll_ns = poll_ns < tt->idle_ns ? poll_ns : tt->idle_ns;
  tt->not_running_ns = tt->idle_ns - tt->in_poll_ns;
}

/* Split what is left of t's life into in poll and not running. */
static void split_idle(const context_t *c, uint32_t t, int64_t end,
                       mprof_thread_time_t *tt) {
  int loop = c->threads[t].type == MPROF_LOOP;
  mprof__split_idle(tt, loop,
                    loop ? loop_in_poll(c, t, c->threads[t].start_ns, end) : 0);
}

static int thread_times(context_t *c) {
  size_t n = c->thread_count;
  mprof_analysis_t *out = c->out;
  out->times = calloc(n, sizeof *out->times);
  /* a wait adds one entry at most: one array, never grown (copied) */
  out->waits = malloc((c->edge_count + 1) * sizeof *out->waits);
  c->cap_waits = c->edge_count + 1;
  if (!out->times || !out->waits) return MPROF_ENOMEM;
  out->time_count = n;
  const mprof_model_view_t *v = &c->model->view;
  for (size_t i = 0; i < v->running_count; i++) {
    mprof_span_t s = mprof_running_at(v, i);
    out->times[s.thread].running_ns += s.end_ns - s.start_ns;
  }
  for (uint32_t t = 1; t < n; t++) {
    mprof_thread_time_t *tt = &out->times[t];
    tt->thread = t;
    int64_t end = effective_end(c, t);
    tt->life_ns = end - c->threads[t].start_ns;
    if (thread_waiting(c, t, end, tt)) return MPROF_ENOMEM;
    split_idle(c, t, end, tt);
  }
  out->times[0].thread = 0;
  return 0;
}

/* --- Stalls --------------------------------------------------------------- */

/* Keep the last MPROF_STALL_CONTEXT arrows involving t (or last). */
static int stall_context(context_t *c, mprof_stall_t *s) {
  uint32_t picked[MPROF_STALL_CONTEXT * 2];
  size_t count = 0;
  uint32_t who[2] = {s->thread, s->last};
  for (int w = 0; w < (s->thread == s->last ? 1 : 2); w++) {
    uint32_t lo = c->adjacency.first[who[w]],
             hi = c->adjacency.first[who[w] + 1];
    for (uint32_t k = hi > lo + MPROF_STALL_CONTEXT ? hi - MPROF_STALL_CONTEXT
                                                    : lo;
         k < hi; k++)
      picked[count++] = c->adjacency.adj[k];
  }
  /* in time order (arrow indexes are), without duplicates, the last few */
  for (size_t i = 1; i < count; i++)
    for (size_t j = i; j > 0 && picked[j - 1] > picked[j]; j--) {
      uint32_t tmp = picked[j];
      picked[j] = picked[j - 1];
      picked[j - 1] = tmp;
    }
  size_t unique = 0;
  for (size_t i = 0; i < count; i++)
    if (unique == 0 || picked[unique - 1] != picked[i])
      picked[unique++] = picked[i];
  size_t from = unique > MPROF_STALL_CONTEXT ? unique - MPROF_STALL_CONTEXT : 0;
  s->first_arrow = (uint32_t)c->out->arrow_ref_count;
  for (size_t i = from; i < unique; i++)
    if (PUSH(c, arrow_refs, arrow_ref_count, cap_refs, picked[i]))
      return MPROF_ENOMEM;
  s->arrow_count = (uint32_t)(unique - from);
  return 0;
}

static int find_stalls(context_t *c) {
  for (uint32_t t = 1; t < c->thread_count; t++) {
    const mprof_thread_t *th = &c->threads[t];
    if (!(th->flags & MPROF_THREAD_SHOULD_RESOLVE) ||
        !(th->flags & MPROF_THREAD_STALLED))
      continue;
    mprof_stall_t s = {t, mprof__follow_merges(c->model, t), 0, 0};
    if (stall_context(c, &s) || PUSH(c, stalls, stall_count, cap_stalls, s))
      return MPROF_ENOMEM;
  }
  return 0;
}

/* --- Lost wake-ups -------------------------------------------------------- */

/* When waiter w began waiting on condition (its creation by it, or its
 * first try_read of it), or -1 if it never did. */
static int64_t wait_start(const context_t *c, uint32_t condition, uint32_t w) {
  if (c->threads[w].creator == condition) return c->threads[w].start_ns;
  for (uint32_t k = c->edges_first[w]; k < c->edges_first[w + 1]; k++)
    if (c->edges[k].on == condition) return c->edges[k].start_ns;
  return -1;
}

/* Was any waiter of condition waiting at time t? */
static int anyone_waiting(const context_t *c, uint32_t condition, int64_t t) {
  const uint32_t *first = c->adjacency.first;
  for (uint32_t k = first[condition]; k < first[condition + 1]; k++) {
    mprof_arrow_t a = mprof_arrow_at(c->view, c->adjacency.adj[k]);
    uint32_t w = a.kind == MPROF_ARROW_CREATE && a.from == condition ? a.to
                 : a.kind == MPROF_ARROW_TRY_READ && a.to == condition
                     ? a.from
                     : MPROF_NO_THREAD;
    if (w == MPROF_NO_THREAD) continue;
    int64_t start = wait_start(c, condition, w);
    if (start >= 0 && start <= t &&
        (mprof__never_ends(&c->threads[w]) || c->threads[w].end_ns >= t))
      return 1;
  }
  return 0;
}

/* The latest signal to condition before t (an arrow index), or NO. */
static uint32_t signal_before(const context_t *c, uint32_t condition,
                              int64_t t) {
  const uint32_t *first = c->adjacency.first;
  uint32_t found = MPROF_NO_THREAD;
  for (uint32_t k = first[condition]; k < first[condition + 1]; k++) {
    uint32_t i = c->adjacency.adj[k];
    mprof_arrow_t a = mprof_arrow_at(c->view, i);
    if (a.time_ns > t) break;
    if (a.kind == MPROF_ARROW_SIGNAL && a.to == condition) found = i;
  }
  return found;
}

/* Does some thread try_read w (wait for it)? */
static int waited_for(const context_t *c, uint32_t w) {
  const uint32_t *first = c->adjacency.first;
  for (uint32_t k = first[w]; k < first[w + 1]; k++) {
    mprof_arrow_t a = mprof_arrow_at(c->view, c->adjacency.adj[k]);
    if (a.kind == MPROF_ARROW_TRY_READ && a.to == w) return 1;
  }
  return 0;
}

/* The condition w waits on as its creator's waiter, or NO: w was made by
 * a condition, or made by its creator and waited for (the wait of
 * mprof_condition_wait()).  A thread merely created while another ran (a
 * timer started in an async handle's callback) waits on nothing. */
static uint32_t waited_condition(const context_t *c, uint32_t w) {
  uint32_t creator = c->threads[w].creator;
  if (creator == MPROF_ROOT_THREAD) return MPROF_NO_THREAD;
  if (c->threads[creator].type == MPROF_CONDITION || waited_for(c, w))
    return creator;
  return MPROF_NO_THREAD;
}

static int find_lost_wakeups(context_t *c) {
  for (uint32_t w = 1; w < c->thread_count; w++) {
    if (!mprof__never_ends(&c->threads[w])) continue;
    /* the conditions it waits on: its creator's, and what it try_reads */
    uint32_t candidates[2] = {waited_condition(c, w), MPROF_NO_THREAD};
    if (c->edges_first[w] < c->edges_first[w + 1])
      candidates[1] = c->edges[c->edges_first[w + 1] - 1].on;
    for (int k = 0; k < 2; k++) {
      uint32_t cond = candidates[k];
      if (cond == MPROF_NO_THREAD || cond == MPROF_ROOT_THREAD) continue;
      int64_t start = wait_start(c, cond, w);
      uint32_t sig =
          start < 0 ? MPROF_NO_THREAD : signal_before(c, cond, start);
      if (sig == MPROF_NO_THREAD ||
          anyone_waiting(c, cond, mprof_arrow_at(c->view, sig).time_ns))
        continue;
      mprof_lost_wakeup_t lost = {cond, sig, w};
      if (PUSH(c, lost_wakeups, lost_wakeup_count, cap_lost, lost))
        return MPROF_ENOMEM;
      break;
    }
  }
  return 0;
}

/* --- Wait chains ---------------------------------------------------------- */

typedef struct chain_memo_s {
  uint32_t depth; /* links from this edge on; 0: not computed */
  uint32_t next;  /* the edge it continues with, or NO */
} chain_memo_t;

/* The depth of an edge while chains through it are walked. */
#define CHAIN_VISITING UINT32_MAX

/* Links in the longest chain that starts with edge e. */
static uint32_t chain_depth(const context_t *c, chain_memo_t *memo, uint32_t e,
                            int depth_left) {
  if (memo[e].depth && memo[e].depth != CHAIN_VISITING) return memo[e].depth;
  if (memo[e].depth == CHAIN_VISITING || depth_left == 0)
    return 1; /* a cycle: cut it */
  memo[e].depth = CHAIN_VISITING;
  const wait_edge_t *edge = &c->edges[e];
  uint32_t best = 0, next = MPROF_NO_THREAD;
  for (uint32_t k = c->edges_first[edge->on]; k < c->edges_first[edge->on + 1];
       k++) {
    const wait_edge_t *o = &c->edges[k];
    if (o->start_ns >= edge->end_ns || o->end_ns <= edge->start_ns) continue;
    uint32_t d = chain_depth(c, memo, k, depth_left - 1);
    if (d > best) {
      best = d;
      next = k;
    }
  }
  memo[e].depth = best + 1;
  memo[e].next = next;
  return best + 1;
}

static int chain_has(const context_t *c, uint32_t thread) {
  for (size_t i = 0; i < c->out->chain_thread_count; i++)
    if (c->out->chain_threads[i] == thread) return 1;
  return 0;
}

static int emit_chain(context_t *c, const chain_memo_t *memo, uint32_t e) {
  mprof_chain_t chain = {(uint32_t)c->out->chain_thread_count, 0,
                         c->edges[e].start_ns, c->edges[e].end_ns};
  if (PUSH(c, chain_threads, chain_thread_count, cap_chain_threads,
           c->edges[e].waiter))
    return MPROF_ENOMEM;
  chain.length = 1;
  for (uint32_t k = e; k != MPROF_NO_THREAD && chain.length <= memo[e].depth;
       k = memo[k].next) {
    if (PUSH(c, chain_threads, chain_thread_count, cap_chain_threads,
             c->edges[k].on))
      return MPROF_ENOMEM;
    chain.length++;
  }
  return PUSH(c, chains, chain_count, cap_chains, chain);
}

static int find_chains(context_t *c) {
  size_t n = c->edge_count;
  if (n == 0) return 0;
  chain_memo_t *memo = calloc(n, sizeof *memo);
  if (!memo) return MPROF_ENOMEM;
  for (uint32_t e = 0; e < n; e++) chain_depth(c, memo, e, 10000);
  int err = 0;
  /* pick the deepest (then longest) chains whose start is not already in
   * a chain taken: at most MPROF_CHAIN_LIMIT passes over the edges */
  while (!err && c->out->chain_count < MPROF_CHAIN_LIMIT) {
    uint32_t best = MPROF_NO_THREAD;
    for (uint32_t e = 0; e < n; e++) {
      if (memo[e].depth < 2 || chain_has(c, c->edges[e].waiter)) continue;
      if (best == MPROF_NO_THREAD || memo[e].depth > memo[best].depth ||
          (memo[e].depth == memo[best].depth &&
           c->edges[e].end_ns - c->edges[e].start_ns >
               c->edges[best].end_ns - c->edges[best].start_ns))
        best = e;
    }
    if (best == MPROF_NO_THREAD) break;
    err = emit_chain(c, memo, best);
  }
  free(memo);
  return err;
}

/* --- Wait cycles ---------------------------------------------------------- */

/* The cycle that walking the open waits from t closes at u (on the
 * walk): u, next[u], ... back to u. */
static int emit_cycle(context_t *c, const uint32_t *next, const int64_t *since,
                      uint32_t u) {
  mprof_chain_t cycle = {(uint32_t)c->out->chain_thread_count, 0, 0,
                         c->model->view.end_ns};
  uint32_t w = u;
  do {
    if (PUSH(c, chain_threads, chain_thread_count, cap_chain_threads, w))
      return MPROF_ENOMEM;
    if (since[w] > cycle.start_ns) cycle.start_ns = since[w]; /* it closed */
    cycle.length++;
    w = next[w];
  } while (w != u && cycle.length < 10000);
  return PUSH(c, cycles, cycle_count, cap_cycles, cycle);
}

/* Threads that wait on each other: each thread's latest wait still open
 * at the trace's end points to what it waits on (one out-arrow a thread),
 * and a walk along them that comes back to itself is a cycle. */
/* Is the wait of edge k open at the trace's end, by a thread that never
 * ended? */
static int open_at_end(const context_t *c, uint32_t k) {
  return c->edges[k].end_ns >= c->model->view.end_ns &&
         mprof__never_ends(&c->threads[c->edges[k].waiter]);
}

static int find_cycles(context_t *c) {
  size_t n = c->thread_count, open = 0;
  /* most traces end with no wait open: then no arrays of every thread */
  for (uint32_t k = 0; k < c->edge_count && !open; k++)
    open = open_at_end(c, k);
  if (!open) return 0;
  uint32_t *next = malloc((n + 1) * sizeof *next);
  int64_t *since = malloc((n + 1) * sizeof *since);
  uint8_t *state = calloc(n + 1, 1); /* 1: on this walk, 2: walked */
  int err = !next || !since || !state ? MPROF_ENOMEM : 0;
  for (size_t t = 0; !err && t < n; t++) {
    next[t] = MPROF_NO_THREAD;
    for (uint32_t k = c->edges_first[t]; k < c->edges_first[t + 1]; k++)
      if (open_at_end(c, k)) {
        next[t] = c->edges[k].on;
        since[t] = c->edges[k].start_ns;
      }
  }
  for (uint32_t t = 1; !err && t < n && c->out->cycle_count < MPROF_CHAIN_LIMIT;
       t++) {
    uint32_t u = t;
    while (u != MPROF_NO_THREAD && !state[u]) {
      state[u] = 1;
      u = next[u];
    }
    if (u != MPROF_NO_THREAD && state[u] == 1)
      err = emit_cycle(c, next, since, u);
    for (u = t; u != MPROF_NO_THREAD && state[u] == 1; u = next[u])
      state[u] = 2;
  }
  free(next);
  free(since);
  free(state);
  return err;
}

/* --- Critical path -------------------------------------------------------- */

/* Who resolved thread t (the first resolve arrow to it), or t itself. */
static uint32_t resolver_of(const context_t *c, uint32_t t) {
  const uint32_t *first = c->adjacency.first;
  for (uint32_t k = first[t]; k < first[t + 1]; k++) {
    mprof_arrow_t a = mprof_arrow_at(c->view, c->adjacency.adj[k]);
    if (a.kind == MPROF_ARROW_RESOLVE && a.to == t) return a.from;
  }
  return t;
}

/* The latest read into t at or before time, or NO. */
static uint32_t read_before(const context_t *c, uint32_t t, int64_t time) {
  const uint32_t *first = c->adjacency.first;
  uint32_t found = MPROF_NO_THREAD;
  for (uint32_t k = first[t]; k < first[t + 1]; k++) {
    mprof_arrow_t a = mprof_arrow_at(c->view, c->adjacency.adj[k]);
    if (a.time_ns > time) break;
    if ((a.kind == MPROF_ARROW_READ || a.kind == MPROF_ARROW_READ_FAILED) &&
        a.to == t && a.from != t)
      found = c->adjacency.adj[k];
  }
  return found;
}

/* The longest-lived resolved thread: what the critical path explains. */
static uint32_t path_target(const context_t *c) {
  uint32_t best = MPROF_NO_THREAD;
  for (uint32_t t = 1; t < c->thread_count; t++) {
    const mprof_thread_t *th = &c->threads[t];
    if (th->ending != MPROF_ENDING_RESOLVED) continue;
    if (best == MPROF_NO_THREAD ||
        th->end_ns - th->start_ns >
            c->threads[best].end_ns - c->threads[best].start_ns)
      best = t;
  }
  return best;
}

static int critical_path(context_t *c) {
  uint32_t target = path_target(c);
  c->out->path_target = target;
  if (target == MPROF_NO_THREAD) return 0;
  int64_t floor = c->threads[target].start_ns;
  int64_t t = c->threads[target].end_ns;
  uint32_t thread = resolver_of(c, target);
  uint32_t via = MPROF_ARROW_RESOLVE;
  for (size_t steps = 0;
       steps < 10000 && thread != MPROF_ROOT_THREAD && t > floor; steps++) {
    const mprof_thread_t *th = &c->threads[thread];
    uint32_t read = read_before(c, thread, t);
    mprof_arrow_t r = {INT64_MIN, 0, 0, 0, 0}; /* no read: before all */
    if (read != MPROF_NO_THREAD) r = mprof_arrow_at(c->view, read);
    int64_t begin = th->start_ns;
    if (r.time_ns > begin) begin = r.time_ns;
    if (begin > t) begin = t;
    mprof_path_step_t step = {thread, via, begin < floor ? floor : begin, t};
    if (PUSH(c, path, path_count, cap_path, step)) return MPROF_ENOMEM;
    if (r.time_ns > th->start_ns) {
      uint32_t input = r.from;
      t = c->threads[input].end_ns < begin ? c->threads[input].end_ns : begin;
      thread = resolver_of(c, input);
      via = MPROF_ARROW_READ;
    } else {
      t = begin;
      thread = th->creator;
      via = MPROF_ARROW_CREATE;
    }
  }
  return 0;
}

/* --- Why the slowest request of each kind took so long -------------------- */

static int request_chains(context_t *c) {
  mprof_analysis_t *out = c->out;
  if (!out->request_count) return 0;
  mprof__why_t why;
  int err = mprof__why_make(c->model, &c->adjacency, &why);
  size_t room = out->request_count * (size_t)MPROF_WHY_LIMIT;
  out->why_hops = err ? NULL : malloc(room * sizeof *out->why_hops);
  if (!err && !out->why_hops) err = MPROF_ENOMEM;
  for (size_t r = 0; !err && r < out->request_count; r++) {
    mprof_request_group_t *group = &out->requests[r];
    size_t count;
    err = mprof__why_chain(&why, group->slowest,
                           out->why_hops + out->why_hop_count, &count);
    group->first_hop = (uint32_t)out->why_hop_count;
    group->hop_count = (uint32_t)count;
    out->why_hop_count += count;
  }
  mprof__why_free(&why);
  return err;
}

/* --- Entry points --------------------------------------------------------- */

void mprof__analysis_defaults(mprof_analysis_options_t *o) {
  if (!o->loop_blocked_ns) o->loop_blocked_ns = MPROF_LOOP_BLOCKED_NS;
  if (!o->busy_loop_ns) o->busy_loop_ns = MPROF_BUSY_LOOP_NS;
}

int mprof_model_analyse(const mprof_model_t *m, mprof_analysis_t *out) {
  return mprof_model_analyse_with(m, NULL, out);
}

int mprof_model_analyse_with(const mprof_model_t *m,
                             const mprof_analysis_options_t *options,
                             mprof_analysis_t *out) {
  memset(out, 0, sizeof *out);
  mprof_analysis_options_t o =
      options ? *options : (mprof_analysis_options_t){0, 0, 0};
  if (!m->finished || o.loop_blocked_ns < 0 || o.busy_loop_ns < 0)
    return MPROF_EINVAL;
  mprof__analysis_defaults(&o);
  context_t c;
  memset(&c, 0, sizeof c);
  c.model = m;
  c.view = &m->view;
  c.threads = m->view.threads;
  c.thread_count = m->view.thread_count;
  c.out = out;
  int err = mprof__adjacency_make(m, &c.adjacency);
  if (!err) err = collect_waits(&c);
  if (!err) err = thread_times(&c);
  if (!err) err = find_stalls(&c);
  if (!err) err = find_lost_wakeups(&c);
  if (!err) err = find_chains(&c);
  if (!err) err = find_cycles(&c);
  if (!err) err = critical_path(&c);
  mprof__facts_t facts;
  if (!err) err = mprof__facts_make(m, &facts);
  if (!err) {
    err = mprof__summarise_requests(m, &facts, out);
    if (!err) err = request_chains(&c);
    if (!err) err = mprof__find_findings(m, &o, &facts, out);
    mprof__facts_free(&facts);
  }
  mprof__adjacency_free(&c.adjacency);
  free(c.edges);
  free(c.edges_first);
  if (err) mprof_analysis_free(out);
  return err;
}

void mprof_analysis_free(mprof_analysis_t *a) {
  free(a->findings);
  free(a->finding_threads);
  free(a->evidence);
  free(a->text);
  free(a->requests);
  free(a->failures);
  free(a->stalls);
  free(a->lost_wakeups);
  free(a->times);
  free(a->waits);
  free(a->chains);
  free(a->cycles);
  free(a->chain_threads);
  free(a->arrow_refs);
  free(a->path);
  free(a->why_hops);
  memset(a, 0, sizeof *a);
}
