/* scene_cells.c -- the per-row per-column summary of a picture
 * (scene_stream.h): where a time falls, and what a thread's line, a
 * running span, an idle band, an arrow or a row's name leave in it.
 * scene_stream.c fills it from a trace in one pass; src/scene/cells.c
 * draws it. */
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "scene_stream.h"

int mprof_cells_new(int64_t t0_ns, int64_t t1_ns, uint32_t columns,
                    uint32_t rows, mprof_cells_t **out) {
  *out = NULL;
  if (t1_ns <= t0_ns || !columns || !rows) return MPROF_EINVAL;
  mprof_cells_t *c = calloc(1, sizeof *c);
  if (!c) return MPROF_ENOMEM;
  *c = (mprof_cells_t){.t0_ns = t0_ns,
                       .t1_ns = t1_ns,
                       .columns = columns,
                       .rows = rows,
                       .counter_limit = MPROF_CELLS_COUNTERS};
  c->cells = calloc((size_t)rows * columns, 1);
  c->idle = calloc(columns, 1);
  c->arrows = malloc((size_t)columns * MPROF_CELLS_ARROWS * sizeof *c->arrows);
  c->names = calloc(rows, MPROF_CELLS_NAME);
  if (!c->cells || !c->idle || !c->arrows || !c->names) {
    mprof_cells_free(c);
    return MPROF_ENOMEM;
  }
  for (size_t k = 0; k < (size_t)columns * MPROF_CELLS_ARROWS; k++)
    c->arrows[k] = (mprof_cell_arrow_t){0, 0, 0, 0, MPROF_ARROW_KIND_COUNT};
  *out = c;
  return 0;
}

void mprof_cells_free(mprof_cells_t *c) {
  if (!c) return;
  for (size_t k = 0; k < c->counter_count; k++) {
    free(c->counters[k].min);
    free(c->counters[k].max);
  }
  free(c->counters);
  free(c->labels);
  free(c->cells);
  free(c->idle);
  free(c->arrows);
  free(c->names);
  free(c);
}

/* As the scene's x (mprof_scene_x()), less the name column, floored. */
uint32_t mprof_cells_column(const mprof_cells_t *c, int64_t t_ns) {
  double x =
      (double)(t_ns - c->t0_ns) * c->columns / (double)(c->t1_ns - c->t0_ns);
  if (!(x > 0)) return 0;
  return x >= c->columns ? c->columns - 1 : (uint32_t)x;
}

uint32_t mprof_cells_row(const mprof_cells_t *c, uint32_t row) {
  return row < c->rows ? row : c->rows - 1;
}

void mprof_cells_mark(mprof_cells_t *c, uint32_t row, int64_t from_ns,
                      int64_t to_ns, uint8_t bits) {
  uint8_t *cells = c->cells + (size_t)mprof_cells_row(c, row) * c->columns;
  uint32_t last = mprof_cells_column(c, to_ns);
  for (uint32_t x = mprof_cells_column(c, from_ns); x <= last; x++)
    cells[x] |= bits;
}

/* For how many halvings of the columns columns first < last stay apart:
 * the bit length of their XOR (at most what the nibble holds). */
static unsigned end_halvings(uint32_t first, uint32_t last) {
  unsigned n = 0;
  for (uint32_t apart = first ^ last; apart && n < 15; apart >>= 1) n++;
  return n;
}

static uint8_t with_ends(uint8_t cell, unsigned ends) {
  if (ends <= MPROF_CELL_ENDS(cell)) return cell;
  return (uint8_t)((cell & MPROF_CELL_LOOK) | ends << MPROF_CELL_END_SHIFT);
}

void mprof_cells_line(mprof_cells_t *c, uint32_t row, int64_t start_ns,
                      int64_t end_ns, uint8_t bits) {
  mprof_cells_mark(c, row, start_ns, end_ns, bits);
  uint32_t first = mprof_cells_column(c, start_ns),
           last = mprof_cells_column(c, end_ns);
  if (!(bits & (MPROF_CELL_FAILED | MPROF_CELL_STALLED)) || first >= last)
    return;
  uint8_t *cell =
      c->cells + (size_t)mprof_cells_row(c, row) * c->columns + last;
  *cell = with_ends(*cell, end_halvings(first, last));
}

int mprof_cells_label(mprof_cells_t *c, uint32_t row, int64_t start_ns,
                      int64_t end_ns, const char *text, size_t length) {
  uint32_t first = mprof_cells_column(c, start_ns),
           last = mprof_cells_column(c, end_ns);
  if (row >= c->rows || last + 1 - first < MPROF_CELLS_LABEL_COLUMNS) return 0;
  if (mprof__grow(&c->labels, &c->label_cap, c->label_count + 1,
                  sizeof *c->labels))
    return MPROF_ENOMEM;
  mprof_cell_label_t *l = &c->labels[c->label_count++];
  size_t n = length < MPROF_CELLS_NAME ? length : MPROF_CELLS_NAME - 1;
  *l = (mprof_cell_label_t){row, first, last, {0}};
  memcpy(l->text, text, n);
  return 0;
}

/* A band of less than a pixel is drawn a pixel wide, as the scene does. */
void mprof_cells_idle(mprof_cells_t *c, int64_t from_ns, int64_t to_ns) {
  if (to_ns <= from_ns) return;
  uint32_t last = mprof_cells_column(c, to_ns);
  for (uint32_t x = mprof_cells_column(c, from_ns); x <= last; x++)
    c->idle[x] = 1;
  c->seen |= MPROF_SEEN_IDLE;
}

void mprof_cells_arrow(mprof_cells_t *c, uint32_t kind, uint32_t from_row,
                       uint32_t to_row, int64_t from_ns, int64_t to_ns,
                       int64_t at_ns) {
  mprof_cell_arrow_t *slot =
      &c->arrows[(size_t)mprof_cells_column(c, at_ns) * MPROF_CELLS_ARROWS];
  c->seen |= 1u << (MPROF_SEEN_ARROW_SHIFT + kind);
  for (int k = 0; k < MPROF_CELLS_ARROWS; k++)
    if (slot[k].kind == MPROF_ARROW_KIND_COUNT) {
      slot[k] =
          (mprof_cell_arrow_t){from_ns, to_ns, mprof_cells_row(c, from_row),
                               mprof_cells_row(c, to_row), kind};
      return;
    }
}

void mprof_cells_name(mprof_cells_t *c, uint32_t row, const char *text,
                      size_t length, int replace) {
  if (row >= c->rows) return;
  char *name = c->names + (size_t)row * MPROF_CELLS_NAME;
  if (name[0] && !replace) return;
  size_t n = 0;
  for (; n < length && n + 1 < MPROF_CELLS_NAME && text[n]; n++)
    name[n] = text[n];
  name[n] = 0;
}

void mprof_cells_default_name(uint16_t type, uint8_t flags, uint64_t id,
                              char *buf, size_t size) {
  const char *kind = flags & MPROF_THREAD_PREEXISTING
                         ? "preexisting"
                         : mprof_type_name((mprof_type_t)type);
  char digits[24];
  size_t d = 0, n = 0;
  do digits[d++] = (char)('0' + id % 10);
  while ((id /= 10) && d < sizeof digits);
  for (; *kind && n + 1 < size; kind++) buf[n++] = *kind;
  if (n + 1 < size) buf[n++] = '#';
  while (d > 0 && n + 1 < size) buf[n++] = digits[--d];
  if (size) buf[n] = 0;
}

/* --- Counters ------------------------------------------------------------- */

int mprof_cells_counter(mprof_cells_t *c, uint32_t id, uint32_t *index) {
  for (size_t k = 0; k < c->counter_count; k++)
    if (c->counters[k].id == id) {
      *index = (uint32_t)k;
      return 0;
    }
  if (c->counter_count >= c->counter_limit) return MPROF_EINVAL;
  if (mprof__grow(&c->counters, &c->counter_cap, c->counter_count + 1,
                  sizeof *c->counters))
    return MPROF_ENOMEM;
  mprof_cell_counter_t *k = &c->counters[c->counter_count];
  *k = (mprof_cell_counter_t){.id = id, .last_column = UINT32_MAX};
  k->min = malloc(c->columns * sizeof *k->min);
  k->max = malloc(c->columns * sizeof *k->max);
  if (!k->min || !k->max) {
    free(k->min);
    free(k->max);
    return MPROF_ENOMEM;
  }
  *index = (uint32_t)c->counter_count++;
  return 0;
}

/* The right edge of a counter's column col, as
 * mprof_model_counter_range() cuts the time range. */
static int64_t column_end(const mprof_cells_t *c, uint32_t col) {
  double width = (double)(c->t1_ns - c->t0_ns) / c->columns;
  return col + 1 == c->columns ? c->t1_ns
                               : c->t0_ns + (int64_t)(width * (col + 1));
}

/* The column of a counter's sample at t, by those edges. */
static uint32_t sample_column(const mprof_cells_t *c, int64_t t) {
  uint32_t col = mprof_cells_column(c, t);
  while (col > 0 && t < column_end(c, col - 1)) col--;
  while (col + 1 < c->columns && t >= column_end(c, col)) col++;
  return col;
}

/* Columns [from, to) of counter k hold its value carried into them. */
static void carry(mprof_cell_counter_t *k, uint32_t from, uint32_t to) {
  for (uint32_t x = from; x < to; x++) k->min[x] = k->max[x] = k->value;
}

static void widen(int64_t *lo, int64_t *hi, int64_t value) {
  if (value < *lo) *lo = value;
  if (value > *hi) *hi = value;
}

void mprof_cells_sample(mprof_cells_t *c, uint32_t index, int64_t t_ns,
                        int64_t value) {
  mprof_cell_counter_t *k = &c->counters[index];
  uint32_t col = sample_column(c, t_ns);
  uint32_t from = k->last_column == UINT32_MAX ? 0 : k->last_column + 1;
  if (col >= from) carry(k, from, col + 1);
  widen(&k->min[col], &k->max[col], value);
  widen(&k->min_value, &k->max_value, value);
  k->value = value;
  k->last_column = col;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(((const mprof_cell_counter_t *)a)->name,
                ((const mprof_cell_counter_t *)b)->name);
}

static int compare_places(const void *pa, const void *pb) {
  const mprof_cell_label_t *a = pa, *b = pb;
  if (a->row != b->row) return a->row < b->row ? -1 : 1;
  return a->first < b->first ? -1 : a->first > b->first;
}

void mprof_cells_end(mprof_cells_t *c) {
  for (size_t i = 0; i < c->counter_count; i++) {
    mprof_cell_counter_t *k = &c->counters[i];
    carry(k, k->last_column == UINT32_MAX ? 0 : k->last_column + 1, c->columns);
  }
  if (c->counter_count > 1)
    qsort(c->counters, c->counter_count, sizeof *c->counters, compare_names);
  if (c->label_count > 1)
    qsort(c->labels, c->label_count, sizeof *c->labels, compare_places);
}

/* --- Half the columns ----------------------------------------------------- */

/* Two cells as one: their looks OR'ed, an end that holds one halving
 * fewer. */
static uint8_t merge_cells(uint8_t a, uint8_t b) {
  unsigned ends = MPROF_CELL_ENDS(a) > MPROF_CELL_ENDS(b) ? MPROF_CELL_ENDS(a)
                                                          : MPROF_CELL_ENDS(b);
  return (uint8_t)((a | b) & MPROF_CELL_LOOK) |
         (uint8_t)((ends ? ends - 1 : 0) << MPROF_CELL_END_SHIFT);
}

/* The earliest MPROF_CELLS_ARROWS of columns' a and b (a's came first). */
static void merge_arrows(const mprof_cell_arrow_t *a,
                         const mprof_cell_arrow_t *b, mprof_cell_arrow_t *out) {
  int n = 0;
  for (int k = 0; k < MPROF_CELLS_ARROWS; k++)
    if (a[k].kind != MPROF_ARROW_KIND_COUNT) out[n++] = a[k];
  for (int k = 0; k < MPROF_CELLS_ARROWS && n < MPROF_CELLS_ARROWS; k++)
    if (b[k].kind != MPROF_ARROW_KIND_COUNT) out[n++] = b[k];
}

static int halve_counter(const mprof_cell_counter_t *k, uint32_t columns,
                         mprof_cell_counter_t *out) {
  *out = *k;
  out->last_column =
      k->last_column == UINT32_MAX ? k->last_column : k->last_column / 2;
  out->min = malloc(columns * sizeof *out->min);
  out->max = malloc(columns * sizeof *out->max);
  if (!out->min || !out->max) {
    free(out->min);
    free(out->max);
    return MPROF_ENOMEM;
  }
  for (uint32_t x = 0; x < columns; x++) {
    int64_t lo = k->min[2 * x], hi = k->max[2 * x];
    widen(&lo, &hi, k->min[2 * x + 1]);
    widen(&lo, &hi, k->max[2 * x + 1]);
    out->min[x] = lo, out->max[x] = hi;
  }
  return 0;
}

static int halve_counters(const mprof_cells_t *c, mprof_cells_t *h) {
  if (!c->counter_count) return 0;
  if (!(h->counters = calloc(c->counter_count, sizeof *h->counters)))
    return MPROF_ENOMEM;
  h->counter_cap = c->counter_count;
  for (; h->counter_count < c->counter_count; h->counter_count++)
    if (halve_counter(&c->counters[h->counter_count], h->columns,
                      &h->counters[h->counter_count]))
      return MPROF_ENOMEM;
  return 0;
}

/* The labels still MPROF_CELLS_LABEL_COLUMNS wide at half the columns. */
static int halve_labels(const mprof_cells_t *c, mprof_cells_t *h) {
  for (size_t i = 0; i < c->label_count; i++) {
    mprof_cell_label_t l = c->labels[i];
    l.first /= 2, l.last /= 2;
    if (l.last + 1 - l.first < MPROF_CELLS_LABEL_COLUMNS) continue;
    if (mprof__grow(&h->labels, &h->label_cap, h->label_count + 1,
                    sizeof *h->labels))
      return MPROF_ENOMEM;
    h->labels[h->label_count++] = l;
  }
  return 0;
}

int mprof_cells_halve(const mprof_cells_t *c, mprof_cells_t **out) {
  *out = NULL;
  if (c->columns < 2 || c->columns % 2) return MPROF_EINVAL;
  mprof_cells_t *h;
  int err = mprof_cells_new(c->t0_ns, c->t1_ns, c->columns / 2, c->rows, &h);
  if (err) return err;
  for (size_t r = 0; r < c->rows; r++)
    for (uint32_t x = 0; x < h->columns; x++)
      h->cells[r * h->columns + x] =
          merge_cells(c->cells[r * c->columns + 2 * x],
                      c->cells[r * c->columns + 2 * x + 1]);
  for (uint32_t x = 0; x < h->columns; x++) {
    h->idle[x] = c->idle[2 * x] | c->idle[2 * x + 1];
    merge_arrows(&c->arrows[2 * x * MPROF_CELLS_ARROWS],
                 &c->arrows[(2 * x + 1) * MPROF_CELLS_ARROWS],
                 &h->arrows[x * MPROF_CELLS_ARROWS]);
  }
  memcpy(h->names, c->names, (size_t)c->rows * MPROF_CELLS_NAME);
  h->row_count = c->row_count, h->seen = c->seen, h->events = c->events;
  h->counter_limit = c->counter_limit;
  err = halve_counters(c, h);
  if (!err) err = halve_labels(c, h);
  if (err) {
    mprof_cells_free(h);
    return err;
  }
  *out = h;
  return 0;
}
