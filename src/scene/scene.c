/* scene.c -- the drawing rules of every viewer (see scene.h): turns
 * the model's level-of-detail answers for a viewport into a display list.
 *
 * Painting order: idle/GC bands, axis ticks, search and highlight marks,
 * thread lines (failed and stalled in their colours), running spans,
 * arrows, labels and failure texts, the name column, counter graphs, the
 * divergence mark, the edges' "‹ 2 s more".  Picking and comparing are
 * pick.c, the legend legend.c, the busy range busy.c.
 * Every query is bounded by the viewport's width, so a frame costs
 * O(rows shown * width * log n).
 */
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

const mprof_swatch_t mprof_scene_palette[MPROF_COLOUR_COUNT] = {
    [MPROF_COLOUR_BACKGROUND] = {"background", 0xe8e8e8},
    [MPROF_COLOUR_THREAD] = {"thread", 0x000000},
    [MPROF_COLOUR_RUNNING] = {"running", 0x00897b},
    [MPROF_COLOUR_ARROW + MPROF_ARROW_CREATE] = {"create", 0x6d4c41},
    [MPROF_COLOUR_ARROW + MPROF_ARROW_READ] = {"read", 0x1565c0},
    [MPROF_COLOUR_ARROW + MPROF_ARROW_READ_FAILED] = {"read_failed", 0xd81b60},
    [MPROF_COLOUR_ARROW + MPROF_ARROW_TRY_READ] = {"try_read", 0x827717},
    [MPROF_COLOUR_ARROW + MPROF_ARROW_RESOLVE] = {"resolve", 0x2e7d32},
    [MPROF_COLOUR_ARROW + MPROF_ARROW_SIGNAL] = {"signal", 0xe65100},
    [MPROF_COLOUR_ARROW + MPROF_ARROW_BECOMES] = {"becomes", 0x5e35b1},
    [MPROF_COLOUR_FAILED] = {"failed", 0x8e0000},
    [MPROF_COLOUR_STALLED] = {"never resolved", 0xff0000},
    [MPROF_COLOUR_IDLE] = {"idle", 0xb4b4b4},
    [MPROF_COLOUR_GC] = {"GC", 0xe0b070},
    [MPROF_COLOUR_TEXT] = {"label", 0x202020},
    [MPROF_COLOUR_AXIS] = {"time axis", 0x606060},
    [MPROF_COLOUR_HIGHLIGHT] = {"highlight", 0x00c0ff},
    [MPROF_COLOUR_MATCH] = {"search match", 0xffee00},
    [MPROF_COLOUR_COUNTER] = {"counter", 0x880e4f},
    [MPROF_COLOUR_DIVERGENCE] = {"first divergence", 0xaa00ff},
    [MPROF_COLOUR_NAMES] = {"names", 0xf6f6f6},
};

/* Painters read the list as ten 32-bit words per primitive. */
_Static_assert(sizeof(mprof_prim_t) == 40, "mprof_prim_t is ten words");

/* Arrows longer than this fade, down to MIN_ALPHA at the viewport width. */
#define FADE_FROM_PX 100.0
#define MIN_ALPHA 0.15f
/* Alpha of what is not highlighted while something is. */
#define DIM_ALPHA 0.3f
/* Axis ticks are at least this far apart. */
#define TICK_MIN_PX 80.0
/* A name in the name column starts this far right of its left edge, and
 * ends as far left of its right one. */
#define NAME_PAD_PX 4

int mprof_scene_new(mprof_scene_t **out) {
  *out = calloc(1, sizeof **out);
  return *out ? 0 : MPROF_ENOMEM;
}

void mprof_scene_free(mprof_scene_t *scene) {
  if (!scene) return;
  free(scene->prims);
  free(scene->text);
  free(scene->items);
  free(scene->col_min);
  free(scene->col_max);
  free(scene);
}

void mprof_scene_compare(mprof_scene_t *scene, int64_t axis_offset_ns,
                         const int64_t *counter_lo, const int64_t *counter_hi) {
  scene->axis_offset = axis_offset_ns;
  scene->counter_lo = counter_lo;
  scene->counter_hi = counter_hi;
}

const mprof_prim_t *mprof_scene_prims(const mprof_scene_t *scene,
                                      size_t *count) {
  *count = scene->count;
  return scene->prims;
}

const char *mprof_scene_text(const mprof_scene_t *scene) {
  return scene->text ? scene->text : "";
}

/* --- Coordinates -----------------------------------------------------------
 */

/* The time range's width: right of the name column. */
static double range_px(const mprof_viewport_t *vp) {
  return vp->width_px > vp->names_px ? vp->width_px - vp->names_px : 1;
}

double mprof_scene_x(const mprof_viewport_t *vp, int64_t t_ns) {
  return vp->names_px + (double)(t_ns - vp->t0_ns) * range_px(vp) /
                            (double)(vp->t1_ns - vp->t0_ns);
}

int64_t mprof_scene_time(const mprof_viewport_t *vp, double x) {
  return vp->t0_ns + (int64_t)((x - vp->names_px) *
                               (double)(vp->t1_ns - vp->t0_ns) / range_px(vp));
}

/* ns over one pixel of the time range, at least 1. */
static int64_t ns_per_px(const mprof_viewport_t *vp) {
  int64_t ns = (int64_t)((double)(vp->t1_ns - vp->t0_ns) / range_px(vp));
  return ns < 1 ? 1 : ns;
}

double mprof_scene_row_y(const mprof_viewport_t *vp, uint32_t row) {
  return MPROF_SCENE_AXIS_PX + (double)row * vp->row_height_px - vp->scroll_px +
         vp->row_height_px / 2.0;
}

/* x clamped a little outside the time range (so huge lines stay floats;
 * the name column is painted over the left end). */
float mprof__scene_clamp_x(const frame_t *f, int64_t t) {
  double x = mprof_scene_x(f->vp, t);
  if (x < f->vp->names_px - 10.0) x = f->vp->names_px - 10.0;
  if (x > f->vp->width_px + 10.0) x = f->vp->width_px + 10.0;
  return (float)x;
}

/* --- Emitting --------------------------------------------------------------
 */

static mprof_prim_t *emit(frame_t *f, mprof_prim_kind_t kind,
                          mprof_colour_t colour, mprof_prim_role_t role) {
  mprof_scene_t *s = f->scene;
  if (s->count == s->capacity) {
    size_t cap = s->capacity ? s->capacity * 2 : 1024;
    mprof_prim_t *p = realloc(s->prims, cap * sizeof *p);
    if (!p) {
      s->failed = 1;
      return NULL;
    }
    s->prims = p;
    s->capacity = cap;
  }
  mprof_prim_t *p = &s->prims[s->count++];
  memset(p, 0, sizeof *p);
  p->kind = kind;
  p->colour = colour;
  p->alpha = 1;
  p->width = 1;
  p->thread = MPROF_NO_THREAD;
  p->role_text = role;
  return p;
}

void mprof__scene_line(frame_t *f, mprof_colour_t colour,
                       mprof_prim_role_t role, float x0, float y0, float x1,
                       float y1, float width, uint32_t thread) {
  mprof_prim_t *p = emit(f, MPROF_PRIM_LINE, colour, role);
  if (!p) return;
  p->x0 = x0, p->y0 = y0, p->x1 = x1, p->y1 = y1;
  p->width = width;
  p->thread = thread;
}

mprof_prim_t *mprof__scene_rect(frame_t *f, mprof_colour_t colour,
                                mprof_prim_role_t role, float x0, float y0,
                                float x1, float y1) {
  mprof_prim_t *p = emit(f, MPROF_PRIM_RECT, colour, role);
  if (p) p->x0 = x0, p->y0 = y0, p->x1 = x1, p->y1 = y1;
  return p;
}

/* Append text (up to length bytes, or to its NUL) to the scene's texts;
 * returns its offset, or 0 (the empty text) when out of memory. */
static uint32_t add_text(frame_t *f, const char *text, size_t length) {
  mprof_scene_t *s = f->scene;
  size_t n = 0;
  while (n < length && text[n]) n++;
  if (s->text_length + n + 1 > s->text_capacity) {
    size_t cap = s->text_capacity ? s->text_capacity : 4096;
    while (cap < s->text_length + n + 1) cap *= 2;
    char *t = realloc(s->text, cap);
    if (!t) {
      s->failed = 1;
      return 0;
    }
    s->text = t;
    s->text_capacity = cap;
  }
  uint32_t at = (uint32_t)s->text_length;
  memcpy(s->text + at, text, n);
  s->text[at + n] = 0;
  s->text_length += n + 1;
  return at;
}

void mprof__scene_text(frame_t *f, mprof_colour_t colour,
                       mprof_prim_role_t role, float x, float y,
                       float max_width, const char *str, uint32_t thread) {
  uint32_t at = add_text(f, str, (size_t)-1);
  mprof_prim_t *p = emit(f, MPROF_PRIM_TEXT, colour, role);
  if (!p) return;
  p->x0 = x, p->y0 = y, p->x1 = x + max_width, p->y1 = y;
  p->thread = thread;
  p->role_text |= at << 4;
}

/* --- Bands -----------------------------------------------------------------
 */

/* First band starting at or after t. */
static size_t band_at(const mprof_model_view_t *v, int64_t t) {
  size_t lo = 0, hi = v->band_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (mprof_band_at(v, mid).span.start_ns < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Idle and GC bands over the rows, one per pixel at most: after each band
 * the walk jumps to the next pixel, so it is bounded by the width. */
static void draw_bands(frame_t *f) {
  const mprof_model_view_t *v = f->view;
  size_t i = band_at(v, f->vp->t0_ns);
  if (i > 0) i--;
  while (i < v->band_count) {
    mprof_band_t b = mprof_band_at(v, i);
    if (b.span.start_ns >= f->vp->t1_ns) break;
    float x0 = mprof__scene_clamp_x(f, b.span.start_ns),
          x1 = mprof__scene_clamp_x(f, b.span.end_ns);
    if (x1 >= f->vp->names_px) {
      if (x1 - x0 < 1) x1 = x0 + 1;
      mprof_prim_t *p = mprof__scene_rect(
          f, b.kind == MPROF_BAND_GC ? MPROF_COLOUR_GC : MPROF_COLOUR_IDLE,
          MPROF_ROLE_BAND, x0, MPROF_SCENE_AXIS_PX, x1, (float)f->rows_bottom);
      if (p) p->alpha = 0.6f;
    }
    size_t next = band_at(v, b.span.start_ns + f->ns_per_px);
    i = next > i ? next : i + 1;
  }
}

/* --- Time axis ---------------------------------------------------------------
 */

/* A tick step of 1, 2 or 5 times a power of ten ns, at least TICK_MIN_PX. */
static int64_t tick_step(const frame_t *f) {
  double want =
      TICK_MIN_PX * (double)(f->vp->t1_ns - f->vp->t0_ns) / range_px(f->vp);
  int64_t step = 1;
  static const int mult[] = {1, 2, 5};
  for (;;) {
    for (int k = 0; k < 3; k++)
      if ((double)step * mult[k] >= want) return step * mult[k];
    if (step > INT64_MAX / 100) return step;
    step *= 10;
  }
}

/* The units of times shown, largest first. */
static const struct {
  int64_t ns;
  const char *name;
} units[] = {
    {1000000000, " s"}, {1000000, " ms"}, {1000, " \xc2\xb5s"}, {1, " ns"}};

/* The largest unit not above mag ns (ns below 1 µs). */
static size_t unit_for(int64_t mag) {
  size_t u = 0;
  while (u < 3 && mag < units[u].ns) u++;
  return u;
}

/* Write value / 10^decimals, its decimals, then unit u's name into buf. */
static void write_scaled(int64_t value, int decimals, size_t u, char *buf) {
  char digits[32];
  size_t n = 0, o = 0;
  uint64_t m = value < 0 ? (uint64_t)-value : (uint64_t)value;
  do {
    digits[n++] = (char)('0' + m % 10);
    if ((int)n == decimals) digits[n++] = '.';
    m /= 10;
  } while (m || (int)n <= decimals);
  if (value < 0) buf[o++] = '-';
  while (n) buf[o++] = digits[--n];
  for (const char *p = units[u].name; *p; p++) buf[o++] = *p;
  buf[o] = 0;
}

/* Write t (a multiple of step) as e.g. "1.25 ms" into buf. */
static void format_time(int64_t t, int64_t step, char *buf) {
  int64_t mag = t < 0 ? -t : t;
  size_t u = unit_for(mag < step ? step : mag);
  int decimals = 0;
  for (int64_t s = units[u].ns; s > 1 && step % s != 0 && decimals < 9; s /= 10)
    decimals++;
  int64_t pow10 = 1;
  for (int d = 0; d < decimals; d++) pow10 *= 10;
  write_scaled(t / (units[u].ns / pow10), decimals, u, buf);
}

/* Ticks at round times of the axis (the trace's times + the scene's axis
 * offset). */
void mprof__scene_axis(frame_t *f) {
  int64_t step = tick_step(f), offset = f->scene->axis_offset, t0, t1;
  if (__builtin_add_overflow(f->vp->t0_ns, offset, &t0) ||
      __builtin_add_overflow(f->vp->t1_ns, offset, &t1) ||
      t1 > INT64_MAX - step)
    return; /* no round times out there */
  int64_t t = t0 / step * step;
  if (t < t0) t += step;
  for (; t < t1; t += step) {
    float x = (float)mprof_scene_x(f->vp, t - offset);
    char buf[48];
    mprof__scene_line(f, MPROF_COLOUR_AXIS, MPROF_ROLE_AXIS, x,
                      MPROF_SCENE_AXIS_PX - 6, x, (float)f->rows_bottom, 1,
                      MPROF_NO_THREAD);
    if (f->scene->count) f->scene->prims[f->scene->count - 1].alpha = 0.3f;
    format_time(t, step, buf);
    mprof__scene_text(f, MPROF_COLOUR_AXIS, MPROF_ROLE_AXIS, x + 2,
                      MPROF_SCENE_AXIS_PX - 8, (float)TICK_MIN_PX - 4, buf,
                      MPROF_NO_THREAD);
  }
}

/* --- Threads ---------------------------------------------------------------
 */

static int marked(const uint8_t *set, uint32_t thread) {
  return set && set[thread];
}

static float thread_alpha(const frame_t *f, uint32_t thread) {
  return f->opt->highlighted && !f->opt->highlighted[thread] ? DIM_ALPHA : 1;
}

static mprof_colour_t thread_colour(const mprof_thread_t *t) {
  if (t->flags & MPROF_THREAD_STALLED && t->ending == MPROF_ENDING_FAILED)
    return MPROF_COLOUR_STALLED;
  return t->ending == MPROF_ENDING_FAILED ? MPROF_COLOUR_FAILED
                                          : MPROF_COLOUR_THREAD;
}

/* The label of one thread, if its visible line has room for one. */
static void thread_label(frame_t *f, uint32_t i, float x0, float x1, float y) {
  if (x0 < f->vp->names_px) x0 = (float)f->vp->names_px;
  if (x1 > f->vp->width_px) x1 = (float)f->vp->width_px;
  if (x1 - x0 < MPROF_SCENE_LABEL_MIN_PX || f->vp->row_height_px < 8) return;
  char buf[256];
  mprof_model_thread_name(f->model, i, buf, sizeof buf);
  mprof__scene_text(f, MPROF_COLOUR_TEXT, MPROF_ROLE_LABEL, x0 + 2, y - 2,
                    x1 - x0 - 2, buf, i);
}

/* A failed thread's end bar and reason. */
static void failure_mark(frame_t *f, uint32_t i, float x1, float y) {
  const mprof_thread_t *t = &f->view->threads[i];
  float h = f->vp->row_height_px / 2.0f;
  mprof__scene_line(f, thread_colour(t), MPROF_ROLE_FAILURE, x1, y - h + 1, x1,
                    y + h - 1, 2, i);
  if (t->failure && f->vp->row_height_px >= 8 && x1 < f->vp->width_px)
    mprof__scene_text(f, thread_colour(t), MPROF_ROLE_FAILURE, x1 + 3,
                      y + h - 1, f->vp->width_px - x1 - 3,
                      f->view->strings + t->failure, i);
}

static void mark_rect(frame_t *f, mprof_colour_t colour, uint32_t thread,
                      float x0, float x1, float y, float half_height) {
  mprof_prim_t *p = mprof__scene_rect(f, colour, MPROF_ROLE_MARK, x0,
                                      y - half_height, x1, y + half_height);
  if (p) p->thread = thread;
}

/* Search and highlight marks behind one thread's line. */
static void thread_marks(frame_t *f, uint32_t i, float x0, float x1, float y) {
  float h = f->vp->row_height_px / 2.0f;
  if (x1 - x0 < 4) x0 -= 2, x1 += 2; /* tiny ones enlarged */
  if (marked(f->opt->matches, i))
    mark_rect(f, MPROF_COLOUR_MATCH, i, x0, x1, y, h);
  if (marked(f->opt->highlighted, i))
    mark_rect(f, MPROF_COLOUR_HIGHLIGHT, i, x0, x1, y, h / 2);
}

/* How many threads starting in a summary's first pixel are looked at to
 * find the wide one among them. */
#define SUMMARY_PEEK 32

static void draw_thread(frame_t *f, uint32_t row, const mprof_lod_item_t *it,
                        float y);

/* Several threads within one pixel: a summary line.  Threads of a row do
 * not overlap, so a wide summary holds short threads followed by one that
 * starts in the same pixel and goes on: drawn whole (label, marks). */
static void draw_summary(frame_t *f, uint32_t row, const mprof_lod_item_t *it,
                         float y) {
  float x0 = mprof__scene_clamp_x(f, it->start_ns),
        x1 = mprof__scene_clamp_x(f, it->end_ns);
  mprof__scene_line(f, MPROF_COLOUR_THREAD, MPROF_ROLE_THREAD, x0, y, x1 + 1, y,
                    1, it->first);
  if (x1 - x0 < MPROF_SCENE_LABEL_MIN_PX) return;
  mprof_lod_item_t peek[SUMMARY_PEEK];
  size_t n = mprof_model_row_threads(f->model, row, it->start_ns,
                                     it->start_ns + f->ns_per_px, 1, peek,
                                     SUMMARY_PEEK);
  for (size_t k = 0; k < n; k++)
    if (peek[k].count == 1) draw_thread(f, row, &peek[k], y);
}

static void draw_thread(frame_t *f, uint32_t row, const mprof_lod_item_t *it,
                        float y) {
  const mprof_thread_t *t = &f->view->threads[it->first];
  if (it->count > 1) {
    draw_summary(f, row, it, y);
    return;
  }
  float x0 = mprof__scene_clamp_x(f, t->start_ns),
        x1 = mprof__scene_clamp_x(f, t->end_ns);
  if (x1 - x0 < 1) x1 = x0 + 1;
  thread_marks(f, it->first, x0, x1, y);
  mprof__scene_line(f, thread_colour(t), MPROF_ROLE_THREAD, x0, y, x1, y,
                    t->ending == MPROF_ENDING_FAILED ? 2 : 1, it->first);
  if (f->scene->count)
    f->scene->prims[f->scene->count - 1].alpha = thread_alpha(f, it->first);
  if (t->ending == MPROF_ENDING_FAILED) failure_mark(f, it->first, x1, y);
  thread_label(f, it->first, x0, x1, y);
}

static void draw_running(frame_t *f, uint32_t row, float y) {
  mprof_scene_t *s = f->scene;
  size_t n = mprof_model_row_running(f->model, row, f->vp->t0_ns, f->vp->t1_ns,
                                     f->ns_per_px, s->items, s->item_capacity);
  for (size_t k = 0; k < n; k++) {
    const mprof_lod_item_t *it = &s->items[k];
    float x0 = mprof__scene_clamp_x(f, it->start_ns),
          x1 = mprof__scene_clamp_x(f, it->end_ns);
    if (x1 - x0 < 1) x1 = x0 + 1;
    uint32_t th = mprof_running_at(f->view, it->first).thread;
    mprof_prim_t *p = mprof__scene_rect(
        f, MPROF_COLOUR_RUNNING, MPROF_ROLE_RUNNING, x0, y - 1, x1, y + 2);
    if (p) p->thread = th, p->alpha = thread_alpha(f, th);
  }
}

/* Threads then running spans of the rows in view (the lines first, so the
 * running spans are drawn over them). */
static void draw_rows(frame_t *f) {
  uint32_t rh = f->vp->row_height_px;
  uint32_t first = f->vp->scroll_px / rh;
  double last = (f->vp->scroll_px + f->rows_bottom - MPROF_SCENE_AXIS_PX) / rh;
  mprof_scene_t *s = f->scene;
  for (uint32_t row = first; row < f->view->row_count && row <= last; row++) {
    float y = (float)mprof_scene_row_y(f->vp, row);
    size_t n =
        mprof_model_row_threads(f->model, row, f->vp->t0_ns, f->vp->t1_ns,
                                f->ns_per_px, s->items, s->item_capacity);
    for (size_t k = 0; k < n; k++) draw_thread(f, row, &s->items[k], y);
    draw_running(f, row, y);
  }
}

/* --- Arrows ------------------------------------------------------------------
 */

static float arrow_alpha(const frame_t *f, float length) {
  if (length <= FADE_FROM_PX) return 1;
  float range = (float)range_px(f->vp) - (float)FADE_FROM_PX;
  float a = 1 - (length - (float)FADE_FROM_PX) / (range > 1 ? range : 1);
  return a < MIN_ALPHA ? MIN_ALPHA : a;
}

void mprof__scene_arrow(frame_t *f, uint32_t kind, uint32_t index, float x0,
                        float y0, float x1, float y1, float dim) {
  if ((y0 < MPROF_SCENE_AXIS_PX && y1 < MPROF_SCENE_AXIS_PX) ||
      (y0 > f->rows_bottom && y1 > f->rows_bottom))
    return;
  float dx = x1 > x0 ? x1 - x0 : x0 - x1, dy = y1 > y0 ? y1 - y0 : y0 - y1;
  /* on-screen length, within 4% without sqrt (no libm in the model) */
  float length = dx > dy ? dx + 0.4f * dy : dy + 0.4f * dx;
  mprof__scene_line(f, (mprof_colour_t)(MPROF_COLOUR_ARROW + kind),
                    MPROF_ROLE_ARROW, x0, y0, x1, y1, 1, index);
  if (f->scene->count)
    f->scene->prims[f->scene->count - 1].alpha = arrow_alpha(f, length) * dim;
}

static void draw_arrow(frame_t *f, const mprof_lod_item_t *it) {
  mprof_arrow_t a = mprof_arrow_at(f->view, it->first);
  if (a.from == a.to || a.from == MPROF_ROOT_THREAD) return;
  int64_t from_ns, to_ns;
  mprof_model_arrow_ends(f->model, &a, &from_ns, &to_ns);
  int dim = f->opt->highlighted && !f->opt->highlighted[a.from] &&
            !f->opt->highlighted[a.to];
  mprof__scene_arrow(
      f, a.kind, it->first, mprof__scene_clamp_x(f, from_ns),
      (float)mprof_scene_row_y(f->vp, f->view->threads[a.from].row),
      mprof__scene_clamp_x(f, to_ns),
      (float)mprof_scene_row_y(f->vp, f->view->threads[a.to].row),
      dim ? DIM_ALPHA : 1);
}

static void draw_arrows(frame_t *f) {
  mprof_scene_t *s = f->scene;
  size_t n = mprof_model_arrows(f->model, f->vp->t0_ns, f->vp->t1_ns,
                                f->ns_per_px, s->items, s->item_capacity);
  for (size_t k = 0; k < n; k++) draw_arrow(f, &s->items[k]);
}

/* --- Counters ----------------------------------------------------------------
 */

/* Whether two counter names share a scale: the same up to a '#'. */
int mprof__scene_same_scale(const char *a, const char *b) {
  while (*a && *a != '#' && *a == *b) a++, b++;
  return (*a == 0 || *a == '#') && (*b == 0 || *b == '#');
}

/* Over the whole trace, so panning keeps the scale. */
void mprof_scene_widen_scale(const mprof_model_t *model, const char *name,
                             int64_t *lo, int64_t *hi) {
  const mprof_model_view_t *v = mprof_model_view(model);
  for (uint32_t k = 0; k < v->counter_count; k++) {
    if (!mprof__scene_same_scale(name, v->strings + v->counters[k].name))
      continue;
    if (v->counters[k].min_value < *lo) *lo = v->counters[k].min_value;
    if (v->counters[k].max_value > *hi) *hi = v->counters[k].max_value;
  }
}

/* The value range of counter c's graph: the scene's compare scale if set,
 * else from min(0, lowest) to the highest of the trace's counters that
 * share it. */
static void counter_scale(const frame_t *f, uint32_t c, int64_t *lo,
                          int64_t *hi) {
  if (f->scene->counter_lo && f->scene->counter_hi) {
    *lo = f->scene->counter_lo[c];
    *hi = f->scene->counter_hi[c];
    return;
  }
  *lo = 0;
  *hi = 0;
  mprof_scene_widen_scale(f->model,
                          f->view->strings + f->view->counters[c].name, lo, hi);
}

void mprof__scene_counter(frame_t *f, uint32_t c, const char *name,
                          const int64_t *col_min, const int64_t *col_max,
                          int64_t lo, int64_t hi, float top) {
  uint32_t w = f->vp->width_px - f->vp->names_px, left = f->vp->names_px;
  /* in double: a damaged trace's counter may span more than int64_t */
  double span = (double)hi - (double)lo;
  if (span < 1) span = 1;
  double scale = (MPROF_SCENE_COUNTER_PX - 4) / span;
  float bottom = top + MPROF_SCENE_COUNTER_PX - 2;
  mprof__scene_line(f, MPROF_COLOUR_AXIS, MPROF_ROLE_COUNTER, 0, top,
                    (float)f->vp->width_px, top, 1, c);
  for (uint32_t x = 0; x < w; x++) {
    float y0 = bottom - (float)(((double)col_max[x] - (double)lo) * scale);
    float y1 = bottom - (float)(((double)col_min[x] - (double)lo) * scale);
    mprof_prim_t *p =
        mprof__scene_rect(f, MPROF_COLOUR_COUNTER, MPROF_ROLE_COUNTER,
                          (float)(left + x), y0, (float)(left + x) + 1, y1 + 1);
    if (p) p->thread = c;
  }
  /* its name in the name column, or over the graph if there is none */
  float room = left >= 2 * NAME_PAD_PX ? left - 2.0f * NAME_PAD_PX : w - 4.0f;
  mprof__scene_text(f, MPROF_COLOUR_COUNTER, MPROF_ROLE_COUNTER, NAME_PAD_PX,
                    top + 12, room, name, c);
}

static void draw_counter(frame_t *f, uint32_t c, float top) {
  mprof_scene_t *s = f->scene;
  uint32_t w = f->vp->width_px - f->vp->names_px;
  if (mprof_model_counter_range(f->model, c, f->vp->t0_ns, f->vp->t1_ns, w,
                                s->col_min, s->col_max) < 0)
    return;
  int64_t lo, hi;
  counter_scale(f, c, &lo, &hi);
  mprof__scene_counter(f, c, f->view->strings + f->view->counters[c].name,
                       s->col_min, s->col_max, lo, hi, top);
}

static void draw_counters(frame_t *f) {
  float top = (float)f->rows_bottom;
  for (uint32_t c = 0; c < f->view->counter_count; c++) {
    if (!marked(f->opt->counters_shown, c)) continue;
    draw_counter(f, c, top);
    top += MPROF_SCENE_COUNTER_PX;
  }
}

/* --- The first divergence -----------------------------------------------
 */

/* The divergence line's dashes: DASH_PX drawn, GAP_PX not, DIVERGENCE_PX
 * wide, on the middle of a pixel column; its caption's baseline. */
#define DASH_PX 6
#define GAP_PX 4
#define DIVERGENCE_PX 2
#define CAPTION_Y 32

/* The middle of the pixel column holding x (floor without libm). */
static float pixel_middle(double x) {
  double whole = (double)(int64_t)x;
  if (whole > x) whole -= 1;
  return (float)(whole + 0.5);
}

/* A dashed line the height of the viewport at the divergence's time, and
 * its caption, over everything drawn before. */
static void draw_divergence(frame_t *f) {
  if (!f->opt->divergence_ns) return;
  double at = mprof_scene_x(f->vp, *f->opt->divergence_ns);
  if (at < f->vp->names_px - (double)DIVERGENCE_PX ||
      at > f->vp->width_px + (double)DIVERGENCE_PX)
    return;
  float x = pixel_middle(at);
  for (uint32_t y = 0; y < f->vp->height_px; y += DASH_PX + GAP_PX) {
    float end = (float)(y + DASH_PX < f->vp->height_px ? y + DASH_PX
                                                       : f->vp->height_px);
    mprof__scene_line(f, MPROF_COLOUR_DIVERGENCE, MPROF_ROLE_DIVERGENCE, x,
                      (float)y, x, end, DIVERGENCE_PX, MPROF_NO_THREAD);
  }
  mprof__scene_text(f, MPROF_COLOUR_DIVERGENCE, MPROF_ROLE_DIVERGENCE, x + 4,
                    CAPTION_Y, (float)f->vp->width_px - x - 4,
                    "first divergence", MPROF_NO_THREAD);
}

/* --- Merging
 * ------------------------------------------------------------------- */

/* Primitives closer than this (px) along a row are drawn as one. */
#define MERGE_GAP_PX 0.5f

/* Whether b, painted right after a, continues it along the same row: the
 * same look, the same band of pixels, starting within MERGE_GAP_PX of a's
 * end, and too short for a label (wider ones keep their own primitive, and
 * so their thread). */
static int continues(const mprof_prim_t *a, const mprof_prim_t *b) {
  if (a->kind != b->kind || b->kind == MPROF_PRIM_TEXT ||
      a->colour != b->colour || a->alpha != b->alpha || a->width != b->width ||
      a->role_text != b->role_text || a->y0 != b->y0 || a->y1 != b->y1)
    return 0;
  if (b->kind == MPROF_PRIM_LINE && b->y0 != b->y1)
    return 0; /* only horizontal lines */
  return a->x0 <= b->x0 && b->x0 <= a->x1 + MERGE_GAP_PX && b->x0 <= b->x1 &&
         b->x1 - b->x0 < MPROF_SCENE_LABEL_MIN_PX && a->x0 <= a->x1;
}

/* Merge each run of primitives that continue one another into its first
 * (which keeps its thread): a dense row zoomed out is one line and a few
 * running spans, not one per pixel, and painters pay per primitive.  The
 * painting order is kept. */
static void merge_runs(mprof_scene_t *s) {
  size_t kept = 0;
  for (size_t i = 0; i < s->count; i++) {
    mprof_prim_t *a = kept ? &s->prims[kept - 1] : NULL;
    if (a && continues(a, &s->prims[i])) {
      if (s->prims[i].x1 > a->x1) a->x1 = s->prims[i].x1;
    } else {
      s->prims[kept++] = s->prims[i];
    }
  }
  s->count = kept;
}

/* --- The name column and the edges ------------------------------------
 */

/* The baseline of a row's name, below the middle of its row. */
#define NAME_BASELINE_PX 4
/* An edge's "‹ 1.95 s more", in a box this wide at the axis's end. */
#define EDGE_BOX_PX 96

/* Row `row`'s name: its thread in view's (mprof_scene_row_thread()), as
 * its labels name it. */
static void row_name(frame_t *f, uint32_t row, float y) {
  uint32_t t = mprof_scene_row_thread(f->model, f->vp, row);
  if (t == MPROF_NO_THREAD) return;
  char buf[256];
  mprof_model_thread_name(f->model, t, buf, sizeof buf);
  mprof__scene_row_name(f, y, buf, t);
}

void mprof__scene_row_name(frame_t *f, float y, const char *name,
                           uint32_t thread) {
  mprof__scene_text(f, MPROF_COLOUR_TEXT, MPROF_ROLE_NAME, NAME_PAD_PX,
                    y + NAME_BASELINE_PX,
                    (float)f->vp->names_px - 2 * NAME_PAD_PX, name, thread);
}

int mprof__scene_name_column(frame_t *f) {
  float left = (float)f->vp->names_px, bottom = (float)f->rows_bottom;
  if (left < 2 * NAME_PAD_PX || bottom <= MPROF_SCENE_AXIS_PX) return 0;
  mprof__scene_rect(f, MPROF_COLOUR_NAMES, MPROF_ROLE_NAME, 0,
                    MPROF_SCENE_AXIS_PX, left, bottom);
  /* its edge a rectangle, so that every painter fills the same column */
  mprof__scene_rect(f, MPROF_COLOUR_AXIS, MPROF_ROLE_NAME, left - 1,
                    MPROF_SCENE_AXIS_PX, left, bottom);
  return f->vp->row_height_px >= 8;
}

int mprof__scene_row_whole(const frame_t *f, float y) {
  float half = f->vp->row_height_px / 2.0f;
  return y + half <= f->rows_bottom && y - half >= MPROF_SCENE_AXIS_PX;
}

/* The name column over the rows: its background (over whatever reached
 * left of the time range), its edge, and each whole row's name. */
static void draw_names(frame_t *f) {
  if (!mprof__scene_name_column(f)) return;
  uint32_t rh = f->vp->row_height_px;
  for (uint32_t row = f->vp->scroll_px / rh; row < f->view->row_count; row++) {
    float y = (float)mprof_scene_row_y(f->vp, row);
    if (y + rh / 2.0f > f->rows_bottom) break;
    if (mprof__scene_row_whole(f, y)) row_name(f, row, y);
  }
}

/* Write ns (>= 0) as e.g. "1.95 s", three digits at most, into buf (16
 * bytes). */
static void format_span(int64_t ns, char *buf) {
  size_t u = unit_for(ns);
  int64_t hundredths = ns > INT64_MAX / 100
                           ? ns / units[u].ns * 100
                           : (ns * 100 + units[u].ns / 2) / units[u].ns;
  int decimals = hundredths >= 10000 ? 0 : hundredths >= 1000 ? 1 : 2;
  int64_t shown = hundredths / (decimals == 0 ? 100 : decimals == 1 ? 10 : 1);
  while (decimals > 0 && shown % 10 == 0) shown /= 10, decimals--;
  write_scaled(shown, decimals, u, buf);
}

/* "‹ SPAN more" (or "SPAN more ›") in a box on the axis at x. */
static void edge_mark(frame_t *f, float x, int64_t beyond_ns, int left) {
  char span[24], label[40];
  format_span(beyond_ns, span);
  size_t n = 0;
  const char *parts[] = {left ? "\xe2\x80\xb9 " : "", span, " more",
                         left ? "" : " \xe2\x80\xba"};
  for (size_t i = 0; i < 4; i++)
    for (const char *p = parts[i]; *p; p++) label[n++] = *p;
  label[n] = 0;
  mprof__scene_rect(f, MPROF_COLOUR_BACKGROUND, MPROF_ROLE_EDGE, x, 0,
                    x + EDGE_BOX_PX, MPROF_SCENE_AXIS_PX - 1);
  mprof__scene_text(f, MPROF_COLOUR_TEXT, MPROF_ROLE_EDGE, x + 2,
                    MPROF_SCENE_AXIS_PX - 8, EDGE_BOX_PX - 4, label,
                    MPROF_NO_THREAD);
}

/* Where the trace goes on past the time range: how much, at that end of
 * the axis (over its ticks' times). */
static void draw_edges(frame_t *f) {
  int64_t end = f->view->duration_ns;
  if (range_px(f->vp) < 3 * EDGE_BOX_PX) return;
  if (f->vp->t0_ns > 0)
    edge_mark(f, (float)f->vp->names_px,
              f->vp->t0_ns < end ? f->vp->t0_ns : end, 1);
  if (f->vp->t1_ns < end)
    edge_mark(f, (float)f->vp->width_px - EDGE_BOX_PX,
              end - (f->vp->t1_ns > 0 ? f->vp->t1_ns : 0), 0);
}

/* --- Building
 * ------------------------------------------------------------------ */

/* Buffers for a viewport width_px wide. */
static int reserve(mprof_scene_t *s, uint32_t width_px) {
  size_t want = (size_t)width_px * 2 + 16;
  if (want <= s->item_capacity) return 0;
  mprof_lod_item_t *items = realloc(s->items, want * sizeof *items);
  if (items) s->items = items;
  int64_t *lo = realloc(s->col_min, want * sizeof *lo);
  if (lo) s->col_min = lo;
  int64_t *hi = realloc(s->col_max, want * sizeof *hi);
  if (hi) s->col_max = hi;
  if (!items || !lo || !hi) return MPROF_ENOMEM;
  s->item_capacity = want;
  return 0;
}

static double counters_height(const mprof_model_view_t *v,
                              const mprof_scene_options_t *opt) {
  double h = 0;
  for (uint32_t c = 0; c < v->counter_count; c++)
    if (marked(opt->counters_shown, c)) h += MPROF_SCENE_COUNTER_PX;
  return h;
}

int mprof__scene_begin(frame_t *f, mprof_scene_t *scene,
                       const mprof_viewport_t *vp) {
  scene->count = 0;
  scene->text_length = 0;
  scene->failed = 0;
  if (vp->t1_ns <= vp->t0_ns || vp->width_px <= vp->names_px ||
      vp->width_px > 65536 || vp->row_height_px == 0)
    return MPROF_EINVAL;
  if (reserve(scene, vp->width_px) < 0) return MPROF_ENOMEM;
  static const mprof_scene_options_t none = {NULL, NULL, NULL, NULL};
  *f = (frame_t){scene, NULL, NULL, vp, &none, ns_per_px(vp), vp->height_px};
  add_text(f, "", 0); /* offset 0: the empty text */
  return 0;
}

int mprof__scene_end(mprof_scene_t *scene) {
  merge_runs(scene);
  return scene->failed ? MPROF_ENOMEM : 0;
}

int mprof_scene_build(mprof_scene_t *scene, const mprof_model_t *model,
                      const mprof_viewport_t *vp,
                      const mprof_scene_options_t *options) {
  frame_t f;
  int err = mprof__scene_begin(&f, scene, vp);
  if (err) return err;
  f.model = model;
  f.view = mprof_model_view(model);
  if (options) f.opt = options;
  f.rows_bottom -= counters_height(f.view, f.opt);
  draw_bands(&f);
  mprof__scene_axis(&f);
  draw_rows(&f);
  draw_arrows(&f);
  draw_names(&f);
  draw_counters(&f);
  draw_divergence(&f);
  draw_edges(&f);
  return mprof__scene_end(scene);
}
