/* scene_pyramid.c -- the level-of-detail pyramid of a picture summary
 * (scene_pyramid.h): its levels by halving, a frame of any range from the
 * level that fits it, and its file's bytes: a header (magic, version, the
 * trace's key, a checksum over the whole file, the summary's counts) and
 * the finest level's arrays, little-endian.  The coarser levels are not
 * stored: halving makes them exactly, each in one pass over the level
 * below. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "scene_pyramid.h"

int mprof_pyramid_new(mprof_cells_t *finest, uint32_t coarsest_columns,
                      mprof_pyramid_t **out) {
  *out = calloc(1, sizeof **out);
  if (!*out) {
    mprof_cells_free(finest);
    return MPROF_ENOMEM;
  }
  mprof_pyramid_t *p = *out;
  p->levels[p->level_count++] = finest;
  for (mprof_cells_t *c = finest;
       p->level_count < MPROF_PYRAMID_LEVELS && c->columns % 2 == 0 &&
       c->columns >= 2 * coarsest_columns;
       c = p->levels[p->level_count - 1]) {
    int err = mprof_cells_halve(c, &p->levels[p->level_count]);
    if (err) {
      mprof_pyramid_free(p);
      *out = NULL;
      return err;
    }
    p->level_count++;
  }
  return 0;
}

void mprof_pyramid_free(mprof_pyramid_t *p) {
  if (!p) return;
  for (size_t k = 0; k < p->level_count; k++) mprof_cells_free(p->levels[k]);
  free(p);
}

/* Level columns that [t0, t1) spans in c (in doubles: a frame's range
 * may lie far from the level's). */
static double columns_in(const mprof_cells_t *c, int64_t t0, int64_t t1) {
  return ((double)t1 - (double)t0) * c->columns /
         ((double)c->t1_ns - (double)c->t0_ns);
}

size_t mprof_pyramid_level_for(const mprof_pyramid_t *p, int64_t t0_ns,
                               int64_t t1_ns, uint32_t columns) {
  size_t k = p->level_count - 1;
  while (k > 0 && columns_in(p->levels[k], t0_ns, t1_ns) < columns * (1 - 1e-9))
    k--;
  return k;
}

/* --- A frame -------------------------------------------------------------- */

/* Where frame columns fall in a level: frame column x starts at level
 * column offset + x * ratio. */
typedef struct map_s {
  const mprof_cells_t *level;
  double offset, ratio;
} map_t;

/* Level columns [*from, *to) of frame column x: those starting in it, or
 * the one it lies in; none (from == to) outside the level. */
static void level_columns(const map_t *m, uint32_t x, int64_t *from,
                          int64_t *to) {
  double a = m->offset + x * m->ratio, b = a + m->ratio;
  int64_t lo = (int64_t)ceil(a - 1e-6), hi = (int64_t)ceil(b - 1e-6);
  if (hi <= lo) lo = (int64_t)floor(a + 1e-6), hi = lo + 1;
  int64_t last = m->level->columns;
  *from = lo < 0 ? 0 : lo > last ? last : lo;
  *to = hi < 0 ? 0 : hi > last ? last : hi;
}

/* The frame column level column j starts in, with level_columns()'s
 * tolerance (in level columns). */
static int64_t frame_column(const map_t *m, uint32_t j) {
  return (int64_t)floor((j - m->offset + 1e-6) / m->ratio);
}

static uint32_t frame_clamp(const mprof_cells_t *f, int64_t x) {
  return x < 0 ? 0 : x >= f->columns ? f->columns - 1 : (uint32_t)x;
}

static uint8_t merge_look(uint8_t a, uint8_t b) {
  unsigned ends = MPROF_CELL_ENDS(a) > MPROF_CELL_ENDS(b) ? MPROF_CELL_ENDS(a)
                                                          : MPROF_CELL_ENDS(b);
  return (uint8_t)((a | b) & MPROF_CELL_LOOK) |
         (uint8_t)(ends << MPROF_CELL_END_SHIFT);
}

/* Frame column x from level columns [from, to), its rows from first on.
 * Zoomed past the finest (a level column over several frame columns), the
 * level column's arrows go in the frame column its start is in and its
 * ends in the last one it covers, not in each. */
static void frame_column_fill(const map_t *m, mprof_cells_t *f, uint32_t first,
                              uint32_t x, int64_t from, int64_t to) {
  const mprof_cells_t *l = m->level;
  int arrows = 0;
  uint8_t keep = (uint8_t)~0;
  if (m->ratio < 1 && from < to) {
    uint32_t j = (uint32_t)from;
    if (x != frame_clamp(f, frame_column(m, j + 1) - 1)) keep = MPROF_CELL_LOOK;
    if (x != frame_clamp(f, frame_column(m, j))) arrows = MPROF_CELLS_ARROWS;
  }
  for (int64_t j = from; j < to; j++) {
    f->idle[x] |= l->idle[j];
    for (uint32_t r = first; r < l->rows && r < l->row_count; r++) {
      uint8_t *cell = &f->cells[(size_t)mprof_cells_row(f, r) * f->columns + x];
      *cell = merge_look(*cell, l->cells[(size_t)r * l->columns + j] & keep);
    }
    for (int k = 0; k < MPROF_CELLS_ARROWS && arrows < MPROF_CELLS_ARROWS;
         k++) {
      mprof_cell_arrow_t a = l->arrows[j * MPROF_CELLS_ARROWS + k];
      if (a.kind == MPROF_ARROW_KIND_COUNT) continue;
      a.from_row = mprof_cells_row(f, a.from_row);
      a.to_row = mprof_cells_row(f, a.to_row);
      f->arrows[(size_t)x * MPROF_CELLS_ARROWS + arrows++] = a;
    }
  }
}

/* A counter's range in frame column x: its columns' union, the nearest
 * one's outside the level. */
static void counter_column(const mprof_cell_counter_t *k, uint32_t columns,
                           int64_t from, int64_t to, int64_t *lo, int64_t *hi) {
  if (from >= to) {
    from = from >= columns ? columns - 1 : from;
    to = from + 1;
  }
  *lo = k->min[from], *hi = k->max[from];
  for (int64_t j = from + 1; j < to; j++) {
    if (k->min[j] < *lo) *lo = k->min[j];
    if (k->max[j] > *hi) *hi = k->max[j];
  }
}

static int frame_counters(const map_t *m, mprof_cells_t *f) {
  const mprof_cells_t *l = m->level;
  for (size_t i = 0; i < l->counter_count; i++) {
    uint32_t index;
    int err = mprof_cells_counter(f, l->counters[i].id, &index);
    if (err) return err;
    mprof_cell_counter_t *k = &f->counters[index];
    const mprof_cell_counter_t *src = &l->counters[i];
    memcpy(k->name, src->name, sizeof k->name);
    k->value = src->value;
    k->min_value = src->min_value, k->max_value = src->max_value;
    k->last_column = src->last_column == UINT32_MAX
                         ? UINT32_MAX
                         : frame_clamp(f, frame_column(m, src->last_column));
    for (uint32_t x = 0; x < f->columns; x++) {
      int64_t from, to;
      level_columns(m, x, &from, &to);
      counter_column(src, l->columns, from, to, &k->min[x], &k->max[x]);
    }
  }
  return 0;
}

/* The first of l's labels in row `row` or after whose line reaches level
 * column `column`: labels come by row then column, and the lines of a
 * row one after another. */
static size_t first_label(const mprof_cells_t *l, uint32_t row,
                          int64_t column) {
  size_t lo = 0, hi = l->label_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const mprof_cell_label_t *x = &l->labels[mid];
    if (x->row < row || (x->row == row && (int64_t)x->last < column))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The level's labels on lines in view, in the frame's columns, in its
 * rows from first on: for each row, found by a binary search, so that a
 * frame's work does not grow with the level's labels. */
static int frame_labels(const map_t *m, mprof_cells_t *f, uint32_t first) {
  const mprof_cells_t *l = m->level;
  int64_t from = (int64_t)floor(m->offset),
          to = (int64_t)ceil(m->offset + f->columns * m->ratio);
  for (uint32_t r = first; r < f->rows; r++)
    for (size_t i = first_label(l, r, from);
         i < l->label_count && l->labels[i].row == r &&
         (int64_t)l->labels[i].first <= to;
         i++) {
      mprof_cell_label_t label = l->labels[i];
      int64_t first = frame_column(m, label.first),
              last = frame_column(m, label.last + 1) - 1;
      if (first < 0) first = 0;
      if (last >= f->columns) last = f->columns - 1;
      if (last + 1 - first < MPROF_CELLS_LABEL_COLUMNS) continue;
      if (mprof__grow(&f->labels, &f->label_cap, f->label_count + 1,
                      sizeof *f->labels))
        return MPROF_ENOMEM;
      label.first = (uint32_t)first, label.last = (uint32_t)last;
      f->labels[f->label_count++] = label;
    }
  return 0;
}

int mprof_pyramid_frame(const mprof_pyramid_t *p, int64_t t0_ns, int64_t t1_ns,
                        uint32_t columns, uint32_t first_row, uint32_t rows,
                        mprof_cells_t **out) {
  *out = NULL;
  const mprof_cells_t *l =
      p->levels[mprof_pyramid_level_for(p, t0_ns, t1_ns, columns)];
  if (rows > l->rows) rows = l->rows;
  if (rows && first_row >= rows) first_row = rows - 1;
  mprof_cells_t *f;
  int err = mprof_cells_new(t0_ns, t1_ns, columns, rows, &f);
  if (err) return err;
  map_t m = {l, columns_in(l, l->t0_ns, t0_ns),
             columns_in(l, t0_ns, t1_ns) / columns};
  for (uint32_t x = 0; x < columns; x++) {
    int64_t from, to;
    level_columns(&m, x, &from, &to);
    frame_column_fill(&m, f, first_row, x, from, to);
  }
  memcpy(f->names + (size_t)first_row * MPROF_CELLS_NAME,
         l->names + (size_t)first_row * MPROF_CELLS_NAME,
         (size_t)(rows - first_row) * MPROF_CELLS_NAME);
  f->row_count = l->row_count, f->seen = l->seen, f->events = l->events;
  f->counter_limit = l->counter_limit;
  err = frame_counters(&m, f);
  if (!err) err = frame_labels(&m, f, first_row);
  if (err) {
    mprof_cells_free(f);
    return err;
  }
  *out = f;
  return 0;
}
