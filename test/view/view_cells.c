/* view_cells.c -- the summary of a trace too big to model
 * (src/model/scene_stream.h) against an oracle, and its picture.
 *
 *   view_cells TRACE W H OUT.png
 *
 * The streaming pass's summary of TRACE, for a W x H picture, must equal
 * the one computed here from TRACE's whole model with the same online
 * rules (each thread, in the order the model numbers them, takes the first
 * row free at its start from the one below its creator, or its creator's
 * own if that ended; a row is free after its thread's end, never for a
 * thread that does not end; lines, running spans, idle bands and the
 * first arrows of each pixel column from the model's own arrays), and its
 * counters' ranges per column those the scene asks of the model.  Then
 * the picture of the summary is written to OUT.png and read back: a
 * running thread's pixels are the running colour in its row, the legend's
 * swatches are the colours the model's legend lists, and the axis and the
 * name column hold text.  Prints "ok ..." or one line saying what
 * differs, and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/scene/cells.h"
#include "view.h"

static int fail(const char *what) {
  printf("FAIL: %s\n", what);
  return 1;
}

/* --- The oracle ----------------------------------------------------------- */

/* When thread t's row is free again for the online layout: its end, or
 * never if it does not end (pending or stalled: settled only at the end
 * of the trace). */
static int64_t online_end(const mprof_thread_t *t) {
  if (t->ending == MPROF_ENDING_PENDING ||
      (t->ending == MPROF_ENDING_FAILED && t->flags & MPROF_THREAD_STALLED))
    return INT64_MAX;
  return t->end_ns;
}

/* Rows of the online rule, by a plain scan of every row. */
static uint32_t *oracle_rows(const mprof_model_view_t *v, uint32_t *row_count) {
  uint32_t *rows = calloc(v->thread_count, sizeof *rows);
  int64_t *busy = malloc(v->thread_count * sizeof *busy);
  *row_count = 0;
  for (size_t i = 1; rows && busy && i < v->thread_count; i++) {
    const mprof_thread_t *t = &v->threads[i], *c = &v->threads[t->creator];
    uint32_t want = t->creator == MPROF_ROOT_THREAD ? 0
                    : online_end(c) <= t->start_ns  ? rows[t->creator]
                                                    : rows[t->creator] + 1;
    uint32_t r = want;
    while (r < *row_count && busy[r] >= t->start_ns) r++;
    for (; *row_count <= r; ++*row_count) busy[*row_count] = INT64_MIN;
    busy[r] = online_end(t);
    rows[i] = r;
  }
  free(busy);
  return rows;
}

static uint8_t line_bits(const mprof_thread_t *t, uint32_t *seen) {
  if (t->ending != MPROF_ENDING_FAILED) {
    *seen |= MPROF_SEEN_THREAD;
    return MPROF_CELL_LINE;
  }
  int stalled = t->flags & MPROF_THREAD_STALLED;
  *seen |= stalled ? MPROF_SEEN_STALLED : MPROF_SEEN_FAILED;
  return MPROF_CELL_LINE | (stalled ? MPROF_CELL_STALLED : MPROF_CELL_FAILED);
}

/* Returns 0, or -1 if memory ran out. */
static int oracle_threads(const mprof_model_t *m, const uint32_t *rows,
                          mprof_cells_t *c) {
  const mprof_model_view_t *v = mprof_model_view(m);
  for (size_t i = 1; i < v->thread_count; i++) {
    const mprof_thread_t *t = &v->threads[i];
    mprof_cells_line(c, rows[i], t->start_ns, t->end_ns,
                     line_bits(t, &c->seen));
    char name[256];
    mprof_model_thread_name(m, (uint32_t)i, name, sizeof name);
    if (rows[i] < c->rows) mprof_cells_name(c, rows[i], name, strlen(name), 0);
    if (mprof_cells_label(c, rows[i], t->start_ns, t->end_ns, name,
                          strlen(name)))
      return -1;
  }
  for (size_t i = 0; i < v->running_count; i++) {
    mprof_span_t s = mprof_running_at(v, i);
    mprof_cells_mark(c, rows[s.thread], s.start_ns, s.end_ns,
                     MPROF_CELL_RUNNING);
    c->seen |= MPROF_SEEN_RUNNING;
  }
  return 0;
}

static void oracle_arrows(const mprof_model_t *m, const uint32_t *rows,
                          mprof_cells_t *c) {
  const mprof_model_view_t *v = mprof_model_view(m);
  for (size_t i = 0; i < v->arrow_count; i++) {
    mprof_arrow_t a = mprof_arrow_at(v, i);
    if (a.from == a.to || a.from == MPROF_ROOT_THREAD) continue;
    int64_t from_ns, to_ns;
    mprof_model_arrow_ends(m, &a, &from_ns, &to_ns);
    mprof_cells_arrow(c, a.kind, rows[a.from], rows[a.to], from_ns, to_ns,
                      a.time_ns);
  }
}

/* The summary of m's whole model with the online rules, in the geometry
 * of like.  NULL if memory ran out. */
static mprof_cells_t *oracle(const mprof_model_t *m,
                             const mprof_cells_t *like) {
  const mprof_model_view_t *v = mprof_model_view(m);
  mprof_cells_t *c;
  if (mprof_cells_new(like->t0_ns, like->t1_ns, like->columns, like->rows, &c))
    return NULL;
  uint32_t *rows = oracle_rows(v, &c->row_count);
  if (!rows) {
    mprof_cells_free(c);
    return NULL;
  }
  if (oracle_threads(m, rows, c)) {
    free(rows);
    mprof_cells_free(c);
    return NULL;
  }
  for (size_t i = 0; i < v->band_count; i++) {
    mprof_band_t b = mprof_band_at(v, i);
    mprof_cells_idle(c, b.span.start_ns, b.span.end_ns);
  }
  oracle_arrows(m, rows, c);
  c->events = v->events;
  free(rows);
  return c;
}

/* The first way a and b differ, or NULL. */
static const char *differs(const mprof_cells_t *a, const mprof_cells_t *b) {
  size_t cells = (size_t)a->rows * a->columns;
  size_t arrows = (size_t)a->columns * MPROF_CELLS_ARROWS;
  if (a->row_count != b->row_count) return "row count";
  for (size_t k = 0; k < cells; k++)
    if (a->cells[k] != b->cells[k]) {
      static char where[64];
      snprintf(where, sizeof where, "cells: row %zu column %zu: %d, not %d",
               k / a->columns, k % a->columns, a->cells[k], b->cells[k]);
      return where;
    }
  if (memcmp(a->idle, b->idle, a->columns)) return "idle bands";
  for (size_t k = 0; k < arrows; k++)
    if (a->arrows[k].kind != b->arrows[k].kind ||
        a->arrows[k].from_ns != b->arrows[k].from_ns ||
        a->arrows[k].to_ns != b->arrows[k].to_ns ||
        a->arrows[k].from_row != b->arrows[k].from_row ||
        a->arrows[k].to_row != b->arrows[k].to_row)
      return "arrows";
  for (size_t r = 0; r < a->rows; r++)
    if (strcmp(a->names + r * MPROF_CELLS_NAME,
               b->names + r * MPROF_CELLS_NAME)) {
      static char name[3 * MPROF_CELLS_NAME];
      snprintf(name, sizeof name, "row %zu's name: '%s', not '%s'", r,
               a->names + r * MPROF_CELLS_NAME,
               b->names + r * MPROF_CELLS_NAME);
      return name;
    }
  if (a->seen != b->seen) return "what the legend lists";
  if (a->events != b->events) return "events";
  return NULL;
}

/* The first way the counters of c differ from m's (by name, their
 * values' range, per column as the scene asks m), or NULL. */
static const char *counters_differ(const mprof_cells_t *c,
                                   const mprof_model_t *m) {
  const mprof_model_view_t *v = mprof_model_view(m);
  int64_t *min = malloc(c->columns * sizeof *min);
  int64_t *max = malloc(c->columns * sizeof *max);
  const char *what = v->counter_count != c->counter_count ? "counters" : NULL;
  for (uint32_t k = 0; !what && k < c->counter_count; k++) {
    const mprof_cell_counter_t *mine = &c->counters[k];
    const mprof_counter_series_t *its = &v->counters[k];
    char name[MPROF_CELLS_NAME];
    snprintf(name, sizeof name, "%s", v->strings + its->name);
    if (strcmp(name, mine->name))
      what = "a counter's name";
    else if (mine->min_value != its->min_value ||
             mine->max_value != its->max_value)
      what = "a counter's range";
    else if (mprof_model_counter_range(m, k, c->t0_ns, c->t1_ns, c->columns,
                                       min, max) ||
             memcmp(min, mine->min, c->columns * sizeof *min) ||
             memcmp(max, mine->max, c->columns * sizeof *max))
      what = "a counter's columns";
  }
  free(min);
  free(max);
  return what;
}

/* --- The picture ---------------------------------------------------------- */

static uint32_t pixel(cairo_surface_t *s, int x, int y) {
  const unsigned char *data = cairo_image_surface_get_data(s);
  return *(const uint32_t *)(const void *)(data +
                                           y * cairo_image_surface_get_stride(
                                                   s) +
                                           4 * x) &
         0xffffff;
}

/* Is an arrow kept within a column of column x (drawn, antialiased, over
 * what runs there)? */
static int near_arrow(const mprof_cells_t *c, uint32_t x) {
  for (uint32_t col = x < 1 ? 0 : x - 1; col <= x + 1 && col < c->columns;
       col++)
    for (int k = 0; k < MPROF_CELLS_ARROWS; k++)
      if (c->arrows[col * MPROF_CELLS_ARROWS + k].kind !=
          MPROF_ARROW_KIND_COUNT)
        return 1;
  return 0;
}

/* Of the running cells of the rows clear of arrows (a story's short runs
 * start where an arrow woke them: there an arrow may cover the whole
 * span), how many are the running colour in the picture (in the three
 * pixels of its span's height), of how many; *cells: the running cells,
 * arrows or not. */
static void running_pixels(cairo_surface_t *png, const mprof_cells_t *c,
                           const mprof_viewport_t *vp, int *teal, int *all,
                           int *cells) {
  uint32_t rgb = mprof_scene_palette[MPROF_COLOUR_RUNNING].rgb;
  *teal = *all = *cells = 0;
  for (uint32_t r = 0; r < c->rows && r < c->row_count; r++)
    for (uint32_t x = 0; x < c->columns; x++) {
      if (!(c->cells[r * c->columns + x] & MPROF_CELL_RUNNING)) continue;
      ++*cells;
      if (near_arrow(c, x)) continue;
      int y = (int)mprof_scene_row_y(vp, r), found = 0;
      for (int dy = -1; dy <= 1; dy++)
        found |= pixel(png, (int)(vp->names_px + x), y + dy) == rgb;
      ++*all;
      *teal += found;
    }
}

/* Of the ends of failed or stalled threads, how many show a bar of their
 * colour across the row (4 px above its line), of how many. */
static void end_pixels(cairo_surface_t *png, const mprof_cells_t *c,
                       const mprof_viewport_t *vp, int *bars, int *all) {
  *bars = *all = 0;
  for (uint32_t r = 0; r < c->rows && r < c->row_count; r++)
    for (uint32_t x = 0; x < c->columns; x++) {
      uint8_t cell = c->cells[r * c->columns + x];
      if (!MPROF_CELL_ENDS(cell)) continue;
      mprof_colour_t colour = cell & MPROF_CELL_STALLED ? MPROF_COLOUR_STALLED
                                                        : MPROF_COLOUR_FAILED;
      ++*all;
      *bars += pixel(png, (int)(vp->names_px + x),
                     (int)mprof_scene_row_y(vp, r) - 4) ==
               mprof_scene_palette[colour].rgb;
    }
}

/* Dark pixels of a rectangle (text: grey or black, antialiased). */
static int dark(cairo_surface_t *png, int x0, int y0, int x1, int y1) {
  int n = 0;
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++) {
      uint32_t rgb = pixel(png, x, y);
      n += (rgb >> 16) < 0x90 && (rgb >> 8 & 255) < 0x90 && (rgb & 255) < 0x90;
    }
  return n;
}

static int check_picture(const char *path, const mprof_cells_t *c,
                         const mprof_model_t *m, int w, int h) {
  mprof_viewport_t vp =
      mprof_scene_cells_viewport(c, (uint32_t)w, (uint32_t)h, 0);
  if (mprof__view_png_cells(c, w, h, path)) return fail("png not written");
  cairo_surface_t *png = cairo_image_surface_create_from_png(path);
  if (cairo_image_surface_get_width(png) != w ||
      cairo_image_surface_get_height(png) != h + MPROF_VIEW_LEGEND_PX)
    return fail("png size");
  int teal, all, cells;
  running_pixels(png, c, &vp, &teal, &all, &cells);
  /* away from arrows, labels may still cross a span: nine in ten show */
  if (cells == 0 || 10 * teal < 9 * all) return fail("running not drawn");
  int bars, ends;
  end_pixels(png, c, &vp, &bars, &ends);
  if (2 * bars < ends) return fail("failures' ends not marked");
  /* the legend: its first swatch, then the model's own legend */
  mprof_colour_t mine[MPROF_COLOUR_COUNT], model[MPROF_COLOUR_COUNT];
  size_t n = mprof_scene_cells_legend(c, mine),
         k = mprof_scene_legend(m, model);
  if (n != k || memcmp(mine, model, n * sizeof *mine))
    return fail("legend not the model's");
  if (pixel(png, 10, h + MPROF_VIEW_LEGEND_PX / 2) !=
      mprof_scene_palette[mine[0]].rgb)
    return fail("legend's first swatch");
  /* text in the axis strip and in the name column's first row */
  if (dark(png, (int)vp.names_px, 0, w, MPROF_SCENE_AXIS_PX - 6) < 20)
    return fail("no times on the axis");
  if (dark(png, 0, MPROF_SCENE_AXIS_PX, (int)vp.names_px - 2,
           MPROF_SCENE_AXIS_PX + MPROF_SCENE_ROW_PX) < 10)
    return fail("no name in the first row");
  /* the widest named line (a narrow one may show only an ellipsis): text
   * just above it */
  const mprof_cell_label_t *wide = NULL;
  for (size_t k = 0; k < c->label_count; k++)
    if (!wide ||
        c->labels[k].last - c->labels[k].first > wide->last - wide->first)
      wide = &c->labels[k];
  if (wide && wide->last - wide->first >= 40) {
    int y = (int)mprof_scene_row_y(&vp, wide->row);
    if (dark(png, (int)(vp.names_px + wide->first), y - 10,
             (int)(vp.names_px + wide->last), y - 2) < 10)
      return fail("no name on the widest named line");
  }
  cairo_surface_destroy(png);
  printf("ok: %d of %d running pixels, %d of %d ends, %zu legend entries\n",
         teal, all, bars, ends, n);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: view_cells TRACE W H OUT.png\n");
    return 2;
  }
  int w = atoi(argv[2]), h = atoi(argv[3]);
  mprof_trace_t *trace;
  mprof_model_t *model;
  if (mprof_trace_open(argv[1], NULL, NULL, &trace) ||
      mprof_model_load(trace, &model))
    return fail("trace not read");
  const mprof_model_view_t *v = mprof_model_view(model);
  for (size_t i = 1; i < v->thread_count; i++)
    if (v->threads[i].flags & MPROF_THREAD_PREEXISTING)
      return fail("a thread from before the trace: no first time to place");
  mprof_cells_t *streamed, *expected = NULL;
  int64_t end = v->duration_ns + 1, margin = end / 50;
  if (mprof_cells_new(-margin, end + margin, mprof_scene_cells_columns(w),
                      mprof_scene_cells_rows(h), &streamed) ||
      mprof_cells_stream(trace, streamed, NULL, NULL) ||
      !(expected = oracle(model, streamed)))
    return fail("no summary");
  const char *what = differs(streamed, expected);
  if (!what) what = counters_differ(streamed, model);
  if (what) {
    printf("FAIL: the streamed summary differs from the model's: %s\n", what);
    return 1;
  }
  printf("ok: %u rows (%u shown), %llu events, the model's summary\n",
         streamed->row_count, streamed->rows,
         (unsigned long long)streamed->events);
  int err = check_picture(argv[4], streamed, model, w, h);
  mprof_cells_free(streamed);
  mprof_cells_free(expected);
  mprof_model_free(model);
  mprof_trace_close(trace);
  return err;
}
