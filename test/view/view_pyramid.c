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
 * columns' arrows and ends once, and its lines as they are; a frame of a
 * level's range and width scrolled down to its middle row shown is that level
 * with the rows above empty and their labels left out.  Then the file: the
 * finest level written and read back equals itself; a copy damaged in any of a
 * few places, cut short, of another trace (its key), range or size, of a span
 * past INT64_MAX / 2, or with labels out of order or narrow is not believed;
 * mprof__view_pyramid_open() beside a file damaged, of another range or width,
 * saying a size it is not or no pyramid may take, or empty, builds the pyramid
 * again, says why, and leaves a good file; and a link at the temporary name a
 * write once went through is not followed, and a FIFO at the file's place is
 * neither read nor written.  Prints "ok ..." or one line saying what
 * differs, and exits 1.
 */
#define _GNU_SOURCE /* symlink, truncate, mkfifo, setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    if (mprof_pyramid_frame(p, level->t0_ns, level->t1_ns, level->columns, 0,
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

/* Whether n bytes are all 0. */
static int empty(const void *bytes, size_t n) {
  const uint8_t *b = bytes;
  return n == 0 || (b[0] == 0 && !memcmp(b, b + 1, n - 1));
}

/* The first way frame differs from level scrolled down to row first: its
 * rows above first empty, the rest and its labels there the level's, its
 * arrows and counters all the level's; or NULL. */
static const char *scrolled_differs(const mprof_cells_t *level,
                                    const mprof_cells_t *frame,
                                    uint32_t first) {
  size_t above = (size_t)first * level->columns,
         all = (size_t)level->rows * level->columns;
  if (frame->rows != level->rows || frame->columns != level->columns)
    return "the size";
  if (!empty(frame->cells, above) ||
      !empty(frame->names, (size_t)first * MPROF_CELLS_NAME))
    return "a row above the first filled";
  if (memcmp(frame->cells + above, level->cells + above, all - above))
    return "a cell from the first row on";
  if (memcmp(frame->names + (size_t)first * MPROF_CELLS_NAME,
             level->names + (size_t)first * MPROF_CELLS_NAME,
             (size_t)(level->rows - first) * MPROF_CELLS_NAME))
    return "a row's name from the first on";
  size_t k = 0;
  for (size_t i = 0; i < level->label_count; i++) {
    const mprof_cell_label_t *x = &level->labels[i];
    if (x->row < first) continue;
    if (k == frame->label_count || frame->labels[k].row != x->row ||
        frame->labels[k].first != x->first ||
        strcmp(frame->labels[k].text, x->text))
      return "a label from the first row on";
    k++;
  }
  if (k != frame->label_count) return "the labels' count";
  const char *why = arrows_differ(level, frame);
  return why ? why : counters_differ(level, frame);
}

/* Each level's own range and width, scrolled down to the middle of the
 * rows it shows. */
static int check_scrolled(const mprof_pyramid_t *p) {
  for (size_t k = 0; k < p->level_count; k++) {
    const mprof_cells_t *level = p->levels[k];
    uint32_t first =
        (level->row_count < level->rows ? level->row_count : level->rows) / 2;
    mprof_cells_t *frame;
    if (mprof_pyramid_frame(p, level->t0_ns, level->t1_ns, level->columns,
                            first, level->rows, &frame))
      return fail("a scrolled frame");
    const char *why = scrolled_differs(level, frame, first);
    mprof_cells_free(frame);
    if (why) {
      char what[160];
      snprintf(what, sizeof what, "level %zu scrolled to row %u: %s", k, first,
               why);
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
  if (mprof_pyramid_frame(p, t0, t1, 4 * n, 0, l->rows, &f))
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

static mprof_pyramid_shape_t shape_of(const mprof_cells_t *c) {
  return (mprof_pyramid_shape_t){c->t0_ns, c->t1_ns, c->columns, c->rows,
                                 c->counter_limit};
}

/* Why bytes are not believed as a file of shape, or NULL if they are. */
static const char *refusal(const uint8_t *data, size_t size, const uint8_t *key,
                           const mprof_pyramid_shape_t *shape) {
  mprof_cells_t *c;
  const char *why;
  int err = mprof_pyramid_parse(data, size, key, shape, &c, &why);
  mprof_cells_free(c);
  return err ? why : NULL;
}

/* Why c's bytes are not believed as a file of its own shape, or NULL. */
static const char *refusal_of(const mprof_cells_t *c) {
  uint8_t key[MPROF_PYRAMID_KEY] = {7}, *data;
  size_t size;
  mprof_pyramid_shape_t shape = shape_of(c);
  if (mprof_pyramid_bytes(c, key, &data, &size)) return "(no bytes)";
  const char *why = refusal(data, size, key, &shape);
  free(data);
  return why;
}

/* Whether bytes of key and shape are believed as one of another key,
 * range or size (each differing a little), or cut short. */
static int believed_otherwise(const uint8_t *data, size_t size,
                              const uint8_t *key, mprof_pyramid_shape_t shape) {
  uint8_t other[MPROF_PYRAMID_KEY] = {1, 2};
  mprof_pyramid_shape_t s[5] = {shape, shape, shape, shape, shape};
  s[0].t0_ns--, s[1].t1_ns++, s[2].columns--, s[3].rows++;
  s[4].counter_limit--;
  int believed = !refusal(data, size, other, &shape) ||
                 !refusal(data, size - 1, key, &shape) ||
                 !refusal(data, 100, key, &shape);
  for (int i = 0; i < 5; i++) believed |= !refusal(data, size, key, &s[i]);
  return believed;
}

static int check_bytes(const mprof_cells_t *finest) {
  uint8_t key[MPROF_PYRAMID_KEY] = {1, 2, 3};
  uint8_t *data;
  size_t size;
  mprof_pyramid_shape_t shape = shape_of(finest);
  if (mprof_pyramid_bytes(finest, key, &data, &size)) return fail("bytes");
  mprof_cells_t *back;
  const char *why = "";
  int err = mprof_pyramid_parse(data, size, key, &shape, &back, &why);
  if (err || differs(finest, back)) {
    printf("FAIL: read back: %s\n", err ? why : differs(finest, back));
    return 1;
  }
  mprof_cells_free(back);
  int bad = believed_otherwise(data, size, key, shape);
  for (size_t at = 8; at < size && !bad; at += size / 7 + 1) {
    data[at] ^= 0x40;
    bad = !refusal(data, size, key, &shape);
    data[at] ^= 0x40;
  }
  free(data);
  return bad ? fail("a damaged, short, stale or misshapen file believed") : 0;
}

/* A file whose range spans more than half the int64 range (a frame's sums
 * would overflow) is not believed, even of its own shape. */
static int check_range(void) {
  mprof_cells_t *c;
  const char *why;
  int64_t spans[][2] = {{INT64_MIN, INT64_MAX}, {-1, INT64_MAX / 2}};
  for (int i = 0; i < 2; i++) {
    if (mprof_cells_new(spans[i][0], spans[i][1], 4, 1, &c))
      return fail("cells");
    why = refusal_of(c);
    mprof_cells_free(c);
    if (!why || strcmp(why, "bad range")) {
      printf("FAIL: a span past INT64_MAX / 2: %s\n", why ? why : "believed");
      return 1;
    }
  }
  return 0;
}

/* Labels believed only in order (by row, then along it: lines may share
 * the column where one ends and the next starts) and wide enough. */
static int check_labels(void) {
  mprof_cells_t *c;
  if (mprof_cells_new(0, 64000, 64, 2, &c) ||
      mprof_cells_label(c, 1, 0, 63999, "c", 1) ||
      mprof_cells_label(c, 0, 31000, 63999, "b", 1) ||
      mprof_cells_label(c, 0, 0, 31999, "a", 1))
    return fail("labels");
  mprof_cells_end(c);
  const char *why = refusal_of(c), *swapped, *overlapping, *narrow;
  mprof_cell_label_t *l = c->labels, kept = l[0];
  l[0] = l[1], l[1] = kept;
  swapped = refusal_of(c);
  l[1] = l[0], l[0] = kept;
  l[1].first = l[0].last - 1;
  overlapping = refusal_of(c);
  l[1].first = l[1].last + 2 - MPROF_CELLS_LABEL_COLUMNS;
  narrow = refusal_of(c);
  mprof_cells_free(c);
  if (why || !swapped || strcmp(swapped, "labels out of order") ||
      !overlapping || strcmp(overlapping, "labels out of order") || !narrow ||
      strcmp(narrow, "bad label")) {
    printf("FAIL: labels in order: %s; swapped: %s; overlapping: %s; "
           "narrow: %s\n",
           why ? why : "believed", swapped ? swapped : "believed",
           overlapping ? overlapping : "believed",
           narrow ? narrow : "believed");
    return 1;
  }
  return 0;
}

/* The viewer's pyramid at file, opened for the trace: *built says whether
 * it was made again. */
static int open_pyramid(const char *path, const mprof_trace_t *trace,
                        const mprof_index_t *index, int *built,
                        const char **why) {
  mprof_pyramid_t *p;
  if (mprof__view_pyramid_open(path, trace, index, NULL, NULL, built, why, &p))
    return -1;
  mprof_pyramid_free(p);
  return 0;
}

/* Why the file is not believed by the viewer, or NULL. */
static const char *file_refusal(const char *file, const mprof_index_key_t *key,
                                const mprof_pyramid_shape_t *shape) {
  mprof_cells_t *c;
  const char *why;
  int err = mprof__view_pyramid_read(file, key, shape, &c, &why);
  mprof_cells_free(c);
  return err ? why : NULL;
}

/* The file made into one the viewer must not believe, for `why`: the
 * file is refused so, and opening the pyramid makes it again saying so,
 * and writes one it believes. */
static int check_made_again(const char *path, const mprof_trace_t *trace,
                            const mprof_index_t *index, const char *file,
                            const char *why) {
  mprof_index_key_t key;
  mprof_pyramid_shape_t shape = mprof__view_pyramid_shape(index);
  int built, again;
  const char *said, *said_again;
  if (mprof_index_key(path, trace, &key)) return fail("the trace's key");
  const char *refused = file_refusal(file, &key, &shape);
  if (open_pyramid(path, trace, index, &built, &said) ||
      open_pyramid(path, trace, index, &again, &said_again))
    return fail("open");
  if (!refused || strcmp(refused, why) || !built || !said ||
      strcmp(said, why) || again || said_again) {
    printf("FAIL: a file %s: refused as %s, made again %d saying %s, then "
           "%d\n",
           why, refused ? refused : "(believed)", built, said ? said : "-",
           again);
    return 1;
  }
  return 0;
}

/* Write a blank summary of the viewer's shape for the trace but for its
 * range's start and its columns. */
static int write_blank(const char *path, const mprof_trace_t *trace,
                       const mprof_index_t *index, const char *file,
                       int64_t t0_shift, uint32_t columns_less) {
  mprof_index_key_t key;
  mprof_pyramid_shape_t s = mprof__view_pyramid_shape(index);
  mprof_cells_t *c;
  if (mprof_index_key(path, trace, &key) ||
      mprof_cells_new(s.t0_ns - t0_shift, s.t1_ns, s.columns - columns_less,
                      s.rows, &c))
    return -1;
  c->counter_limit = s.counter_limit;
  int err = mprof__view_pyramid_write(c, &key, file);
  mprof_cells_free(c);
  return err;
}

/* The file's header made to say it has `size` bytes. */
static int write_said(const char *file, uint64_t size) {
  uint8_t said[8];
  for (int i = 0; i < 8; i++) said[i] = (uint8_t)(size >> 8 * i);
  FILE *f = fopen(file, "r+b");
  return !f || fseek(f, 56, SEEK_SET) || fwrite(said, 1, 8, f) != 8 ||
         fclose(f);
}

/* A file at the name a write once went through (the file's name, the
 * pid, ".tmp") that is a link is not followed: what it names is kept. */
static int check_link_kept(const char *path, const mprof_trace_t *trace,
                           const mprof_index_t *index, const char *file) {
  char temp[4200], victim[4200], text[16] = "";
  snprintf(temp, sizeof temp, "%s.%ld.tmp", file, (long)getpid());
  snprintf(victim, sizeof victim, "%s.victim", file);
  FILE *f = fopen(victim, "w");
  if (!f || fputs("kept", f) == EOF || fclose(f) || symlink(victim, temp))
    return fail("a link at the temporary name");
  int err = write_blank(path, trace, index, file, 0, 0);
  f = fopen(victim, "r");
  if (!f || !fgets(text, sizeof text, f) || fclose(f)) text[0] = 0;
  unlink(temp);
  unlink(victim);
  if (err || strcmp(text, "kept")) {
    printf("FAIL: a write through a link: %d, what it names holds '%s'\n", err,
           text);
    return 1;
  }
  return 0;
}

/* A FIFO at the file's place is neither read nor written (opening it to
 * write would wait for a reader): the pyramid is made and the FIFO left. */
static int check_fifo_left(const char *path, const mprof_trace_t *trace,
                           const mprof_index_t *index, const char *file) {
  char cache[4200];
  int built;
  const char *why;
  struct stat st;
  snprintf(cache, sizeof cache, "%s.no-cache", file);
  if (unlink(file) || mkfifo(file, 0600) || setenv("XDG_CACHE_HOME", cache, 1))
    return fail("a FIFO at the file's place");
  alarm(60); /* a write that waits on the FIFO ends the test */
  int err = open_pyramid(path, trace, index, &built, &why);
  alarm(0);
  int fifo = !stat(file, &st) && S_ISFIFO(st.st_mode);
  unlink(file);
  if (err || !built || !why || strcmp(why, "not a regular file") || !fifo) {
    printf("FAIL: a FIFO at the file's place: %d, made %d, %s, left %d\n", err,
           built, why ? why : "-", fifo);
    return 1;
  }
  return 0;
}

static int damage(const char *file) {
  FILE *f = fopen(file, "r+b");
  return !f || fseek(f, 200, SEEK_SET) || fputc(0x5a, f) == EOF || fclose(f);
}

/* A file beside the trace that is damaged, of another range or size, says
 * it is bigger than one can be, is longer or shorter than it says, or is empty,
 * is made again, and a good one left; a link at the old temporary name is not
 * followed. */
static int check_rebuilt(const char *path, const mprof_trace_t *trace,
                         const mprof_index_t *index) {
  char file[4096];
  int built;
  const char *why;
  if (mprof__view_pyramid_path(path, 0, file, sizeof file) ||
      open_pyramid(path, trace, index, &built, &why))
    return fail("open");
  if (damage(file)) return fail("damage the file");
  int code = check_made_again(path, trace, index, file, "damaged (checksum)");
  if (!code && write_blank(path, trace, index, file, 1000, 0))
    return fail("write a file of another range");
  if (!code)
    code = check_made_again(path, trace, index, file, "of another range");
  if (!code && write_blank(path, trace, index, file, 0, 1))
    return fail("write a file of odd columns");
  if (!code)
    code = check_made_again(path, trace, index, file, "of another size");
  if (!code &&
      (write_said(file, (uint64_t)1 << 32) || truncate(file, (off_t)1 << 32)))
    return fail("grow the file");
  if (!code) code = check_made_again(path, trace, index, file, "bad size");
  struct stat st;
  if (!code && (stat(file, &st) || truncate(file, st.st_size + 8)))
    return fail("lengthen the file");
  if (!code) code = check_made_again(path, trace, index, file, "truncated");
  if (!code && (stat(file, &st) || write_said(file, (uint64_t)st.st_size + 8)))
    return fail("make the file say it is longer");
  if (!code) code = check_made_again(path, trace, index, file, "truncated");
  if (!code && truncate(file, 0)) return fail("empty the file");
  if (!code) code = check_made_again(path, trace, index, file, "truncated");
  if (!code) code = check_link_kept(path, trace, index, file);
  return code ? code : check_fifo_left(path, trace, index, file);
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
  if (!code) code = check_scrolled(p);
  if (!code) code = check_bytes(p->levels[0]);
  if (!code) code = check_range();
  if (!code) code = check_labels();
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
