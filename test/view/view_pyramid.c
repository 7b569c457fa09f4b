/* view_pyramid.c -- the level-of-detail pyramid of a trace too big to
 * model (src/model/scene_pyramid.h, src/view/pyramid.c) against an
 * oracle, and its file.
 *
 *   view_pyramid TRACE COLUMNS ROWS
 *
 * The summary of TRACE streamed at COLUMNS x ROWS is made a pyramid by
 * halving; each coarser level must equal, byte for byte and field for
 * field, the summary streamed directly at its width (the oracle: the
 * pass itself), and a frame of a level's own range and width must be that
 * level; a frame zoomed 4 times past the finest holds each of its
 * columns' arrows and ends once, and its lines as they are.  Then the file: the
 * finest level written and read back equals itself; a copy damaged in any of a
 * few places, cut short, or of another trace (its key) is not believed; and
 * mprof__view_pyramid_open() beside a damaged file builds the pyramid again,
 * says why, and leaves a good file.  Prints "ok ..." or one line saying what
 * differs, and exits 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyramid.h"
#include "view.h"

static int fail(const char *what) {
  printf("FAIL: %s\n", what);
  return 1;
}

static const char *arrows_differ(const mprof_cells_t *a,
                                 const mprof_cells_t *b) {
  for (size_t k = 0; k < (size_t)a->columns * MPROF_CELLS_ARROWS; k++) {
    const mprof_cell_arrow_t *x = &a->arrows[k], *y = &b->arrows[k];
    if (x->kind != y->kind) return "an arrow's kind";
    if (x->kind == MPROF_ARROW_KIND_COUNT) continue;
    if (x->from_ns != y->from_ns || x->to_ns != y->to_ns ||
        x->from_row != y->from_row || x->to_row != y->to_row)
      return "an arrow's ends";
  }
  return NULL;
}

static const char *counters_differ(const mprof_cells_t *a,
                                   const mprof_cells_t *b) {
  if (a->counter_count != b->counter_count) return "the counters' count";
  for (size_t i = 0; i < a->counter_count; i++) {
    const mprof_cell_counter_t *x = &a->counters[i], *y = &b->counters[i];
    if (strcmp(x->name, y->name) || x->id != y->id) return "a counter's name";
    if (x->value != y->value || x->min_value != y->min_value ||
        x->max_value != y->max_value || x->last_column != y->last_column)
      return "a counter's values";
    for (uint32_t c = 0; c < a->columns; c++)
      if (x->min[c] != y->min[c] || x->max[c] != y->max[c])
        return "a counter's range in a column";
  }
  return NULL;
}

static const char *labels_differ(const mprof_cells_t *a,
                                 const mprof_cells_t *b) {
  if (a->label_count != b->label_count) return "the labels' count";
  for (size_t i = 0; i < a->label_count; i++) {
    const mprof_cell_label_t *x = &a->labels[i], *y = &b->labels[i];
    if (x->row != y->row || x->first != y->first || x->last != y->last ||
        strcmp(x->text, y->text))
      return "a label";
  }
  return NULL;
}

/* The first way a and b differ, or NULL. */
static const char *differs(const mprof_cells_t *a, const mprof_cells_t *b) {
  if (a->columns != b->columns || a->rows != b->rows || a->t0_ns != b->t0_ns ||
      a->t1_ns != b->t1_ns)
    return "the size or range";
  if (a->row_count != b->row_count || a->seen != b->seen ||
      a->events != b->events)
    return "row_count, seen or events";
  if (memcmp(a->cells, b->cells, (size_t)a->rows * a->columns)) return "a cell";
  if (memcmp(a->idle, b->idle, a->columns)) return "an idle column";
  if (memcmp(a->names, b->names, (size_t)a->rows * MPROF_CELLS_NAME))
    return "a row's name";
  const char *why = arrows_differ(a, b);
  if (!why) why = counters_differ(a, b);
  return why ? why : labels_differ(a, b);
}

static mprof_cells_t *stream(const mprof_trace_t *trace, int64_t t0, int64_t t1,
                             uint32_t columns, uint32_t rows) {
  mprof_cells_t *c;
  if (mprof_cells_new(t0, t1, columns, rows, &c)) return NULL;
  if (mprof_cells_stream(trace, c, NULL, NULL)) {
    mprof_cells_free(c);
    return NULL;
  }
  return c;
}

/* Each level against the pass at its width, and a frame of it. */
static int check_levels(const mprof_trace_t *trace, const mprof_pyramid_t *p,
                        int *ends) {
  char what[160];
  for (size_t k = 0; k < p->level_count; k++) {
    const mprof_cells_t *level = p->levels[k];
    mprof_cells_t *direct = stream(trace, level->t0_ns, level->t1_ns,
                                   level->columns, level->rows),
                  *frame;
    if (!direct) return fail("the pass at a level's width");
    for (size_t i = 0; i < (size_t)level->rows * level->columns; i++)
      *ends += MPROF_CELL_ENDS(level->cells[i]) > 0;
    const char *why = differs(level, direct);
    mprof_cells_free(direct);
    if (why) {
      snprintf(what, sizeof what, "level %zu (%u columns): %s", k,
               level->columns, why);
      return fail(what);
    }
    if (mprof_pyramid_frame(p, level->t0_ns, level->t1_ns, level->columns,
                            level->rows, &frame))
      return fail("a frame");
    why = differs(level, frame);
    mprof_cells_free(frame);
    if (why) {
      snprintf(what, sizeof what, "a frame of level %zu: %s", k, why);
      return fail(what);
    }
  }
  return 0;
}

/* Arrows kept, and cells marked as an end, in columns [from, to) of c. */
static void count_marks(const mprof_cells_t *c, uint32_t from, uint32_t to,
                        int *arrows, int *ends, int *lines) {
  *arrows = *ends = *lines = 0;
  for (uint32_t x = from; x < to; x++) {
    for (int k = 0; k < MPROF_CELLS_ARROWS; k++)
      *arrows +=
          c->arrows[x * MPROF_CELLS_ARROWS + k].kind != MPROF_ARROW_KIND_COUNT;
    for (uint32_t r = 0; r < c->rows; r++) {
      *ends += MPROF_CELL_ENDS(c->cells[r * c->columns + x]) > 0;
      *lines += (c->cells[r * c->columns + x] & MPROF_CELL_LOOK) != 0;
    }
  }
}

/* The finest level's middle columns [n, 2n) (n a quarter of them) in 4n
 * frame columns: each level column's arrows and end once, its look in
 * each of its 4. */
static int check_zoomed(const mprof_pyramid_t *p) {
  const mprof_cells_t *l = p->levels[0];
  uint32_t n = l->columns / 4;
  double width = (double)(l->t1_ns - l->t0_ns) / l->columns;
  int64_t t0 = l->t0_ns + (int64_t)ceil(width * n),
          t1 = l->t0_ns + (int64_t)floor(width * 2 * n);
  mprof_cells_t *f;
  if (mprof_pyramid_frame(p, t0, t1, 4 * n, l->rows, &f))
    return fail("a zoomed frame");
  int arrows, ends, lines, f_arrows, f_ends, f_lines;
  count_marks(l, n, 2 * n, &arrows, &ends, &lines);
  count_marks(f, 0, 4 * n, &f_arrows, &f_ends, &f_lines);
  mprof_cells_free(f);
  if (arrows != f_arrows || ends != f_ends || 4 * lines < f_lines - 8 ||
      4 * lines > f_lines + 8) {
    printf("FAIL: zoomed 4 times: %d arrows, %d ends, %d cells lined; the "
           "level's %d, %d, %d\n",
           f_arrows, f_ends, f_lines, arrows, ends, lines);
    return 1;
  }
  return 0;
}

/* Whether bytes are believed. */
static int believed(const uint8_t *data, size_t size, const uint8_t *key) {
  mprof_cells_t *c;
  const char *why;
  int err = mprof_pyramid_parse(data, size, key, &c, &why);
  mprof_cells_free(c);
  return !err;
}

static int check_bytes(const mprof_cells_t *finest) {
  uint8_t key[MPROF_PYRAMID_KEY] = {1, 2, 3}, other[MPROF_PYRAMID_KEY] = {1, 2};
  uint8_t *data;
  size_t size;
  if (mprof_pyramid_bytes(finest, key, &data, &size)) return fail("bytes");
  mprof_cells_t *back;
  const char *why = "";
  int err = mprof_pyramid_parse(data, size, key, &back, &why);
  if (err || differs(finest, back)) {
    printf("FAIL: read back: %s\n", err ? why : differs(finest, back));
    return 1;
  }
  mprof_cells_free(back);
  int bad = believed(data, size, other) || believed(data, size - 1, key) ||
            believed(data, 100, key);
  for (size_t at = 8; at < size && !bad; at += size / 7 + 1) {
    data[at] ^= 0x40;
    bad = believed(data, size, key);
    data[at] ^= 0x40;
  }
  free(data);
  return bad ? fail("a damaged, short or stale file believed") : 0;
}

/* A damaged file beside the trace is built again, and a good one left. */
static int check_rebuilt(const char *path, const mprof_trace_t *trace,
                         const mprof_index_t *index) {
  char file[4096];
  mprof_pyramid_t *p;
  int built;
  const char *why;
  if (mprof__view_pyramid_path(path, 0, file, sizeof file) ||
      mprof__view_pyramid_open(path, trace, index, NULL, NULL, &built, &why,
                               &p))
    return fail("open");
  mprof_pyramid_free(p);
  FILE *f = fopen(file, "r+b");
  if (!f || fseek(f, 200, SEEK_SET) || fputc(0x5a, f) == EOF || fclose(f))
    return fail("damage the file");
  if (mprof__view_pyramid_open(path, trace, index, NULL, NULL, &built, &why,
                               &p))
    return fail("open a damaged one");
  mprof_pyramid_free(p);
  if (!built || !why || strcmp(why, "damaged (checksum)")) {
    printf("FAIL: a damaged file: built %d, why %s\n", built,
           why ? why : "(none)");
    return 1;
  }
  if (mprof__view_pyramid_open(path, trace, index, NULL, NULL, &built, &why,
                               &p))
    return fail("open again");
  mprof_pyramid_free(p);
  return built ? fail("the file written again not believed") : 0;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: view_pyramid TRACE COLUMNS ROWS\n");
    return 2;
  }
  mprof_trace_t *trace;
  mprof_index_t *index;
  if (mprof_trace_open(argv[1], NULL, NULL, &trace) ||
      mprof_index_open(argv[1], trace, 0, NULL, NULL, &index))
    return fail("open the trace and its index");
  int64_t t0, t1;
  mprof__view_whole_range(index, &t0, &t1);
  mprof_cells_t *finest =
      stream(trace, t0, t1, (uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]));
  mprof_pyramid_t *p;
  if (!finest || mprof_pyramid_new(finest, 16, &p)) return fail("a pyramid");
  int ends = 0;
  int code = check_levels(trace, p, &ends);
  if (!code) code = check_zoomed(p);
  if (!code) code = check_bytes(p->levels[0]);
  if (!code) code = check_rebuilt(argv[1], trace, index);
  if (!code)
    printf("ok: %zu levels, %zu labels, %zu counters, %d ends\n",
           p->level_count, p->levels[0]->label_count,
           p->levels[0]->counter_count, ends);
  mprof_pyramid_free(p);
  mprof_index_free(index);
  mprof_trace_close(trace);
  return code;
}
