/* finish.c -- the model once every event is in: mprof_model_finish()
 * closes the streams, settles how threads end (stalls, the pending tail),
 * hands threads their labels, gives rows (layout.c), sorts arrows, bands
 * and counters, and builds the window indexes (lod.c); then what views ask
 * of a finished model (names, lookups) and its release.
 */
#include <string.h>

#include "model_internal.h"

/* A hinted thread i that never resolved (following merges) is stalled:
 * its line ends failed at the end of the trace.  Returns the thread whose
 * line it ended, or MPROF_NO_THREAD. */
static uint32_t settle_stall(mprof_model_t *m, uint32_t i, int64_t end) {
  mprof_thread_t *th = m->threads;
  uint32_t last = mprof__follow_merges(m, i);
  if (th[last].ending != MPROF_ENDING_PENDING) return MPROF_NO_THREAD;
  th[i].flags |= MPROF_THREAD_STALLED;
  th[last].flags |= MPROF_THREAD_STALLED;
  th[last].ending = MPROF_ENDING_FAILED;
  th[last].end_ns = end;
  th[last].failure =
      mprof__intern_text(m, MODEL_STALLED_TEXT, sizeof MODEL_STALLED_TEXT - 1);
  m->failed_threads++;
  return last;
}

/* Thread i's labels: those at *at on in labels grouped by thread (the
 * cursor moves on past them). */
static void take_labels(const mprof_model_t *m, mprof_thread_t *t, size_t i,
                        size_t *at) {
  size_t k = *at, n = m->view.label_count;
  if (k == n || m->labels[k].thread != i) return; /* none */
  t->first_label = (uint32_t)k;
  do k++;
  while (k < n && m->labels[k].thread == i);
  t->label_count += (uint32_t)(k - *at);
  *at = k;
}

/* Threads are settled, then given rows, a block at a time: the layout
 * reads the block while it is still in cache (each pass over the
 * threads, 64 bytes each, costs tens of MB of memory traffic). */
#define SETTLE_BLOCK 2048

/* Mark hinted threads that never resolved, and end every open line, in
 * one pass over the threads (a stall may end a thread before or after i;
 * either way it ends failed, not by the pending tail).  The same pass
 * gives threads their labels (grouped by thread already), and readies the
 * layout, from the same cache lines: rows are marked unplaced, and whether
 * the threads are numbered in start order is noted; while they are, and
 * no stall has ended a thread placed already, each block of threads is
 * placed as soon as it is settled (otherwise mprof__layout() places them
 * all again). */
static void settle_endings(mprof_model_t *m) {
  mprof_thread_t *th = m->threads;
  size_t n = m->view.thread_count, label = 0;
  int64_t end = m->view.duration_ns, last_start = INT64_MIN;
  int placing = mprof__place_begin(m) == 0;
  th[MPROF_ROOT_THREAD].end_ns = end;
  th[MPROF_ROOT_THREAD].ending = MPROF_ENDING_RESOLVED;
  th[MPROF_ROOT_THREAD].row = MODEL_ROW_UNPLACED;
  take_labels(m, &th[MPROF_ROOT_THREAD], MPROF_ROOT_THREAD, &label);
  m->threads_unordered = 0;
  for (size_t from = 1; from < n; from += SETTLE_BLOCK) {
    size_t to = n - from > SETTLE_BLOCK ? from + SETTLE_BLOCK : n;
    for (size_t i = from; i < to; i++) {
      mprof_thread_t *t = &th[i];
      take_labels(m, t, i, &label);
      if (t->flags & MPROF_THREAD_SHOULD_RESOLVE &&
          settle_stall(m, (uint32_t)i, end) < from)
        placing = 0; /* it ended a thread placed already */
      if (t->ending == MPROF_ENDING_PENDING) {
        int64_t tail = t->last_seen_ns + MODEL_PENDING_TAIL_NS;
        t->end_ns = tail < end ? tail : end;
      }
      if (t->end_ns < t->start_ns) t->end_ns = t->start_ns;
      t->row = MODEL_ROW_UNPLACED;
      if (t->start_ns < last_start)
        m->threads_unordered = 1;
      else
        last_start = t->start_ns;
    }
    if (placing && !m->threads_unordered)
      placing = mprof__place_range(m, from, to) == 0;
  }
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

void mprof_model_arrow_ends(const mprof_model_t *m, const mprof_arrow_t *a,
                            int64_t *from_ns, int64_t *to_ns) {
  const mprof_thread_t *th = m->threads;
  *from_ns = *to_ns = a->time_ns;
  if (a->kind == MPROF_ARROW_READ || a->kind == MPROF_ARROW_READ_FAILED ||
      a->kind == MPROF_ARROW_RESOLVE)
    *from_ns = min64(a->time_ns, th[a->from].end_ns);
  else if (a->kind == MPROF_ARROW_TRY_READ)
    *to_ns = min64(a->time_ns, th[a->to].end_ns);
}

/* A read of a thread that failed carries the exception: its own colour.
 * (Nothing to do when no thread failed, the common case.) */
static void settle_arrows(mprof_model_t *m) {
  const mprof_thread_t *th = m->threads;
  if (m->failed_threads == 0) return;
  for (size_t i = 0; i < m->view.arrow_count; i++) {
    mprof_arrow_rec_t *a = &m->arrows[i];
    if ((a->kind_stream & 0xff) == MPROF_ARROW_READ &&
        th[a->from].ending == MPROF_ENDING_FAILED &&
        !(th[a->from].flags & MPROF_THREAD_STALLED))
      a->kind_stream = (a->kind_stream & ~0xffu) | MPROF_ARROW_READ_FAILED;
  }
}

static int compare_arrows(const void *pa, const void *pb) {
  const mprof_arrow_t *a = pa, *b = pb;
  if (a->time_ns != b->time_ns) return a->time_ns < b->time_ns ? -1 : 1;
  if (a->stream != b->stream) return a->stream < b->stream ? -1 : 1;
  if (a->from != b->from) return a->from < b->from ? -1 : 1;
  return a->to < b->to ? -1 : a->to > b->to;
}

static int compare_bands(const void *pa, const void *pb) {
  const mprof_band_t *a = pa, *b = pb;
  if (a->span.start_ns != b->span.start_ns)
    return a->span.start_ns < b->span.start_ns ? -1 : 1;
  return a->span.stream < b->span.stream ? -1 : a->span.stream > b->span.stream;
}

/* Arrows come in time order from a merged trace; events fed by hand may
 * not (arrow_add notes it).  Sort only if needed (qsort is not stable).
 * The compact records are written out, sorted and made anew.  Returns 0
 * or MPROF_ENOMEM. */
static int sort_arrows_and_bands(mprof_model_t *m) {
  if (m->arrows_unordered && mprof__arrows_sort(m, compare_arrows))
    return MPROF_ENOMEM;
  return m->view.band_count ? mprof__bands_sort(m, compare_bands) : 0;
}

static int compare_labels(const void *pa, const void *pb) {
  const mprof_label_t *a = pa, *b = pb;
  if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
  if (a->time_ns != b->time_ns) return a->time_ns < b->time_ns ? -1 : 1;
  return a->text < b->text ? -1 : a->text > b->text;
}

/* Group labels by thread (in time order within each; settle_endings()
 * then hands each thread its own).  Threads are numbered as they appear
 * and most are labelled soon after, so the labels are often in that order
 * already: sort only if not. */
static int group_labels(mprof_model_t *m) {
  const mprof_model_view_t *v = &m->view;
  mprof__onward_t times = mprof__onward(&v->label_times);
  mprof_label_t before = {INT64_MIN, 0, 0};
  for (size_t i = 0; i < v->label_count; i++) {
    const mprof_label_rec_t *r = &v->label_recs[i];
    mprof_label_t label = {mprof__time_onward(&times, i, r->time_low),
                           r->thread, r->text};
    if (compare_labels(&before, &label) > 0)
      return mprof__labels_sort(m, compare_labels);
    before = label;
  }
  return 0;
}

/* A counter and its name, for sorting (qsort has no context argument). */
typedef struct named_counter_s {
  const char *name;
  mprof_counter_series_t series;
} named_counter_t;

static int compare_counter_names(const void *pa, const void *pb) {
  const named_counter_t *a = pa, *b = pb;
  return strcmp(a->name, b->name);
}

static int sort_counters(mprof_model_t *m) {
  size_t c = m->view.counter_count;
  named_counter_t *named = malloc((c ? c : 1) * sizeof *named);
  if (!named) return MPROF_ENOMEM;
  for (size_t i = 0; i < c; i++)
    named[i] =
        (named_counter_t){m->strings + m->counters[i].name, m->counters[i]};
  qsort(named, c, sizeof *named, compare_counter_names);
  for (size_t i = 0; i < c; i++) m->counters[i] = named[i].series;
  free(named);
  return 0;
}

/* Count each counter's samples; returns whether they are grouped by
 * counter already (one counter, or each counter's samples after the
 * previous one's), found in the same pass. */
static int count_samples(mprof_model_t *m) {
  const uint32_t *counter = m->sample_counter;
  int grouped = 1;
  for (size_t i = 0; i < m->view.counter_count; i++)
    m->counters[i].sample_count = 0;
  for (size_t i = 0; i < m->view.sample_count; i++) {
    if (i > 0 && counter[i] < counter[i - 1]) grouped = 0;
    m->counters[counter[i]].sample_count++;
  }
  return grouped;
}

/* Group samples by counter (a stable counting sort keeps time order; no
 * copy when they are grouped already), then sort the counters by name.
 * Their value ranges come with the window indexes (mprof__lod_index()),
 * whose pass over the samples finds them. */
static int group_samples(mprof_model_t *m) {
  size_t n = m->view.sample_count, c = m->view.counter_count;
  int grouped = count_samples(m) && n > 0;
  uint32_t next = 0;
  for (size_t i = 0; i < c; i++) {
    m->counters[i].first_sample = next;
    next += m->counters[i].sample_count;
  }
  if (!grouped) {
    mprof_sample_t *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted) return MPROF_ENOMEM;
    for (size_t i = 0; i < c; i++) m->counters[i].sample_count = 0;
    for (size_t i = 0; i < n; i++) {
      mprof_counter_series_t *s = &m->counters[m->sample_counter[i]];
      sorted[s->first_sample + s->sample_count++] =
          mprof_sample_at(&m->view, i);
    }
    if (mprof__samples_replace(m, sorted, n)) return MPROF_ENOMEM;
  }
  /* the samples' counters were for this grouping: their memory goes back
   * before the analysis asks for its own */
  free(m->sample_counter);
  m->sample_counter = NULL;
  return sort_counters(m);
}

int mprof_model_finish(mprof_model_t *m) {
  if (m->finished) return MPROF_EINVAL;
  m->finished = 1;
  if (m->view.end_ns < m->view.duration_ns)
    m->view.end_ns = m->view.duration_ns;
  if (mprof__streams_close(m) || mprof__records_publish(m)) return MPROF_ENOMEM;
  if (group_labels(m)) return MPROF_ENOMEM;
  settle_endings(m);
  if (mprof__layout(m)) return MPROF_ENOMEM;
  settle_arrows(m);
  if (sort_arrows_and_bands(m) || group_samples(m) || mprof__records_publish(m))
    return MPROF_ENOMEM;
  m->view.threads = m->threads;
  m->view.counters = m->counters;
  m->view.strings = m->strings;
  return mprof__lod_index(m);
}

void mprof_model_free(mprof_model_t *m) {
  if (!m) return;
  mprof__lod_free(m);
  free(m->threads);
  mprof__records_free(m);
  free(m->counters);
  free(m->counter_values);
  free(m->counter_ids);
  free(m->sample_counter);
  free(m->strings);
  free(m->hash_ids);
  free(m->hash_threads);
  free(m->direct);
  free(m->streams);
  free(m->row_first);
  free(m->row_thread_start); /* row_thread_maxend, row_threads share it */
  free(m->row_running_first);
  free(m->running_maxend);
  free(m);
}

/* --- What views ask of the model ------------------------------------------ */

const mprof_model_view_t *mprof_model_view(const mprof_model_t *m) {
  return &m->view;
}

uint32_t mprof_model_stream_id(const mprof_model_t *m, uint32_t index) {
  return index < m->stream_count ? m->streams[index].id : 0;
}

uint32_t mprof_model_find(const mprof_model_t *m, uint64_t id) {
  if (id == MPROF_NONE) return MPROF_ROOT_THREAD;
  uint32_t i = *mprof__id_ref(m, id);
  return i == MPROF_NO_THREAD ? i : mprof__follow_merges(m, i);
}

const char *mprof_arrow_kind_name(mprof_arrow_kind_t kind) {
  static const char *const names[MPROF_ARROW_KIND_COUNT] = {
      "create",  "read",   "read_failed", "try_read",
      "resolve", "signal", "becomes"};
  return (unsigned)kind < MPROF_ARROW_KIND_COUNT ? names[kind] : "unknown";
}

const char *mprof_ending_name(mprof_ending_t ending) {
  static const char *const names[] = {"pending", "resolved", "failed",
                                      "merged"};
  return (unsigned)ending < sizeof names / sizeof *names ? names[ending]
                                                         : "unknown";
}

const char *mprof_model_thread_name(const mprof_model_t *m, uint32_t thread,
                                    char *buf, size_t size) {
  if (size == 0) return buf;
  buf[0] = 0;
  if (thread >= m->view.thread_count) return buf;
  const mprof_thread_t *t = &m->threads[thread];
  size_t n = 0;
  if (t->label_count) {
    const char *text = m->strings + m->labels[t->first_label].text;
    for (; text[n] && n + 1 < size; n++) buf[n] = text[n];
    buf[n] = 0;
    return buf;
  }
  const char *type = thread == MPROF_ROOT_THREAD ? "root"
                     : (t->flags & MPROF_THREAD_PREEXISTING)
                         ? "preexisting"
                         : mprof_type_name((mprof_type_t)t->type);
  char digits[24];
  size_t d = 0;
  uint64_t id = t->id;
  do digits[d++] = (char)('0' + id % 10);
  while ((id /= 10) && d < sizeof digits);
  for (; *type && n + 1 < size; type++) buf[n++] = *type;
  if (thread != MPROF_ROOT_THREAD && n + 1 < size) buf[n++] = '#';
  while (thread != MPROF_ROOT_THREAD && d > 0 && n + 1 < size)
    buf[n++] = digits[--d];
  buf[n] = 0;
  return buf;
}
