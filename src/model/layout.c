/* layout.c -- give every thread a row.
 *
 * Threads are placed in order of start time.  Each wants the row just
 * below its creator (the top row for threads the root created), or the
 * creator's own row if the creator had already ended -- a callback that
 * starts the next one continues its line instead of stepping down a row
 * each time -- and takes the first row from there down that is free when
 * it starts.  Rows are
 * kept in a segment tree of "busy until" times, so finding that row costs
 * O(log rows): a million threads lay out in well under a second.  Rows
 * depend only on the trace, never on the zoom, so the picture is stable
 * while zooming.  (Placing threads depth-first and scanning every
 * overlapping thread, as mirage-trace-viewer does, makes traces staircase;
 * searching the first free row is eio-trace's answer.)
 *
 * Then running spans and threads are grouped by row, in start order, with
 * prefix maxima of their ends, for the window queries in lod.c.
 */
#include <string.h>

#include "model_internal.h"

/* Passes that read threads in the order of another array (spans, creators)
 * jump around a big array of 64-byte threads: each read would wait on
 * memory in turn.  Asking for the thread this many items ahead keeps many
 * reads under way at once (a pass over 2.5 M spans: 20 -> 9 ms). */
#define PREFETCH_AHEAD 64

static void prefetch_thread(const mprof_model_t *m, uint32_t thread) {
  __builtin_prefetch(&m->threads[thread]);
}

/* Min segment tree over rows: leaf r holds the time row r is busy until;
 * beside it, how many threads each row holds (counted while placing, so
 * that grouping by row needs no pass of its own over the threads). */
typedef struct rows_s {
  int64_t *tree;   /* 2 * size nodes, leaves at [size, 2 * size) */
  uint32_t *count; /* size counts */
  size_t size;
} rows_t;

static int rows_init(rows_t *r, size_t size, const rows_t *from) {
  int64_t *tree = malloc(2 * size * sizeof *tree);
  uint32_t *count = calloc(size, sizeof *count);
  if (!tree || !count) {
    free(tree);
    free(count);
    return MPROF_ENOMEM;
  }
  for (size_t i = 0; i < 2 * size; i++) tree[i] = INT64_MIN;
  if (from) {
    memcpy(tree + size, from->tree + from->size, from->size * sizeof *tree);
    memcpy(count, from->count, from->size * sizeof *count);
    free(from->tree);
    free(from->count);
  }
  r->tree = tree;
  r->count = count;
  r->size = size;
  for (size_t i = size - 1; i > 0; i--)
    tree[i] = tree[2 * i] < tree[2 * i + 1] ? tree[2 * i] : tree[2 * i + 1];
  return 0;
}

/* Row `row` is busy until busy_until, later than before (a row is taken
 * only when free, until the taker's end): only its leaf is written, so
 * the nodes above may hold less than their subtree's minimum.  That is
 * still a bound the search can use (see rows_first_free()), and most
 * threads take a row found without it. */
static void rows_set(rows_t *r, size_t row, int64_t busy_until) {
  r->tree[r->size + row] = busy_until;
}

/* The first row >= from that is free before `start` (in the subtree of
 * `node`, covering rows [lo, hi)), or SIZE_MAX.  A node at or above
 * start has no free row below it; one below start may (its value is
 * only a lower bound of its subtree's minimum): a search that finds none
 * there raises it to its children's. */
static size_t rows_first_free(rows_t *r, size_t node, size_t lo, size_t hi,
                              size_t from, int64_t start) {
  if (hi <= from || r->tree[node] >= start) return SIZE_MAX;
  if (hi - lo == 1) return lo;
  size_t mid = lo + (hi - lo) / 2;
  size_t found = rows_first_free(r, 2 * node, lo, mid, from, start);
  if (found == SIZE_MAX)
    found = rows_first_free(r, 2 * node + 1, mid, hi, from, start);
  if (found == SIZE_MAX) {
    int64_t low = r->tree[2 * node] < r->tree[2 * node + 1]
                      ? r->tree[2 * node]
                      : r->tree[2 * node + 1];
    if (low > r->tree[node]) r->tree[node] = low;
  }
  return found;
}

/* A thread to sort by start (qsort has no context argument, so the key
 * carries what it needs); ties go by index. */
typedef struct sort_key_s {
  int64_t start_ns;
  uint32_t index;
} sort_key_t;

static int compare_keys(const void *pa, const void *pb) {
  const sort_key_t *a = pa, *b = pb;
  if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* The k-th thread by start: order[k], or k + 1 where order is NULL (see
 * threads_by_start()). */
static uint32_t nth(const uint32_t *order, size_t k) {
  return order ? order[k] : (uint32_t)k + 1;
}

/* Threads being given rows one by one in start order: the rows, how many
 * are used, and how far the placing has come in thread index order
 * (while the endings are settled, see mprof__place_range()). */
struct mprof__placing_s {
  rows_t rows;
  uint32_t row_count;
  size_t next; /* threads 1 .. next - 1 are placed */
};

/* Give thread i a row: the first free one at its start from the row it
 * wants, which is the row below its creator (the creator's own if that
 * ended first; the top row for the root's threads and those whose creator
 * is not placed yet).  Returns 0 or MPROF_ENOMEM. */
static inline __attribute__((always_inline)) int place_one(mprof_model_t *m,
                                                           mprof__placing_t *p,
                                                           uint32_t i,
                                                           int creator_placed) {
  mprof_thread_t *t = &m->threads[i];
  const mprof_thread_t *creator = &m->threads[t->creator];
  rows_t *rows = &p->rows;
  size_t want = t->creator == MPROF_ROOT_THREAD || !creator_placed ? 0
                : creator->end_ns <= t->start_ns ? creator->row
                                                 : (size_t)creator->row + 1;
  /* most often one of the next few rows is free: look there first */
  size_t row = want;
  while (row < want + 4 && row < rows->size &&
         rows->tree[rows->size + row] >= t->start_ns)
    row++;
  if (row == want + 4 || row >= rows->size)
    while ((row = rows_first_free(rows, 1, 0, rows->size, want, t->start_ns)) ==
           SIZE_MAX)
      if (rows_init(rows, rows->size * 2, rows)) return MPROF_ENOMEM;
  rows_set(rows, row, t->end_ns);
  rows->count[row]++;
  t->row = (uint32_t)row;
  if (row + 1 > p->row_count) p->row_count = (uint32_t)row + 1;
  return 0;
}

int mprof__place_begin(mprof_model_t *m) {
  mprof__placing_t *p = malloc(sizeof *p);
  if (!p || rows_init(&p->rows, 64, NULL)) {
    free(p);
    return MPROF_ENOMEM;
  }
  p->row_count = 0;
  p->next = 1;
  m->placing = p;
  return 0;
}

int mprof__place_range(mprof_model_t *m, size_t from, size_t to) {
  mprof__placing_t *p = m->placing;
  if (!p || p->next != from) return MPROF_EINVAL;
  for (size_t i = from; i < to; i++) {
    if (i + PREFETCH_AHEAD < m->view.thread_count)
      prefetch_thread(m, m->threads[i + PREFETCH_AHEAD].creator);
    /* the next block, read and written while settled, comes into cache
     * while this one is placed (it waited on memory otherwise: ~2 ms) */
    if (i + (to - from) < m->view.thread_count)
      __builtin_prefetch(&m->threads[i + (to - from)], 1);
    /* threads numbered below i are placed, the others not yet */
    if (place_one(m, p, (uint32_t)i, m->threads[i].creator < i))
      return MPROF_ENOMEM;
    p->next = i + 1;
  }
  return 0;
}

/* Free m->placing. */
static void place_free(mprof_model_t *m) {
  if (!m->placing) return;
  free(m->placing->rows.tree);
  free(m->placing->rows.count);
  free(m->placing);
  m->placing = NULL;
}

/* Place the threads of `order` (sorted by start) one by one, afresh:
 * rows given while the endings were settled are taken back first. */
static int place_threads(mprof_model_t *m, const uint32_t *order, size_t n) {
  mprof__placing_t *p = m->placing;
  mprof_thread_t *th = m->threads;
  for (size_t i = 1; i < p->next; i++) th[i].row = MODEL_ROW_UNPLACED;
  for (size_t r = 0; r < 2 * p->rows.size; r++) p->rows.tree[r] = INT64_MIN;
  memset(p->rows.count, 0, p->rows.size * sizeof *p->rows.count);
  p->row_count = 0;
  for (size_t k = 0; k < n; k++) {
    if (k + PREFETCH_AHEAD < n)
      prefetch_thread(m, th[nth(order, k + PREFETCH_AHEAD)].creator);
    uint32_t i = nth(order, k);
    if (place_one(m, p, i, th[th[i].creator].row != MODEL_ROW_UNPLACED))
      return MPROF_ENOMEM;
  }
  p->next = n + 1;
  return 0;
}

/* Group the threads (but the root) by row, in start order, with the
 * start and prefix-maximum-of-end columns.  Rows were counted while
 * placing, and a row's threads arrive in start order, so one scatter pass
 * writes everything, each row's running maximum kept beside its cursor
 * (per_row[r] becomes the cursor).  The three arrays share one block:
 * fresh memory costs most here, and one big block is mapped in fewer,
 * bigger pages (see mprof__big_alloc()). */
static int group_threads(mprof_model_t *m, const uint32_t *order, size_t n,
                         uint32_t *per_row) {
  uint32_t rows = m->view.row_count;
  m->row_first = malloc(((size_t)rows + 1) * sizeof *m->row_first);
  size_t size = n ? n : 1;
  int64_t *block =
      mprof__big_alloc(size * (2 * sizeof *block + sizeof *m->row_threads));
  int64_t *reach = malloc(((size_t)rows + 1) * sizeof *reach);
  if (!m->row_first || !block || !reach) {
    free(block);
    free(reach);
    return MPROF_ENOMEM;
  }
  m->row_thread_start = block;
  m->row_thread_maxend = block + size;
  m->row_threads = (uint32_t *)(void *)(block + 2 * size);
  m->row_first[0] = 0;
  for (uint32_t r = 0; r < rows; r++) {
    m->row_first[r + 1] = m->row_first[r] + per_row[r];
    per_row[r] = m->row_first[r];
    reach[r] = INT64_MIN;
  }
  for (size_t k = 0; k < n; k++) {
    if (k + PREFETCH_AHEAD < n)
      prefetch_thread(m, nth(order, k + PREFETCH_AHEAD));
    const mprof_thread_t *t = &m->threads[nth(order, k)];
    uint32_t at = per_row[t->row]++;
    if (t->end_ns > reach[t->row]) reach[t->row] = t->end_ns;
    m->row_threads[at] = nth(order, k);
    m->row_thread_start[at] = t->start_ns;
    m->row_thread_maxend[at] = reach[t->row];
  }
  free(reach);
  return 0;
}

/* Within each row, order spans by start.  They arrive nearly sorted (a
 * span is recorded when it ends, and a row's threads do not overlap), so
 * an insertion sort costs little more than the check. */
static void sort_row_spans(mprof__spans_t *spans, const uint32_t *first,
                           uint32_t row_count) {
  for (uint32_t r = 0; r < row_count; r++)
    for (uint32_t i = first[r] + 1; i < first[r + 1]; i++) {
      mprof_span_t s = mprof__spans_get(spans, i);
      uint32_t j = i;
      for (;
           j > first[r] && mprof__spans_get(spans, j - 1).start_ns > s.start_ns;
           j--)
        mprof__spans_put(spans, j, mprof__spans_get(spans, j - 1));
      mprof__spans_put(spans, j, s);
    }
}

/* A span's row as clip_and_count() notes it: dropped (left empty), or
 * the row, with ROW_CUT set where the span is cut to its thread's line
 * (rows number fewer than 2^31: each holds a thread). */
#define ROW_DROPPED UINT32_MAX
#define ROW_CUT 0x80000000u

/* Span s cut to its thread t's line. */
static mprof_span_t cut_to_line(mprof_span_t s, const mprof_thread_t *t) {
  if (s.end_ns > t->end_ns) s.end_ns = t->end_ns;
  if (s.start_ns < t->start_ns) s.start_ns = t->start_ns;
  return s;
}

/* The running spans' onward readers, from the first. */
static void running_onward_init(const mprof_model_view_t *v,
                                mprof__onward_t from[2]) {
  from[0] = mprof__onward(&v->running_starts);
  from[1] = mprof__onward(&v->running_ends);
}

/* Clip the running spans to their threads' lines (they are drawn on
 * them), dropping those left empty, and count each row's spans into
 * first[r + 1]: one read of a span's thread gives its line and its row,
 * and the row is noted in rows[i] for the scatter, which then reads only
 * the threads of spans cut (reading them all again cost more than this
 * array: ~6 ms of 2.5 M spans). */
static void clip_and_count(const mprof_model_t *m, uint32_t *first,
                           uint32_t *rows) {
  const mprof_model_view_t *v = &m->view;
  const mprof_span_rec_t *recs = v->running_recs;
  const mprof_thread_t *threads = m->threads;
  size_t n = v->running_count;
  mprof__onward_t from[2];
  running_onward_init(v, from);
  for (size_t i = 0; i < n;)
    for (size_t stop = mprof__running_stretch(from, i, n); i < stop; i++) {
      if (i + PREFETCH_AHEAD < n)
        __builtin_prefetch(&threads[recs[i + PREFETCH_AHEAD].thread]);
      mprof_span_t s = mprof__running_in(&recs[i], from);
      const mprof_thread_t *t = &threads[s.thread];
      mprof_span_t cut = cut_to_line(s, t);
      uint32_t row = ROW_DROPPED;
      if (cut.end_ns > cut.start_ns) {
        row = t->row |
              (cut.start_ns != s.start_ns || cut.end_ns != s.end_ns ? ROW_CUT
                                                                    : 0);
        first[t->row + 1]++;
      }
      rows[i] = row;
    }
}

/* Scatter the spans kept (span i in row rows[i], cut where it says) into
 * sorted, grouped by row (a stable counting sort: fill[r] starts as row
 * r's first place), checking on the way that each row's spans come in
 * start order (last_start[r]: its latest start).  A span not cut keeps
 * its record as it is.  Returns whether they all did. */
static int scatter_spans(const mprof_model_t *m, const uint32_t *rows,
                         uint32_t *fill, int64_t *last_start,
                         mprof__spans_t *sorted) {
  const mprof_model_view_t *v = &m->view;
  const mprof_span_rec_t *recs = v->running_recs;
  size_t n = v->running_count;
  int in_order = 1;
  mprof__onward_t from[2];
  running_onward_init(v, from);
  for (uint32_t r = 0; r < v->row_count; r++) last_start[r] = INT64_MIN;
  for (size_t i = 0; i < n;)
    for (size_t stop = mprof__running_stretch(from, i, n); i < stop; i++) {
      uint32_t row = rows[i];
      if (row == ROW_DROPPED) continue;
      uint32_t r = row & ~ROW_CUT;
      mprof_span_t s = mprof__running_in(&recs[i], from);
      size_t at = fill[r]++;
      if (row & ROW_CUT) {
        s = cut_to_line(s, &m->threads[s.thread]);
        mprof__spans_put(sorted, at, s);
      } else {
        mprof__spans_put_read(sorted, at, &recs[i], from);
      }
      if (s.start_ns < last_start[r]) in_order = 0;
      last_start[r] = s.start_ns;
    }
  return in_order;
}

/* The prefix-maximum-of-end column of the running spans grouped by row
 * (their starts are read from the spans themselves). */
static void span_reach(const mprof_model_view_t *v, const uint32_t *first,
                       int64_t *maxend) {
  mprof__onward_t from[2];
  running_onward_init(v, from);
  for (uint32_t r = 0; r < v->row_count; r++) {
    int64_t reach = INT64_MIN;
    for (uint32_t i = first[r]; i < first[r + 1]; i++) {
      int64_t end = mprof__time_onward(&from[1], i, v->running_recs[i].end_low);
      if (end > reach) reach = end;
      maxend[i] = reach;
    }
  }
}

/* Group the running spans by row (a stable counting sort), by start
 * within each row.  Passes over the spans are what cost (tens of MB, and
 * the sorted records are fresh memory), so there are as few as can be:
 * clip and count (noting each span's row), the scatter, which puts each
 * span's compact record in its new place and checks the order (the sort
 * runs only when a row is out of order), then the prefix maxima of ends,
 * once the records have replaced the old ones. */
static int group_running(mprof_model_t *m) {
  uint32_t rows = m->view.row_count;
  if (rows >= ROW_CUT) return MPROF_ENOMEM; /* 2^31 threads: never so */
  size_t count = m->view.running_count;
  if (count >= UINT32_MAX)
    return MPROF_ENOMEM; /* rows count spans in 32 bits */
  uint32_t *first = calloc((size_t)rows + 1, sizeof *first);
  uint32_t *fill = malloc(((size_t)rows + 1) * sizeof *fill);
  int64_t *last_start = malloc(((size_t)rows + 1) * sizeof *last_start);
  uint32_t *span_rows = malloc((count + 1) * sizeof *span_rows);
  m->row_running_first = first;
  mprof__spans_t sorted;
  size_t n = 0; /* the spans kept */
  if (first && fill && last_start && span_rows) {
    clip_and_count(m, first, span_rows);
    for (uint32_t r = 0; r < rows; r++) first[r + 1] += first[r];
    n = first[rows];
  }
  if (!first || !fill || !last_start || !span_rows ||
      mprof__spans_make(m, &sorted, n)) {
    free(fill);
    free(last_start);
    free(span_rows);
    return MPROF_ENOMEM;
  }
  memcpy(fill, first, ((size_t)rows + 1) * sizeof *fill);
  int in_order = scatter_spans(m, span_rows, fill, last_start, &sorted);
  free(fill);
  free(last_start);
  free(span_rows);
  if (!in_order) sort_row_spans(&sorted, first, rows);
  /* the old records go before the column comes */
  if (mprof__running_take(m, &sorted)) return MPROF_ENOMEM;
  m->running_maxend = malloc((n ? n : 1) * sizeof *m->running_maxend);
  if (!m->running_maxend) return MPROF_ENOMEM;
  span_reach(&m->view, first, m->running_maxend);
  return 0;
}

/* Split threads 1..n into those already in start order (into in_order,
 * unless NULL; returns how many) and the others (into late, unless NULL;
 * *others counts them). */
static size_t split_by_start(const mprof_thread_t *th, size_t n,
                             uint32_t *in_order, sort_key_t *late,
                             size_t *others) {
  size_t kept = 0;
  int64_t last = INT64_MIN;
  *others = 0;
  for (uint32_t i = 1; i <= n; i++) {
    if (th[i].start_ns >= last) {
      last = th[i].start_ns;
      if (in_order) in_order[kept] = i;
      kept++;
    } else if (late) {
      late[(*others)++] = (sort_key_t){th[i].start_ns, i};
    } else {
      (*others)++;
    }
  }
  return kept;
}

/* Every thread but the root (which is not drawn), by start time, into
 * *order.  Threads are numbered as they appear, so most often all are in
 * start order already (m->threads_unordered is 0): *order is then NULL,
 * standing for 1..n (an array of them would be fresh memory, which costs
 * more than a pass).
 * Otherwise those in order are kept as they are; the few others (threads
 * from before the trace began, clocks that disagree) are sorted apart and
 * merged in.  Returns 0 or MPROF_ENOMEM. */
static int threads_by_start(const mprof_model_t *m, size_t n,
                            uint32_t **order) {
  const mprof_thread_t *th = m->threads;
  size_t others;
  *order = NULL;
  if (!m->threads_unordered) return 0;
  split_by_start(th, n, NULL, NULL, &others);
  /* the others, sorted apart (in an array of their exact size: a heap
   * that never shrinks, WebAssembly's, keeps whatever is asked for) */
  uint32_t *in_order = malloc(n * sizeof *in_order);
  uint32_t *merged = malloc(n * sizeof *merged);
  sort_key_t *late = malloc(others * sizeof *late);
  if (!in_order || !merged || !late) {
    free(in_order);
    free(merged);
    free(late);
    return MPROF_ENOMEM;
  }
  size_t kept = split_by_start(th, n, in_order, late, &others);
  qsort(late, others, sizeof *late, compare_keys);
  size_t a = 0, b = 0;
  for (size_t k = 0; k < n; k++) {
    int take_late = b < others &&
                    (a == kept || late[b].start_ns < th[in_order[a]].start_ns ||
                     (late[b].start_ns == th[in_order[a]].start_ns &&
                      late[b].index < in_order[a]));
    merged[k] = take_late ? late[b++].index : in_order[a++];
  }
  free(in_order);
  free(late);
  *order = merged;
  return 0;
}

int mprof__layout(mprof_model_t *m) {
  size_t n = m->view.thread_count - 1;
  uint32_t *order = NULL;
  int err = m->placing ? 0 : MPROF_ENOMEM;
  if (!err && m->placing->next != n + 1) {
    err = threads_by_start(m, n, &order);
    if (!err) err = place_threads(m, order, n);
  }
  m->threads[MPROF_ROOT_THREAD].row = 0;
  if (!err) {
    m->view.row_count = m->placing->row_count;
    err = group_running(m);
  }
  if (!err) err = group_threads(m, order, n, m->placing->rows.count);
  place_free(m);
  free(order);
  return err;
}
