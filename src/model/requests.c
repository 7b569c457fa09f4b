/* requests.c -- the requests of a trace summarised by kind, for the
 * report's latency and failures: libuv's fs, write, connect, work, ...
 * threads grouped by type and label, the label without the numbers, paths
 * and addresses in it ("fs open /tmp/x/f3" and "fs open /tmp/y" are both
 * "fs open"), with the count, the percentiles of their lives, the thread
 * pool's queue wait against run time for work, and the failures by
 * error. */
#include <string.h>

#include "analysis_internal.h"

uint32_t mprof__thread_stream(const mprof_model_t *m, uint32_t t) {
  uint32_t row = m->view.threads[t].row;
  if (row >= m->view.row_count) return MPROF_NO_THREAD;
  for (uint32_t k = m->row_running_first[row];
       k < m->row_running_first[row + 1]; k++) {
    mprof_span_t s = mprof_running_at(&m->view, k);
    if (s.thread == t) return s.stream;
  }
  return MPROF_NO_THREAD;
}

/* Does a word of a label name one request only: a number, a path, an
 * address (it holds a digit, a slash, a colon or a bracket)? */
static int word_is_particular(const char *word, size_t length) {
  for (size_t i = 0; i < length; i++)
    if ((word[i] >= '0' && word[i] <= '9') || word[i] == '/' ||
        word[i] == ':' || word[i] == '[')
      return 1;
  return 0;
}

void mprof__request_kind_of(const char *label, uint16_t type, char *buf,
                            size_t size) {
  size_t n = 0;
  if (!label) label = mprof_type_name((mprof_type_t)type);
  for (const char *p = label; *p;) {
    while (*p == ' ') p++;
    size_t length = 0;
    while (p[length] && p[length] != ' ') length++;
    if (length && !word_is_particular(p, length) && n + length + 2 <= size) {
      if (n) buf[n++] = ' ';
      memcpy(buf + n, p, length);
      n += length;
    }
    p += length;
  }
  if (n == 0) {
    const char *name = mprof_type_name((mprof_type_t)type);
    for (; *name && n + 1 < size; name++) buf[n++] = *name;
  }
  buf[n < size ? n : size - 1] = 0;
}

void mprof__request_kind(const mprof_model_t *m, uint32_t t, char *buf,
                         size_t size) {
  const mprof_thread_t *th = &m->view.threads[t];
  mprof__request_kind_of(
      th->label_count
          ? m->view.strings + mprof_label_at(&m->view, th->first_label).text
          : NULL,
      th->type, buf, size);
}

/* The groups while they are made: each request's group, and per group
 * its requests' indexes (members[first[g] .. first[g+1])). */
typedef struct grouping_s {
  uint32_t *group_of; /* by thread; MPROF_NO_THREAD: not a request */
  uint32_t *first, *members;
  size_t cap_groups;
  const mprof__facts_t *facts;
} grouping_t;

static uint32_t find_group(const mprof_analysis_t *out, uint16_t type,
                           const char *name) {
  for (size_t g = 0; g < out->request_count; g++)
    if (out->requests[g].type == type &&
        strcmp(out->text + out->requests[g].name, name) == 0)
      return (uint32_t)g;
  return MPROF_NO_THREAD;
}

/* Give every request its group, making the groups. */
static int assign_groups(const mprof_model_t *m, grouping_t *g,
                         mprof_analysis_t *out) {
  const mprof_model_view_t *v = &m->view;
  char name[128];
  /* groups of recent (type, label) pairs: labels are interned, so the
   * same text has the same offset, and most requests skip the kind's
   * text and the search */
  struct {
    uint32_t label, group;
    uint16_t type;
  } recent[16];
  for (int i = 0; i < 16; i++) recent[i].group = MPROF_NO_THREAD;
  for (uint32_t t = 1; t < v->thread_count; t++) {
    g->group_of[t] = MPROF_NO_THREAD;
    const mprof_thread_t *th = &v->threads[t];
    if (!mprof__is_request_type(th->type) || th->ending == MPROF_ENDING_MERGED)
      continue;
    uint32_t label =
        th->label_count ? mprof_label_at(v, th->first_label).text : 0;
    unsigned slot = (label ^ th->type ^ label >> 4) & 15;
    uint32_t group = recent[slot].group;
    if (group == MPROF_NO_THREAD || recent[slot].label != label ||
        recent[slot].type != th->type) {
      mprof__request_kind(m, t, name, sizeof name);
      group = find_group(out, th->type, name);
    }
    if (group == MPROF_NO_THREAD) {
      mprof_request_group_t fresh;
      memset(&fresh, 0, sizeof fresh);
      fresh.type = th->type;
      if (mprof__analysis_text(out, name, &fresh.name) ||
          mprof__grow(&out->requests, &g->cap_groups, out->request_count + 1,
                      sizeof *out->requests))
        return MPROF_ENOMEM;
      group = (uint32_t)out->request_count++;
      out->requests[group] = fresh;
    }
    recent[slot].label = label;
    recent[slot].type = th->type;
    recent[slot].group = g->group_of[t] = group;
    out->requests[group].count++;
  }
  return 0;
}

/* Streams a loop ran on: a loop thread ran there, or (but in legacy
 * traces) something slept there in an idle band.  Returns whether any
 * work request ran off them (on the thread pool). */
static int mark_loop_streams(const mprof_model_t *m, uint8_t *loop) {
  const mprof_model_view_t *v = &m->view;
  for (size_t i = 0; i < v->running_count; i++) {
    mprof_span_t s = mprof_running_at(v, i);
    if (v->threads[s.thread].type == MPROF_LOOP) loop[s.stream] = 1;
  }
  for (size_t i = 0; !m->legacy && i < v->band_count; i++) {
    mprof_band_t b = mprof_band_at(v, i);
    if (b.kind == MPROF_BAND_IDLE) loop[b.span.stream] = 1;
  }
  for (size_t i = 0; i < v->running_count; i++) {
    mprof_span_t s = mprof_running_at(v, i);
    if (v->threads[s.thread].type == MPROF_WORK && !loop[s.stream]) return 1;
  }
  return 0;
}

/* Each work request's wait in the pool's queue (creation to its first run
 * off a loop's OS thread) and its run time there. */
static void pool_times(const mprof_model_t *m, mprof__facts_t *f) {
  const mprof_model_view_t *v = &m->view;
  for (size_t t = 0; t < v->thread_count; t++)
    f->queue_ns[t] = f->run_ns[t] = -1;
  for (size_t i = 0; i < v->running_count; i++) {
    mprof_span_t s = mprof_running_at(v, i);
    if (v->threads[s.thread].type != MPROF_WORK || f->loop_stream[s.stream])
      continue;
    int64_t queued = s.start_ns - v->threads[s.thread].start_ns;
    int64_t *run = &f->run_ns[s.thread];
    if (*run < 0 || queued < f->queue_ns[s.thread])
      f->queue_ns[s.thread] = queued;
    *run = (*run < 0 ? 0 : *run) + s.end_ns - s.start_ns;
  }
}

/* Append t to list (count, cap).  Returns 0 or MPROF_ENOMEM. */
static int list_add(uint32_t **list, size_t *count, size_t *cap, uint32_t t) {
  if (mprof__grow(list, cap, *count + 1, sizeof **list)) return MPROF_ENOMEM;
  (*list)[(*count)++] = t;
  return 0;
}

/* One pass over the threads: the loops, the requests left pending, failed
 * and writing, and the threads from before the trace. */
static int list_threads(const mprof_model_t *m, mprof__facts_t *f) {
  const mprof_model_view_t *v = &m->view;
  size_t cap_loops = 0, cap_pending = 0, cap_failed = 0, cap_writes = 0;
  for (uint32_t t = 1; t < v->thread_count; t++) {
    const mprof_thread_t *th = &v->threads[t];
    if (th->type == MPROF_WRITE || th->type == MPROF_UDP_SEND) {
      if (list_add(&f->writes, &f->write_count, &cap_writes, t))
        return MPROF_ENOMEM;
    }
    if (mprof__is_request_type(th->type) && th->ending == MPROF_ENDING_FAILED &&
        !(th->flags & MPROF_THREAD_STALLED)) {
      if (list_add(&f->failed, &f->failed_count, &cap_failed, t))
        return MPROF_ENOMEM;
    }
    if (th->flags & MPROF_THREAD_PREEXISTING) {
      if (!f->preexisting++) f->first_preexisting = t;
    } else if (mprof__is_request_type(th->type) &&
               th->ending == MPROF_ENDING_PENDING &&
               !(th->flags & MPROF_THREAD_STALLED)) {
      if (list_add(&f->pending, &f->pending_count, &cap_pending, t))
        return MPROF_ENOMEM;
    }
    if (th->type == MPROF_LOOP &&
        list_add(&f->loops, &f->loop_count, &cap_loops, t))
      return MPROF_ENOMEM;
  }
  return 0;
}

int mprof__facts_make(const mprof_model_t *m, mprof__facts_t *f) {
  const mprof_model_view_t *v = &m->view;
  memset(f, 0, sizeof *f);
  f->loop_stream = calloc(v->stream_count + 1, 1);
  if (!f->loop_stream || list_threads(m, f)) {
    mprof__facts_free(f);
    return MPROF_ENOMEM;
  }
  if (!mark_loop_streams(m, f->loop_stream)) return 0;
  f->queue_ns = malloc((v->thread_count + 1) * sizeof *f->queue_ns);
  f->run_ns = malloc((v->thread_count + 1) * sizeof *f->run_ns);
  if (!f->queue_ns || !f->run_ns) {
    mprof__facts_free(f);
    return MPROF_ENOMEM;
  }
  pool_times(m, f);
  return 0;
}

void mprof__facts_free(mprof__facts_t *f) {
  free(f->loop_stream);
  free(f->loops);
  free(f->pending);
  free(f->failed);
  free(f->writes);
  free(f->queue_ns);
  free(f->run_ns);
  memset(f, 0, sizeof *f);
}

/* Move the k-th smallest of values[0..n) to values[k], the smaller ones
 * before it and the others after (Hoare's selection: linear on average,
 * where a sort of a million lives took most of the analysis). */
static void select_kth(int64_t *values, size_t n, size_t k) {
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    int64_t pivot = values[lo + (hi - lo) / 2];
    size_t i = lo, j = hi;
    for (;;) {
      while (values[i] < pivot) i++;
      while (values[j] > pivot) j--;
      if (i >= j) break;
      int64_t tmp = values[i];
      values[i++] = values[j];
      values[j--] = tmp;
    }
    if (k <= j)
      hi = j;
    else
      lo = j + 1;
  }
}

size_t mprof__rank_of(size_t n, unsigned q) {
  size_t rank = (n * q + 99) / 100;
  return rank ? rank - 1 : 0;
}

void mprof__percentiles(int64_t *values, size_t n, int64_t out[4]) {
  static const unsigned qs[3] = {50, 90, 99};
  size_t kept = 0, from = 0;
  for (size_t i = 0; i < n; i++)
    if (values[i] >= 0) values[kept++] = values[i];
  for (int i = 0; i < 4; i++) out[i] = -1;
  if (kept == 0) return;
  for (int i = 0; i < 3; i++) {
    size_t k = mprof__rank_of(kept, qs[i]);
    select_kth(values + from, kept - from, k - from);
    out[i] = values[k];
    from = k;
  }
  out[3] = values[from];
  for (size_t i = from; i < kept; i++)
    if (values[i] > out[3]) out[3] = values[i];
}

/* Lives, queue waits and runs of group r's ended requests. */
static void group_times(const mprof_model_t *m, const grouping_t *g, uint32_t r,
                        int64_t *scratch, mprof_request_group_t *group) {
  const mprof_thread_t *threads = m->view.threads;
  uint32_t lo = g->first[r], hi = g->first[r + 1];
  size_t n = 0;
  int64_t p[4];
  int64_t slowest_ns = -1;
  for (uint32_t k = lo; k < hi; k++) {
    const mprof_thread_t *th = &threads[g->members[k]];
    if (th->ending == MPROF_ENDING_PENDING ||
        (th->flags & MPROF_THREAD_STALLED))
      group->pending++;
    else
      scratch[n++] = th->end_ns - th->start_ns;
    int64_t life = mprof__effective_end(m, g->members[k]) - th->start_ns;
    if (life > slowest_ns) {
      slowest_ns = life;
      group->slowest = g->members[k];
    }
  }
  mprof__percentiles(scratch, n, p);
  group->p50_ns = p[0];
  group->p90_ns = p[1];
  group->p99_ns = p[2];
  group->max_ns = p[3];
  group->queue_p50_ns = group->queue_max_ns = -1;
  group->run_p50_ns = group->run_max_ns = -1;
  if (!g->facts->queue_ns || group->type != MPROF_WORK) return;
  for (uint32_t k = lo; k < hi; k++)
    scratch[k - lo] = g->facts->queue_ns[g->members[k]];
  mprof__percentiles(scratch, hi - lo, p);
  group->queue_p50_ns = p[0];
  group->queue_max_ns = p[3];
  for (uint32_t k = lo; k < hi; k++)
    scratch[k - lo] = g->facts->run_ns[g->members[k]];
  mprof__percentiles(scratch, hi - lo, p);
  group->run_p50_ns = p[0];
  group->run_max_ns = p[3];
}

/* Count group r's failures by error text. */
static int group_failures(const mprof_model_t *m, const grouping_t *g,
                          uint32_t r, size_t *cap, mprof_analysis_t *out) {
  const mprof_model_view_t *v = &m->view;
  mprof_request_group_t *group = &out->requests[r];
  group->first_failure = (uint32_t)out->failure_count;
  if (!g->facts->failed_count) return 0; /* no request failed: none to read */
  for (uint32_t k = g->first[r]; k < g->first[r + 1]; k++) {
    uint32_t t = g->members[k];
    const mprof_thread_t *th = &v->threads[t];
    if (th->ending != MPROF_ENDING_FAILED || !th->failure ||
        (th->flags & MPROF_THREAD_STALLED))
      continue;
    group->failed++;
    size_t f = group->first_failure;
    while (f < out->failure_count && strcmp(v->strings + out->failures[f].error,
                                            v->strings + th->failure))
      f++;
    if (f == out->failure_count) {
      if (mprof__grow(&out->failures, cap, f + 1, sizeof *out->failures))
        return MPROF_ENOMEM;
      out->failures[out->failure_count++] =
          (mprof_failure_count_t){th->failure, 0, t};
      group->failure_count++;
    }
    out->failures[f].count++;
  }
  return 0;
}

/* Members of each group, by thread index. */
static int list_members(const mprof_model_t *m, grouping_t *g,
                        const mprof_analysis_t *out) {
  size_t groups = out->request_count, n = m->view.thread_count;
  g->first = calloc(groups + 1, sizeof *g->first);
  uint32_t *fill = calloc(groups + 1, sizeof *fill);
  size_t members = 0;
  for (size_t r = 0; r < groups; r++) members += out->requests[r].count;
  g->members = malloc((members + 1) * sizeof *g->members);
  if (!g->first || !fill || !g->members) {
    free(fill);
    return MPROF_ENOMEM;
  }
  for (size_t r = 0; r < groups; r++)
    g->first[r + 1] = g->first[r] + out->requests[r].count;
  for (uint32_t t = 1; t < n; t++)
    if (g->group_of[t] != MPROF_NO_THREAD)
      g->members[g->first[g->group_of[t]] + fill[g->group_of[t]]++] = t;
  free(fill);
  return 0;
}

static int measure_groups(const mprof_model_t *m, grouping_t *g,
                          mprof_analysis_t *out) {
  int err = list_members(m, g, out);
  uint32_t largest = 0;
  for (size_t r = 0; r < out->request_count; r++)
    if (out->requests[r].count > largest) largest = out->requests[r].count;
  int64_t *scratch = malloc((largest + 1) * sizeof *scratch);
  if (!scratch) err = MPROF_ENOMEM;
  size_t cap = 0;
  for (uint32_t r = 0; !err && r < out->request_count; r++) {
    group_times(m, g, r, scratch, &out->requests[r]);
    err = group_failures(m, g, r, &cap, out);
  }
  free(scratch);
  return err;
}

static int by_count(const void *pa, const void *pb) {
  const mprof_request_group_t *a = pa, *b = pb;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  return (a->name > b->name) - (a->name < b->name);
}

int mprof__summarise_requests(const mprof_model_t *m,
                              const mprof__facts_t *facts,
                              mprof_analysis_t *out) {
  size_t n = m->view.thread_count;
  grouping_t g;
  memset(&g, 0, sizeof g);
  g.facts = facts;
  g.group_of = malloc((n + 1) * sizeof *g.group_of);
  int err = g.group_of ? 0 : MPROF_ENOMEM;
  if (!err) err = assign_groups(m, &g, out);
  if (!err) err = measure_groups(m, &g, out);
  /* failures point into the groups by position: sort only the groups
   * (each keeps its own first_failure) */
  if (!err && out->request_count > 1) /* an empty list may be NULL */
    qsort(out->requests, out->request_count, sizeof *out->requests, by_count);
  free(g.group_of);
  free(g.first);
  free(g.members);
  return err;
}
