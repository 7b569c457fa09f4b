/* cells.c -- the display list of a trace's summary (cells.h): per row,
 * runs of pixel columns of one look become one line or rectangle, drawn
 * as scene.c draws a model's threads, running spans, bands, arrows and
 * counter graphs.  A cell where lines of several colours fall shows the
 * one a reader looks for first: never resolved, then failed, then a
 * thread's.  The counters' strips take their room at the bottom, and the
 * rows that no longer fit above them fold into the last one that does
 * (cells merge by OR). */
#include <stdlib.h>
#include <string.h>

#include "cells.h"
#include "scene_internal.h"

_Static_assert(MPROF_CELLS_LABEL_COLUMNS == MPROF_SCENE_LABEL_MIN_PX,
               "a label where the scene draws one");

/* Alpha of an idle band (scene.c's). */
#define BAND_ALPHA 0.6f

uint32_t mprof_scene_cells_columns(uint32_t width_px) {
  uint32_t names = mprof__scene_names_px((int)width_px);
  return width_px > names ? width_px - names : 1;
}

uint32_t mprof_scene_cells_first_row(uint32_t scroll_px) {
  return scroll_px / MPROF_SCENE_ROW_PX;
}

uint32_t mprof_scene_cells_rows_to(uint32_t height_px, uint32_t scroll_px) {
  uint32_t first = mprof_scene_cells_first_row(scroll_px);
  uint32_t end =
      height_px > MPROF_SCENE_AXIS_PX
          ? (height_px - MPROF_SCENE_AXIS_PX + scroll_px) / MPROF_SCENE_ROW_PX
          : 0;
  return end > first ? end : first + 1;
}

uint32_t mprof_scene_cells_rows(uint32_t height_px) {
  return mprof_scene_cells_rows_to(height_px, 0);
}

mprof_viewport_t mprof_scene_cells_viewport(const mprof_cells_t *cells,
                                            uint32_t width_px,
                                            uint32_t height_px,
                                            uint32_t scroll_px) {
  mprof_viewport_t vp = {cells->t0_ns,
                         cells->t1_ns,
                         width_px,
                         height_px,
                         scroll_px,
                         MPROF_SCENE_ROW_PX,
                         mprof__scene_names_px((int)width_px)};
  return vp;
}

/* x of column c's left edge. */
static float column_x(const frame_t *f, uint32_t c) {
  return (float)(f->vp->names_px + c);
}

static void draw_idle(frame_t *f, const mprof_cells_t *cells) {
  for (uint32_t c = 0, end; c < cells->columns; c = end) {
    for (end = c + 1;
         end < cells->columns && cells->idle[end] == cells->idle[c];)
      end++;
    if (!cells->idle[c]) continue;
    mprof_prim_t *p = mprof__scene_rect(
        f, MPROF_COLOUR_IDLE, MPROF_ROLE_BAND, column_x(f, c),
        MPROF_SCENE_AXIS_PX, column_x(f, end), (float)f->rows_bottom);
    if (p) p->alpha = BAND_ALPHA;
  }
}

/* The colour of a cell's line, or MPROF_COLOUR_BACKGROUND for none. */
static mprof_colour_t line_colour(uint8_t cell) {
  return cell & MPROF_CELL_STALLED  ? MPROF_COLOUR_STALLED
         : cell & MPROF_CELL_FAILED ? MPROF_COLOUR_FAILED
         : cell & MPROF_CELL_LINE   ? MPROF_COLOUR_THREAD
                                    : MPROF_COLOUR_BACKGROUND;
}

static void draw_lines(frame_t *f, const uint8_t *cells, uint32_t columns,
                       float y) {
  for (uint32_t c = 0, end; c < columns; c = end) {
    mprof_colour_t colour = line_colour(cells[c]);
    for (end = c + 1; end < columns && line_colour(cells[end]) == colour;)
      end++;
    if (colour != MPROF_COLOUR_BACKGROUND)
      mprof__scene_line(f, colour, MPROF_ROLE_THREAD, column_x(f, c), y,
                        column_x(f, end), y,
                        colour == MPROF_COLOUR_THREAD ? 1 : 2, MPROF_NO_THREAD);
  }
}

/* A failed or stalled thread's end: a bar across its row, as scene.c's
 * failure_mark() draws one (its text is left out). */
static void draw_ends(frame_t *f, const uint8_t *cells, uint32_t columns,
                      float y) {
  float h = f->vp->row_height_px / 2.0f;
  for (uint32_t c = 0; c < columns; c++)
    if (MPROF_CELL_ENDS(cells[c]))
      mprof__scene_line(f, line_colour(cells[c]), MPROF_ROLE_FAILURE,
                        column_x(f, c + 1), y - h + 1, column_x(f, c + 1),
                        y + h - 1, 2, MPROF_NO_THREAD);
}

static void draw_running(frame_t *f, const uint8_t *cells, uint32_t columns,
                         float y) {
  for (uint32_t c = 0, end; c < columns; c = end) {
    int running = cells[c] & MPROF_CELL_RUNNING;
    for (end = c + 1;
         end < columns && (cells[end] & MPROF_CELL_RUNNING) == running;)
      end++;
    if (running)
      mprof__scene_rect(f, MPROF_COLOUR_RUNNING, MPROF_ROLE_RUNNING,
                        column_x(f, c), y - 1, column_x(f, end), y + 2);
  }
}

/* The rows of cells shown above the counters' strips, [first, end): from
 * the one the scroll puts at the top (its rows above are empty: see
 * mprof_pyramid_frame()) down to the last that fits whole, at most the
 * summary's own.  None (first >= end) where no row fits. */
typedef struct shown_s {
  uint32_t first, end;
} shown_t;

static shown_t rows_shown(const frame_t *f, const mprof_cells_t *cells) {
  uint32_t rh = f->vp->row_height_px;
  double room = (f->rows_bottom - MPROF_SCENE_AXIS_PX + f->vp->scroll_px) / rh;
  shown_t s = {f->vp->scroll_px / rh, room > 0 ? (uint32_t)room : 0};
  if (s.end > cells->rows) s.end = cells->rows;
  if (s.end > cells->row_count) s.end = cells->row_count;
  return s;
}

/* Row r's cells into out, the rows below it OR'ed in if it is the last
 * shown. */
static void row_cells(const mprof_cells_t *cells, uint32_t r, shown_t shown,
                      uint8_t *out) {
  memcpy(out, cells->cells + (size_t)r * cells->columns, cells->columns);
  for (uint32_t below = r + 1; r + 1 == shown.end && below < cells->rows;
       below++)
    for (uint32_t x = 0; x < cells->columns; x++)
      out[x] |= cells->cells[(size_t)below * cells->columns + x];
}

/* The names on the lines of the rows shown but a folded last one, as
 * scene.c's thread_label() draws them (labels come by row). */
static void draw_labels(frame_t *f, const mprof_cells_t *cells, shown_t shown) {
  uint32_t last = cells->row_count > shown.end ? shown.end - 1 : shown.end;
  if (f->vp->row_height_px < 8) return;
  for (size_t k = 0; k < cells->label_count && cells->labels[k].row < last;
       k++) {
    const mprof_cell_label_t *l = &cells->labels[k];
    if (l->row < shown.first) continue;
    float x0 = column_x(f, l->first), x1 = column_x(f, l->last + 1);
    mprof__scene_text(f, MPROF_COLOUR_TEXT, MPROF_ROLE_LABEL, x0 + 2,
                      (float)mprof_scene_row_y(f->vp, l->row) - 2, x1 - x0 - 2,
                      l->text, MPROF_NO_THREAD);
  }
}

static int draw_rows(frame_t *f, const mprof_cells_t *cells, shown_t shown) {
  uint8_t *row = malloc(cells->columns);
  if (!row) return MPROF_ENOMEM;
  for (uint32_t r = shown.first; r < shown.end; r++) {
    float y = (float)mprof_scene_row_y(f->vp, r);
    row_cells(cells, r, shown, row);
    draw_lines(f, row, cells->columns, y);
    draw_ends(f, row, cells->columns, y);
    draw_running(f, row, cells->columns, y);
  }
  free(row);
  return 0;
}

/* The y of a row of the summary: the last shown for those folded (one
 * above the first shown is above the rows' part). */
static float row_y(const frame_t *f, uint32_t row, shown_t shown) {
  return (float)mprof_scene_row_y(f->vp, row < shown.end ? row : shown.end - 1);
}

static void draw_arrows(frame_t *f, const mprof_cells_t *cells, shown_t shown) {
  size_t n = (size_t)cells->columns * MPROF_CELLS_ARROWS;
  for (size_t k = 0; k < n; k++) {
    const mprof_cell_arrow_t *a = &cells->arrows[k];
    if (a->kind < MPROF_ARROW_KIND_COUNT)
      mprof__scene_arrow(
          f, a->kind, (uint32_t)k, mprof__scene_clamp_x(f, a->from_ns),
          row_y(f, a->from_row, shown), mprof__scene_clamp_x(f, a->to_ns),
          row_y(f, a->to_row, shown), 1);
  }
}

/* "N rows folded" for the last row, which holds those from it on. */
static void folded_name(uint32_t folded, char *buf) {
  char digits[12];
  int d = 0;
  do digits[d++] = (char)('0' + folded % 10);
  while ((folded /= 10) && d < (int)sizeof digits);
  const char *rest = " rows folded";
  size_t n = 0;
  while (d > 0) buf[n++] = digits[--d];
  while (*rest) buf[n++] = *rest++;
  buf[n] = 0;
}

/* Each shown row's name, where the row is whole (as scene.c names a
 * model's). */
static void draw_names(frame_t *f, const mprof_cells_t *cells, shown_t shown) {
  if (!mprof__scene_name_column(f)) return;
  for (uint32_t r = shown.first; r < shown.end; r++) {
    float y = (float)mprof_scene_row_y(f->vp, r);
    int folds = r + 1 == shown.end && cells->row_count > shown.end;
    char folded[32];
    if (!mprof__scene_row_whole(f, y)) continue; /* cut by the axis */
    if (folds) folded_name(cells->row_count - r, folded);
    mprof__scene_row_name(
        f, y, folds ? folded : cells->names + (size_t)r * MPROF_CELLS_NAME,
        MPROF_NO_THREAD);
  }
}

/* Each counter's strip, on the scale of those that share it (as
 * mprof_scene_widen_scale() gives a model's). */
static void draw_counters(frame_t *f, const mprof_cells_t *cells) {
  float top = (float)f->rows_bottom;
  for (size_t k = 0; k < cells->counter_count; k++) {
    const mprof_cell_counter_t *c = &cells->counters[k];
    int64_t lo = 0, hi = 0;
    for (size_t o = 0; o < cells->counter_count; o++)
      if (mprof__scene_same_scale(c->name, cells->counters[o].name)) {
        if (cells->counters[o].min_value < lo)
          lo = cells->counters[o].min_value;
        if (cells->counters[o].max_value > hi)
          hi = cells->counters[o].max_value;
      }
    mprof__scene_counter(f, (uint32_t)k, c->name, c->min, c->max, lo, hi, top);
    top += MPROF_SCENE_COUNTER_PX;
  }
}

int mprof_scene_build_cells(mprof_scene_t *scene, const mprof_cells_t *cells,
                            const mprof_viewport_t *vp) {
  frame_t f;
  if (vp->t0_ns != cells->t0_ns || vp->t1_ns != cells->t1_ns ||
      vp->width_px != vp->names_px + cells->columns)
    return MPROF_EINVAL;
  int err = mprof__scene_begin(&f, scene, vp);
  if (err) return err;
  f.rows_bottom -= (double)cells->counter_count * MPROF_SCENE_COUNTER_PX;
  shown_t shown = rows_shown(&f, cells);
  int any = shown.first < shown.end;
  draw_idle(&f, cells);
  mprof__scene_axis(&f);
  if (any && (err = draw_rows(&f, cells, shown))) return err;
  if (any) draw_labels(&f, cells, shown);
  if (any) draw_arrows(&f, cells, shown);
  if (any) draw_names(&f, cells, shown);
  draw_counters(&f, cells);
  return mprof__scene_end(scene);
}

size_t mprof_scene_cells_legend(const mprof_cells_t *cells,
                                mprof_colour_t *out) {
  static const struct {
    uint32_t seen;
    mprof_colour_t colour;
  } kinds[] = {{MPROF_SEEN_THREAD, MPROF_COLOUR_THREAD},
               {MPROF_SEEN_RUNNING, MPROF_COLOUR_RUNNING},
               {MPROF_SEEN_FAILED, MPROF_COLOUR_FAILED},
               {MPROF_SEEN_STALLED, MPROF_COLOUR_STALLED},
               {MPROF_SEEN_IDLE, MPROF_COLOUR_IDLE}};
  uint8_t present[MPROF_COLOUR_COUNT] = {0};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    present[kinds[k].colour] = (cells->seen & kinds[k].seen) != 0;
  present[MPROF_COLOUR_COUNTER] = cells->counter_count > 0;
  for (uint32_t a = 0; a < MPROF_ARROW_KIND_COUNT; a++)
    present[MPROF_COLOUR_ARROW + a] =
        (cells->seen >> (MPROF_SEEN_ARROW_SHIFT + a)) & 1;
  size_t n = 0;
  for (int c = 0; c < MPROF_COLOUR_COUNT; c++)
    if (present[c]) out[n++] = (mprof_colour_t)c;
  return n;
}
