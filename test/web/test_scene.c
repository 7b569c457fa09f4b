/* test_scene.c -- the view core of both viewers (src/scene): small models
 * built by hand, drawn into viewports, and the display lists checked for
 * what is where (rows, x, colours, labels, fading, marks, bounds); the
 * view state (timeline.h) checked for its range arithmetic, selection,
 * search, compare alignment, the divergence mark, and what a re-read
 * carries over. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scene.h"
#include "timeline.h"

static mprof_model_t *model;
static mprof_scene_t *scene;

/* An event of the story (text: label or failure reason). */
#define EV(k, t, th, target, txt)                                              \
  {                                                                            \
    .kind = (k), .time_ticks = (t), .thread = (th), .a = (target),             \
    .type = MPROF_TASK, .text = (txt), .text_length = sizeof(txt) - 1          \
  }

/* The story: 1 creates 2 ("fetch") and waits for it; 3 resolves it; 1
 * reads it.  4 should resolve and never does; 5 fails ("boom"). */
static const mprof_event_t story_events[] = {
    EV(MPROF_EVENT_SWITCH, 0, 0, 1, ""),
    EV(MPROF_EVENT_CREATE, 200, 1, 2, ""),
    EV(MPROF_EVENT_LABEL, 210, 0, 2, "fetch"),
    EV(MPROF_EVENT_TRY_READ, 300, 1, 2, ""),
    EV(MPROF_EVENT_CREATE, 320, 1, 4, ""),
    EV(MPROF_EVENT_SHOULD_RESOLVE, 330, 1, 4, ""),
    EV(MPROF_EVENT_CREATE, 340, 1, 5, ""),
    EV(MPROF_EVENT_SWITCH, 400, 0, 0, ""),
    EV(MPROF_EVENT_SWITCH, 800, 0, 3, ""),
    EV(MPROF_EVENT_RESOLVE, 900, 3, 2, ""),
    EV(MPROF_EVENT_FAIL, 950, 3, 5, "boom"),
    EV(MPROF_EVENT_SWITCH, 1000, 0, 1, ""),
    EV(MPROF_EVENT_READ, 1100, 1, 2, ""),
    EV(MPROF_EVENT_SWITCH, 1200, 0, 0, ""),
};

/* A model of events[0..count), and an empty scene. */
static void feed(const mprof_event_t *events, size_t count) {
  assert_int_equal(mprof_model_new(1000000000, 0, &model), 0);
  for (size_t i = 0; i < count; i++)
    assert_int_equal(mprof_model_add(model, &events[i]), 0);
  assert_int_equal(mprof_model_finish(model), 0);
  assert_int_equal(mprof_scene_new(&scene), 0);
}

static void story(void) {
  feed(story_events, sizeof story_events / sizeof story_events[0]);
}

static void done(void) {
  mprof_scene_free(scene);
  mprof_model_free(model);
}

/* 1 px per ns over the whole trace, 20 px rows. */
static mprof_viewport_t whole(void) {
  mprof_viewport_t vp = {0, 1200, 1200, 400, 0, 20, 0};
  return vp;
}

static uint32_t idx(uint64_t id) { return mprof_model_find(model, id); }

static const mprof_prim_t *build(const mprof_viewport_t *vp,
                                 const mprof_scene_options_t *opt,
                                 size_t *count) {
  assert_int_equal(mprof_scene_build(scene, model, vp, opt), 0);
  return mprof_scene_prims(scene, count);
}

/* The first primitive of a role about a thread (or arrow, counter). */
static const mprof_prim_t *find(mprof_prim_role_t role, uint32_t thread) {
  size_t n;
  const mprof_prim_t *p = mprof_scene_prims(scene, &n);
  for (size_t i = 0; i < n; i++)
    if (MPROF_PRIM_ROLE(&p[i]) == role && p[i].thread == thread) return &p[i];
  return NULL;
}

/* x of the axis tick labelled `label` (its text starts 2 px right of it),
 * or -1. */
static float tick_x(const char *label) {
  size_t n;
  const mprof_prim_t *p = mprof_scene_prims(scene, &n);
  for (size_t i = 0; i < n; i++)
    if (p[i].kind == MPROF_PRIM_TEXT &&
        MPROF_PRIM_ROLE(&p[i]) == MPROF_ROLE_AXIS &&
        strcmp(mprof_scene_text(scene) + MPROF_PRIM_TEXT_OFFSET(&p[i]),
               label) == 0)
      return p[i].x0 - 2;
  return -1;
}

static int has_text(const char *want) {
  size_t n;
  const mprof_prim_t *p = mprof_scene_prims(scene, &n);
  for (size_t i = 0; i < n; i++)
    if (p[i].kind == MPROF_PRIM_TEXT &&
        strcmp(mprof_scene_text(scene) + MPROF_PRIM_TEXT_OFFSET(&p[i]), want) ==
            0)
      return 1;
  return 0;
}

static void test_thread_lines(void **state) {
  (void)state;
  story();
  mprof_viewport_t vp = whole();
  size_t n;
  build(&vp, NULL, &n);
  const mprof_thread_t *t2 = &mprof_model_view(model)->threads[idx(2)];
  const mprof_prim_t *p = find(MPROF_ROLE_THREAD, idx(2));
  assert_non_null(p);
  assert_int_equal(p->kind, MPROF_PRIM_LINE);
  assert_int_equal(p->colour, MPROF_COLOUR_THREAD);
  assert_int_equal((int)p->x0, 200);
  assert_int_equal((int)p->x1, 900);
  assert_int_equal((int)p->y0, MPROF_SCENE_AXIS_PX + 20 * t2->row + 10);
  assert_int_equal((int)p->y0, (int)mprof_scene_row_y(&vp, t2->row));
  /* 1 ran 0-400 and 1000-1200: teal over its line */
  const mprof_prim_t *r = find(MPROF_ROLE_RUNNING, idx(1));
  assert_non_null(r);
  assert_int_equal(r->colour, MPROF_COLOUR_RUNNING);
  assert_int_equal((int)r->x0, 0);
  assert_int_equal((int)r->x1, 400);
  assert_int_equal(mprof_scene_palette[MPROF_COLOUR_RUNNING].rgb, 0x00897b);
  done();
}

static void test_arrows(void **state) {
  (void)state;
  story();
  mprof_viewport_t vp = whole();
  size_t n;
  const mprof_prim_t *p = build(&vp, NULL, &n);
  int read = 0, try_read = 0, resolve = 0, create = 0;
  for (size_t i = 0; i < n; i++) {
    if (MPROF_PRIM_ROLE(&p[i]) != MPROF_ROLE_ARROW) continue;
    mprof_arrow_t a = mprof_arrow_at(mprof_model_view(model), p[i].thread);
    assert_int_equal(p[i].colour, MPROF_COLOUR_ARROW + a.kind);
    read += a.kind == MPROF_ARROW_READ;
    try_read += a.kind == MPROF_ARROW_TRY_READ;
    resolve += a.kind == MPROF_ARROW_RESOLVE;
    create += a.kind == MPROF_ARROW_CREATE;
    if (a.kind == MPROF_ARROW_READ) { /* from 2's end to 1 at the read */
      assert_int_equal((int)p[i].x0, 900);
      assert_int_equal((int)p[i].x1, 1100);
      assert_true(p[i].alpha > 0.5f);
    }
  }
  assert_int_equal(read, 1);
  assert_int_equal(try_read, 1);
  assert_int_equal(resolve, 2); /* 2 resolved, 5 failed */
  assert_int_equal(create, 3);  /* 2, 4, 5 by 1; none from the root */
  assert_int_equal(
      mprof_scene_palette[MPROF_COLOUR_ARROW + MPROF_ARROW_READ].rgb, 0x1565c0);
  done();
}

static void test_long_arrows_fade(void **state) {
  (void)state;
  story();
  /* zoomed in 10x on the read: its 200 ns arrow is now 2000 px long */
  mprof_viewport_t vp = {800, 1200, 4000, 400, 0, 20, 0};
  size_t n;
  const mprof_prim_t *p = build(&vp, NULL, &n);
  int seen = 0;
  for (size_t i = 0; i < n; i++)
    if (MPROF_PRIM_ROLE(&p[i]) == MPROF_ROLE_ARROW &&
        mprof_arrow_at(mprof_model_view(model), p[i].thread).kind ==
            MPROF_ARROW_READ) {
      seen = 1;
      assert_true(p[i].alpha < 0.7f);
    }
  assert_true(seen);
  done();
}

static void test_labels_need_room(void **state) {
  (void)state;
  story();
  mprof_viewport_t vp = whole();
  size_t n;
  build(&vp, NULL, &n);
  assert_true(has_text("fetch"));
  assert_true(has_text("boom"));   /* 5's failure reason */
  assert_true(has_text("200 ns")); /* an axis tick */
  const mprof_prim_t *label = find(MPROF_ROLE_LABEL, idx(2));
  assert_non_null(label);
  assert_int_equal(label->colour, MPROF_COLOUR_TEXT);
  vp.width_px = 10; /* 120 ns per pixel: 2's line is 6 px, too short */
  build(&vp, NULL, &n);
  assert_false(has_text("fetch"));
  assert_non_null(find(MPROF_ROLE_THREAD, idx(2)));
  done();
}

static void test_failed_and_stalled(void **state) {
  (void)state;
  story();
  mprof_viewport_t vp = whole();
  size_t n;
  build(&vp, NULL, &n);
  const mprof_prim_t *four = find(MPROF_ROLE_THREAD, idx(4));
  assert_non_null(four);
  assert_int_equal(four->colour, MPROF_COLOUR_STALLED);
  assert_int_equal((int)four->x1, 1200); /* to the right edge */
  assert_int_equal(mprof_scene_palette[MPROF_COLOUR_STALLED].rgb, 0xff0000);
  const mprof_prim_t *five = find(MPROF_ROLE_THREAD, idx(5));
  assert_int_equal(five->colour, MPROF_COLOUR_FAILED);
  assert_int_equal((int)five->x1, 950);
  const mprof_prim_t *bar = find(MPROF_ROLE_FAILURE, idx(5));
  assert_non_null(bar);
  assert_int_equal((int)bar->x0, 950);
  done();
}

static void test_marks_and_highlight(void **state) {
  (void)state;
  story();
  mprof_viewport_t vp = whole();
  size_t count = mprof_model_view(model)->thread_count;
  uint8_t *hl = calloc(count, 1), *match = calloc(count, 1);
  assert_int_equal(mprof_scene_touched(model, idx(2), hl), 3); /* 2, 1, 3 */
  assert_true(hl[idx(1)] && hl[idx(3)] && !hl[idx(4)]);
  match[idx(4)] = 1;
  mprof_scene_options_t opt = {hl, match, NULL, NULL};
  size_t n;
  build(&vp, &opt, &n);
  const mprof_prim_t *m = find(MPROF_ROLE_MARK, idx(4));
  assert_non_null(m);
  assert_int_equal(m->colour, MPROF_COLOUR_MATCH);
  assert_true(find(MPROF_ROLE_THREAD, idx(4))->alpha < 0.5f); /* faded */
  assert_true(find(MPROF_ROLE_THREAD, idx(2))->alpha > 0.9f);
  const mprof_prim_t *h = find(MPROF_ROLE_MARK, idx(2));
  assert_int_equal(h->colour, MPROF_COLOUR_HIGHLIGHT);
  free(hl);
  free(match);
  done();
}

static void test_hit(void **state) {
  (void)state;
  story();
  mprof_viewport_t vp = whole();
  uint32_t row = mprof_model_view(model)->threads[idx(2)].row;
  double y = mprof_scene_row_y(&vp, row);
  assert_int_equal(mprof_scene_hit(model, &vp, 500, y), idx(2));
  assert_int_equal(mprof_scene_hit(model, &vp, 500, y + 3), idx(2));
  assert_int_equal(mprof_scene_hit(model, &vp, 500, 2), MPROF_NO_THREAD);
  assert_int_equal(mprof_scene_hit(model, &vp, 500, 399), MPROF_NO_THREAD);
  vp.scroll_px = 20 * row; /* scrolled: its row is now the first */
  assert_int_equal(mprof_scene_hit(model, &vp, 500, MPROF_SCENE_AXIS_PX + 10),
                   idx(2));
  done();
}

static void test_counters(void **state) {
  (void)state;
  mprof_event_t events[100];
  for (int64_t i = 0; i < 100; i++) { /* "queue" rises 0..99 */
    mprof_event_t e = {.kind = MPROF_EVENT_COUNTER_VALUE,
                       .time_ticks = (uint64_t)i * 10,
                       .counter = 7,
                       .value = i};
    if (i == 0)
      e.kind = MPROF_EVENT_COUNTER_NAME, e.text = "queue", e.text_length = 5;
    events[i] = e;
  }
  feed(events, 100);
  uint8_t shown[1] = {1};
  mprof_scene_options_t opt = {NULL, NULL, shown, NULL};
  mprof_viewport_t vp = {0, 1000, 100, 200, 0, 20, 0};
  size_t n, bars = 0;
  const mprof_prim_t *p = build(&vp, &opt, &n);
  float first_top = 0, last_top = 0;
  for (size_t i = 0; i < n; i++)
    if (p[i].kind == MPROF_PRIM_RECT &&
        MPROF_PRIM_ROLE(&p[i]) == MPROF_ROLE_COUNTER) {
      if (bars == 0) first_top = p[i].y0;
      last_top = p[i].y0;
      bars++;
    }
  assert_int_equal(bars, 100);       /* one per column */
  assert_true(last_top < first_top); /* rising */
  assert_true(first_top >= 200 - MPROF_SCENE_COUNTER_PX);
  assert_true(has_text("queue"));
  shown[0] = 0;
  build(&vp, &opt, &n);
  assert_false(has_text("queue"));
  done();
}

/* queue#1 (0..99) and queue#2 (0..9) share a scale; other (0..9) has its own.
 */
/* Each of the three counter graphs' level in its last column, in px above
 * its strip's bottom (queue#1, queue#2, other). */
static void counter_levels(const mprof_viewport_t *vp,
                           const mprof_scene_options_t *opt, float level[3]) {
  size_t n;
  const mprof_prim_t *p = build(vp, opt, &n);
  float top[3] = {0, 0, 0};
  const mprof_model_view_t *v = mprof_model_view(model);
  level[0] = level[1] = level[2] = 0;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++) {
      if (MPROF_PRIM_ROLE(&p[i]) != MPROF_ROLE_COUNTER ||
          p[i].kind == MPROF_PRIM_TEXT)
        continue;
      const char *name = v->strings + v->counters[p[i].thread].name;
      int k = name[0] == 'o' ? 2 : name[6] == '1' ? 0 : 1;
      if (pass == 0 && p[i].kind == MPROF_PRIM_LINE) top[k] = p[i].y0;
      if (pass == 1 && p[i].kind == MPROF_PRIM_RECT && p[i].x0 <= 19 &&
          p[i].x1 > 19)
        level[k] = top[k] + MPROF_SCENE_COUNTER_PX - 2 - p[i].y0;
    }
}

static void test_counter_scales(void **state) {
  (void)state;
  const char *names[] = {"queue#1", "queue#2", "other"};
  const int64_t peak[] = {99, 9, 9};
  mprof_event_t events[6];
  for (uint32_t c = 0; c < 3; c++) {
    mprof_event_t name = {.kind = MPROF_EVENT_COUNTER_NAME,
                          .counter = c + 1,
                          .text = names[c],
                          .text_length = strlen(names[c])};
    mprof_event_t value = {.kind = MPROF_EVENT_COUNTER_VALUE,
                           .time_ticks = 10,
                           .counter = c + 1,
                           .value = peak[c]};
    events[2 * c] = name, events[2 * c + 1] = value;
  }
  feed(events, 6);
  assert_int_equal(mprof_model_view(model)->counter_count, 3);
  uint8_t shown[3] = {1, 1, 1};
  mprof_scene_options_t opt = {NULL, NULL, shown, NULL};
  mprof_viewport_t vp = {0, 20, 20, 300, 0, 20, 0};
  float level[3];
  counter_levels(&vp, &opt, level);
  assert_true(level[0] > 30);           /* queue#1 fills its strip */
  assert_true(level[1] < level[0] / 5); /* queue#2 on the same scale */
  assert_true(level[2] > 30);           /* other on its own */
  /* compared with a trace where "other" reached 90: one scale for both */
  int64_t lo[3] = {0, 0, 0}, hi[3] = {99, 99, 0};
  mprof_scene_widen_scale(model, "queue", &lo[0], &hi[0]);
  hi[2] = 90;
  mprof_scene_widen_scale(model, "other", &lo[2], &hi[2]);
  assert_int_equal(hi[0], 99);
  assert_int_equal(hi[2], 90);
  mprof_scene_compare(scene, 0, lo, hi);
  counter_levels(&vp, &opt, level);
  assert_true(level[0] > 30);
  assert_true(level[2] < level[0] / 5); /* 9 of 90 */
  done();
}

/* Compare: an axis offset moves the ticks to round times of the other
 * trace's axis. */
static void test_axis_offset(void **state) {
  (void)state;
  story();
  mprof_viewport_t vp = {0, 1000, 1000, 200, 0, 20, 0}; /* ticks every 100 ns */
  size_t n;
  build(&vp, NULL, &n);
  assert_true(has_text("100 ns"));
  assert_float_equal(tick_x("100 ns"), 100, 0.01);
  mprof_scene_compare(scene, 50, NULL, NULL); /* our 0 is their 50 ns */
  build(&vp, NULL, &n);
  assert_float_equal(tick_x("100 ns"), 50, 0.01);
  assert_float_equal(tick_x("900 ns"), 850, 0.01);
  mprof_scene_compare(scene, INT64_MAX - 500, NULL, NULL); /* no overflow */
  build(&vp, NULL, &n);
  assert_float_equal(tick_x("100 ns"), -1, 0.01);
  done();
}

/* 200000 short threads: the list stays bounded by the pixels, and a
 * dense row is merged into one line. */
static void test_bounded(void **state) {
  (void)state;
  enum { N = 200000 };
  mprof_event_t *events = calloc(2 * N, sizeof *events);
  for (uint64_t i = 0; i < N; i++) {
    mprof_event_t create = {
        .kind = MPROF_EVENT_CREATE, .time_ticks = i * 10, .a = 100 + i};
    mprof_event_t resolve = {
        .kind = MPROF_EVENT_RESOLVE, .time_ticks = i * 10 + 5, .a = 100 + i};
    events[2 * i] = create, events[2 * i + 1] = resolve;
  }
  feed(events, 2 * N);
  free(events);
  mprof_viewport_t vp = {0, 2000000, 500, 300, 0, 10, 0};
  size_t n;
  build(&vp, NULL, &n);
  uint32_t rows = (300 - MPROF_SCENE_AXIS_PX) / 10 + 1;
  assert_true(n > 0);
  assert_true(n <= (size_t)rows * 500 * 4 + 100);
  /* a thread every 5 ns at 4000 ns a pixel: each row's pixels are one
   * merged line, however many summaries its window query answered */
  size_t lines = 0;
  const mprof_prim_t *p = mprof_scene_prims(scene, &n);
  for (size_t i = 0; i < n; i++)
    lines += MPROF_PRIM_ROLE(&p[i]) == MPROF_ROLE_THREAD;
  assert_int_equal(lines, mprof_model_view(model)->row_count);
  done();
}

/* A short thread then, in the same pixel of the same row, a long one: the
 * summary still shows the long one whole. */
static void test_summary_keeps_wide_thread(void **state) {
  (void)state;
  const mprof_event_t events[] = {
      EV(MPROF_EVENT_CREATE, 0, 0, 1, ""),
      EV(MPROF_EVENT_RESOLVE, 1, 0, 1, ""),
      EV(MPROF_EVENT_CREATE, 2, 0, 2, ""),
      EV(MPROF_EVENT_LABEL, 3, 0, 2, "long"),
      EV(MPROF_EVENT_RESOLVE, 1000, 0, 2, ""),
  };
  feed(events, sizeof events / sizeof events[0]);
  const mprof_model_view_t *v = mprof_model_view(model);
  assert_int_equal(v->threads[idx(1)].row, v->threads[idx(2)].row);
  mprof_viewport_t vp = {0, 1000, 100, 100, 0, 20, 0}; /* 10 ns per pixel */
  size_t n;
  build(&vp, NULL, &n);
  assert_true(has_text("long"));
  const mprof_prim_t *p = find(MPROF_ROLE_THREAD, idx(2));
  assert_non_null(p);
  assert_int_equal((int)p->x1, 100);
  done();
}

static void test_divergence(void **state) {
  (void)state;
  size_t n = sizeof story_events / sizeof story_events[0];
  story();
  mprof_model_t *good = model;
  mprof_scene_free(scene);
  feed(story_events, n); /* the same story: no divergence */
  mprof_divergence_t d;
  assert_int_equal(mprof_scene_diverge(good, model, &d), 0);
  mprof_scene_free(scene);
  mprof_model_free(model);
  feed(story_events, n - 2); /* the read of 2 never happens */
  assert_int_equal(mprof_scene_diverge(good, model, &d), 1);
  const mprof_model_view_t *v = mprof_model_view(good);
  assert_int_equal(mprof_arrow_at(v, d.index).kind, MPROF_ARROW_READ);
  assert_int_equal(d.a_time_ns, 1100);
  assert_int_equal(d.a_thread, mprof_model_find(good, 1));
  assert_int_equal(d.b_thread, MPROF_NO_THREAD);
  mprof_model_free(good);
  done();
}

static void test_bad_viewport(void **state) {
  (void)state;
  story();
  mprof_viewport_t vp = whole();
  vp.t1_ns = vp.t0_ns;
  assert_int_equal(mprof_scene_build(scene, model, &vp, NULL), MPROF_EINVAL);
  done();
}

/* --- The view state (timeline.h) ------------------------------------------ */

/* The primitives of pane p's last build with this role. */
static size_t count_role(const mprof_timeline_t *tl, int p, size_t n,
                         mprof_prim_role_t role) {
  const mprof_prim_t *prims = mprof_timeline_prims(tl, p);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += MPROF_PRIM_ROLE(&prims[i]) == role;
  return k;
}

static void test_timeline_range(void **state) {
  (void)state;
  story();
  mprof_timeline_t *tl = mprof_timeline_new();
  assert_int_equal(mprof_timeline_show(tl, model, NULL), 0);
  mprof_timeline_resize(tl, 0, 1000, 300);
  mprof_timeline_fit(tl);
  double d = (double)mprof_model_view(model)->duration_ns;
  assert_true(d > 1000);
  assert_float_equal(mprof_timeline_t0(tl), -0.02 * d, 1e-9);
  assert_float_equal(mprof_timeline_t1(tl), 1.02 * d, 1e-9);
  /* the time range is right of the 120 px name column: 880 px; zoom in
   * 2x around x 340 (a quarter into it): the time there stays */
  assert_int_equal(mprof_timeline_viewport(tl, 0).names_px, 120);
  double t0 = mprof_timeline_t0(tl), span = mprof_timeline_t1(tl) - t0;
  mprof_timeline_zoom(tl, 0, 0.5, 340);
  assert_float_equal(mprof_timeline_t1(tl) - mprof_timeline_t0(tl), span / 2,
                     1e-9);
  assert_float_equal(mprof_timeline_t0(tl) + span / 2 * 0.25, t0 + span * 0.25,
                     1e-9);
  /* a drag of 88 px right shows a tenth of the range earlier */
  t0 = mprof_timeline_t0(tl);
  mprof_timeline_pan(tl, 0, 88, 0);
  assert_float_equal(mprof_timeline_t0(tl), t0 - span / 2 / 10, 1e-9);
  mprof_timeline_zoom(tl, 0, 1e-9, 0);
  assert_float_equal(mprof_timeline_t1(tl) - mprof_timeline_t0(tl),
                     MPROF_TIMELINE_MIN_SPAN_NS, 1e-3);
  /* rows scroll until the last one is at the top, and not above 0 */
  uint32_t rows = mprof_model_view(model)->row_count;
  mprof_timeline_pan(tl, 0, 0, -1e6);
  assert_float_equal(mprof_timeline_scroll(tl, 0),
                     (rows - 1) * MPROF_SCENE_ROW_PX, 0);
  mprof_timeline_pan(tl, 0, 0, 1e6);
  assert_float_equal(mprof_timeline_scroll(tl, 0), 0, 0);
  mprof_viewport_t vp = mprof_timeline_viewport(tl, 0);
  assert_int_equal(vp.row_height_px, MPROF_SCENE_ROW_PX);
  assert_int_equal(vp.width_px, 1000);
  mprof_timeline_free(tl);
  done();
}

static void test_timeline_select_search(void **state) {
  (void)state;
  story();
  mprof_timeline_t *tl = mprof_timeline_new();
  assert_int_equal(mprof_timeline_show(tl, model, NULL), 0);
  mprof_timeline_resize(tl, 0, 1200, 400);
  mprof_timeline_set_range(tl, 0, 1200);
  assert_int_equal(mprof_timeline_search(tl, "FeTcH"), 1);
  assert_int_equal(mprof_timeline_next_match(tl, 0, -1), (int)idx(2));
  assert_int_equal(mprof_timeline_next_match(tl, 0, (int)idx(2)), (int)idx(2));
  int n = mprof_timeline_build(tl, 0);
  assert_true(n > 0);
  const mprof_prim_t *prims = mprof_timeline_prims(tl, 0);
  size_t matched = 0;
  for (int i = 0; i < n; i++)
    if (prims[i].colour == MPROF_COLOUR_MATCH)
      assert_int_equal(prims[i].thread, idx(2)), matched++;
  assert_int_equal(matched, 1);
  /* the hit at thread 2's line selects it, highlighting 2, 1 and 3 */
  mprof_viewport_t vp = mprof_timeline_viewport(tl, 0);
  double y =
      mprof_scene_row_y(&vp, mprof_model_view(model)->threads[idx(2)].row);
  int hit = mprof_timeline_hit(tl, 0, 500, y);
  assert_int_equal(hit, (int)idx(2));
  assert_int_equal(mprof_timeline_select(tl, 0, hit), 3);
  assert_int_equal(mprof_timeline_selected(tl, 0), hit);
  n = mprof_timeline_build(tl, 0);
  prims = mprof_timeline_prims(tl, 0);
  size_t lit = 0;
  for (int i = 0; i < n; i++) lit += prims[i].colour == MPROF_COLOUR_HIGHLIGHT;
  assert_int_equal(lit, 3);
  assert_int_equal(mprof_timeline_select(tl, 0, -1), 0);
  /* the search text stays for the traces shown next */
  assert_int_equal(mprof_timeline_show(tl, model, NULL), 0);
  assert_int_equal(mprof_timeline_next_match(tl, 0, -1), (int)idx(2));
  mprof_timeline_resize(tl, 0, 1200, 400);
  assert_int_equal(mprof_timeline_search(tl, ""), 0);
  n = mprof_timeline_build(tl, 0);
  assert_int_equal(count_role(tl, 0, (size_t)n, MPROF_ROLE_MARK), 0);
  /* reveal: thread 2's life and a quarter each side, selected */
  mprof_timeline_reveal(tl, 0, (int)idx(2));
  assert_float_equal(mprof_timeline_t0(tl), 200 - 1000, 1e-9); /* pad 1 us */
  assert_int_equal(mprof_timeline_selected(tl, 0), (int)idx(2));
  mprof_timeline_free(tl);
  done();
}

/* A finding shown: its range with 2 % of its span (at least 1 us) each
 * side, its first thread selected, and highlighted only what it names: 4
 * (stalled) and, through its evidence (the arrow 1 -> 4), 1, not what 1
 * touched (2, 5). */
static void test_timeline_show_finding(void **state) {
  (void)state;
  story();
  const mprof_model_view_t *v = mprof_model_view(model);
  uint32_t create = 0;
  while (create < v->arrow_count && mprof_arrow_at(v, create).to != idx(4))
    create++;
  assert_true(create < v->arrow_count);
  uint32_t threads[] = {idx(4)};
  mprof_evidence_t evidence[] = {
      {MPROF_EVIDENCE_ARROW, idx(1), create, 1, 320, 320}};
  mprof_finding_t finding = {MPROF_FINDING_STALLED,
                             MPROF_SEVERITY_ERROR,
                             0,
                             0,
                             1,
                             0,
                             1,
                             320,
                             100320,
                             0};
  mprof_analysis_t a = {0};
  a.findings = &finding, a.finding_count = 1;
  a.finding_threads = threads, a.finding_thread_count = 1;
  a.evidence = evidence, a.evidence_count = 1;
  mprof_timeline_t *tl = mprof_timeline_new();
  assert_int_equal(mprof_timeline_show(tl, model, NULL), 0);
  mprof_timeline_resize(tl, 0, 1200, 400);
  mprof_timeline_fit(tl);
  assert_int_equal(mprof_timeline_show_finding(tl, 0, &a, 1), 0);
  assert_int_equal(mprof_timeline_show_finding(tl, 0, NULL, 0), 0);
  assert_int_equal(mprof_timeline_selected(tl, 0), -1);
  assert_int_equal(mprof_timeline_show_finding(tl, 0, &a, 0), 2);
  assert_float_equal(mprof_timeline_t0(tl), 320 - 2000, 1e-6);
  assert_float_equal(mprof_timeline_t1(tl), 100320 + 2000, 1e-6);
  assert_int_equal(mprof_timeline_selected(tl, 0), (int)idx(4));
  /* an instant gets 1 us each side */
  finding.end_ns = 320;
  mprof_timeline_show_finding(tl, 0, &a, 0);
  assert_float_equal(mprof_timeline_t0(tl), 320 - 1000, 1e-6);
  assert_float_equal(mprof_timeline_t1(tl), 320 + 1000, 1e-6);
  mprof_timeline_set_range(tl, 0, 1200);
  int n = mprof_timeline_build(tl, 0);
  const mprof_prim_t *prims = mprof_timeline_prims(tl, 0);
  uint8_t lit[16] = {0};
  for (int i = 0; i < n; i++)
    if (prims[i].colour == MPROF_COLOUR_HIGHLIGHT && prims[i].thread < 16)
      lit[prims[i].thread] = 1;
  for (uint32_t id = 1; id <= 5; id++)
    assert_int_equal(lit[idx(id)], id == 1 || id == 4);
  mprof_timeline_free(tl);
  done();
}

/* The dashed divergence line of pane p's last build: its x, or -1. */
static float divergence_x(const mprof_timeline_t *tl, int p, int n) {
  const mprof_prim_t *prims = mprof_timeline_prims(tl, p);
  float x = -1;
  for (int i = 0; i < n; i++)
    if (MPROF_PRIM_ROLE(&prims[i]) == MPROF_ROLE_DIVERGENCE &&
        prims[i].kind == MPROF_PRIM_LINE) {
      assert_float_equal(prims[i].x0, prims[i].x1, 0);
      assert_true(x < 0 || x == prims[i].x0);
      x = prims[i].x0;
    }
  return x;
}

static void test_timeline_compare(void **state) {
  (void)state;
  size_t events = sizeof story_events / sizeof story_events[0];
  story();
  mprof_model_t *good = model;
  mprof_scene_free(scene);
  feed(story_events, events - 2); /* the read of 2 never happens */
  mprof_timeline_t *tl = mprof_timeline_new();
  assert_int_equal(mprof_timeline_show(tl, good, model), 0);
  assert_int_equal(mprof_timeline_panes(tl), 2);
  const mprof_divergence_t *d = mprof_timeline_divergence(tl);
  assert_non_null(d);
  assert_int_equal(d->a_time_ns, 1100);
  /* aligned at the divergence: one x in both panes, a dashed line */
  assert_float_equal(mprof_timeline_offset(tl, 1),
                     (double)(d->a_time_ns - d->b_time_ns), 0);
  for (int p = 0; p < 2; p++) mprof_timeline_resize(tl, p, 600, 200);
  mprof_timeline_fit(tl);
  int na = mprof_timeline_build(tl, 0), nb = mprof_timeline_build(tl, 1);
  float xa = divergence_x(tl, 0, na), xb = divergence_x(tl, 1, nb);
  mprof_viewport_t vp = mprof_timeline_viewport(tl, 0);
  assert_float_equal(xa, (int)mprof_scene_x(&vp, 1100) + 0.5, 0);
  assert_float_equal(xa, xb, 0);
  assert_int_equal(count_role(tl, 1, (size_t)nb, MPROF_ROLE_DIVERGENCE),
                   200 / 10 + 1); /* 20 dashes and the caption */
  /* aligned by starts: the lines part */
  mprof_timeline_align(tl, MPROF_ALIGN_STARTS);
  assert_float_equal(mprof_timeline_offset(tl, 1), 0, 0);
  na = mprof_timeline_build(tl, 0), nb = mprof_timeline_build(tl, 1);
  assert_true(divergence_x(tl, 0, na) != divergence_x(tl, 1, nb));
  /* one trace: no mark */
  assert_int_equal(mprof_timeline_show(tl, good, NULL), 0);
  mprof_timeline_resize(tl, 0, 600, 200);
  mprof_timeline_fit(tl);
  na = mprof_timeline_build(tl, 0);
  assert_int_equal(count_role(tl, 0, (size_t)na, MPROF_ROLE_DIVERGENCE), 0);
  mprof_timeline_free(tl);
  mprof_model_free(good);
  done();
}

/* A newer read of the trace keeps what was shown: the range, the selected
 * thread (by id) and the search. */
static void test_timeline_replace(void **state) {
  (void)state;
  size_t events = sizeof story_events / sizeof story_events[0];
  feed(story_events, events - 4);
  mprof_model_t *old = model;
  mprof_timeline_t *tl = mprof_timeline_new();
  assert_int_equal(mprof_timeline_show(tl, old, NULL), 0);
  mprof_timeline_resize(tl, 0, 800, 300);
  mprof_timeline_set_range(tl, 100, 700);
  assert_int_equal(mprof_timeline_search(tl, "fetch"), 1);
  mprof_timeline_select(tl, 0, (int)mprof_model_find(old, 3));
  mprof_scene_free(scene);
  feed(story_events, events);
  assert_int_equal(mprof_timeline_replace(tl, 0, model), 0);
  mprof_model_free(old);
  assert_float_equal(mprof_timeline_t0(tl), 100, 0);
  assert_float_equal(mprof_timeline_t1(tl), 700, 0);
  assert_int_equal(mprof_timeline_selected(tl, 0), (int)idx(3));
  assert_int_equal(mprof_timeline_next_match(tl, 0, -1), (int)idx(2));
  assert_true(mprof_timeline_build(tl, 0) > 0);
  mprof_timeline_free(tl);
  done();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_thread_lines),
      cmocka_unit_test(test_arrows),
      cmocka_unit_test(test_long_arrows_fade),
      cmocka_unit_test(test_labels_need_room),
      cmocka_unit_test(test_failed_and_stalled),
      cmocka_unit_test(test_marks_and_highlight),
      cmocka_unit_test(test_hit),
      cmocka_unit_test(test_counters),
      cmocka_unit_test(test_counter_scales),
      cmocka_unit_test(test_axis_offset),
      cmocka_unit_test(test_bounded),
      cmocka_unit_test(test_summary_keeps_wide_thread),
      cmocka_unit_test(test_divergence),
      cmocka_unit_test(test_bad_viewport),
      cmocka_unit_test(test_timeline_range),
      cmocka_unit_test(test_timeline_select_search),
      cmocka_unit_test(test_timeline_show_finding),
      cmocka_unit_test(test_timeline_compare),
      cmocka_unit_test(test_timeline_replace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
