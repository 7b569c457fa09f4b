/* test_scene_screen.c -- what the view core (src/scene) puts on a
 * newcomer's first screen, for models built by hand: the busy part that
 * fit frames (a burst after seconds of quiet, start-ups and tails left
 * out, empty and busy-all-along traces whole) and the edge's "‹ 2 s
 * more"; the name column (each row's thread in view, sticky while
 * panning, cut to its width, a click on a name picking its thread); the
 * legend (exactly the kinds a trace holds); the palette (distinct
 * swatches, and lines with a WCAG contrast of 3:1 or more against the
 * background, computed here). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scene.h"
#include "timeline.h"

/* Room for the events of the models below. */
#define MAX_EVENTS 4096

typedef struct story_s {
  mprof_event_t events[MAX_EVENTS];
  size_t count;
} story_t;

static void add(story_t *s, mprof_event_kind_t kind, uint64_t t,
                uint64_t thread, uint64_t a, const char *text) {
  assert_true(s->count < MAX_EVENTS);
  s->events[s->count++] = (mprof_event_t){.kind = kind,
                                          .time_ticks = t,
                                          .thread = thread,
                                          .a = a,
                                          .type = MPROF_TASK,
                                          .text = text,
                                          .text_length = strlen(text)};
}

static void add_counter(story_t *s, uint64_t t, int64_t value) {
  add(s, MPROF_EVENT_COUNTER_INCREASE, t, 0, 0, "");
  s->events[s->count - 1].counter = 1;
  s->events[s->count - 1].value = value;
}

/* The model of s's events (ns ticks). */
static mprof_model_t *model_of(const story_t *s) {
  mprof_model_t *m;
  assert_int_equal(mprof_model_new(1000000000, 0, &m), 0);
  for (size_t i = 0; i < s->count; i++)
    assert_int_equal(mprof_model_add(m, &s->events[i]), 0);
  assert_int_equal(mprof_model_finish(m), 0);
  return m;
}

/* Requests 100 .. 100+n: each created by the loop (1), run, resolved, 10
 * µs apart from `from` on. */
static void requests(story_t *s, uint64_t from, int n) {
  for (int i = 0; i < n; i++) {
    uint64_t t = from + (uint64_t)i * 10000, id = 100 + (uint64_t)i;
    add(s, MPROF_EVENT_SWITCH, t, 0, 1, "");
    add(s, MPROF_EVENT_CREATE, t + 100, 1, id, "");
    add(s, MPROF_EVENT_SWITCH, t + 200, 0, id, "");
    add(s, MPROF_EVENT_RESOLVE, t + 900, id, id, "");
    add(s, MPROF_EVENT_SUSPEND, t + 1000, 0, 0, "");
  }
}

/* A start-up (the loop makes "server", pending to the end, and labels it
 * `labels` times more) at 0, asleep 2 s, then a burst of 300 requests
 * over 3 ms. */
static void burst_story(story_t *s, int labels) {
  s->count = 0;
  add(s, MPROF_EVENT_SWITCH, 0, 0, 1, "");
  add(s, MPROF_EVENT_CREATE, 1000, 1, 2, "");
  for (int i = 0; i < labels; i++)
    add(s, MPROF_EVENT_LABEL, 1500 + (uint64_t)i, 0, 2, "start-up");
  add(s, MPROF_EVENT_SUSPEND, 2000, 0, 0, "");
  requests(s, 2000000000, 300);
}

static void busy_of(const story_t *s, int64_t *start, int64_t *end) {
  mprof_model_t *m = model_of(s);
  mprof_scene_busy(m, start, end);
  mprof_model_free(m);
}

/* The burst, from its first switch to its last resolve (the suspend
 * after it starts the quiet), with fit's 2 % each side; the edge says how
 * much came before. */
static void test_busy_burst(void **state) {
  (void)state;
  static story_t s;
  burst_story(&s, 0);
  mprof_model_t *m = model_of(&s);
  int64_t start, end;
  mprof_scene_busy(m, &start, &end);
  assert_int_equal(start, 2000000000);
  assert_int_equal(end, 2000000000 + 299 * 10000 + 900);
  mprof_timeline_t *tl = mprof_timeline_new();
  assert_int_equal(mprof_timeline_show(tl, m, NULL), 0);
  mprof_timeline_resize(tl, 0, 1000, 300);
  mprof_timeline_fit(tl);
  double margin = (double)(end - start) * MPROF_TIMELINE_FIT_MARGIN;
  assert_float_equal(mprof_timeline_t0(tl), (double)start - margin, 1e-3);
  assert_float_equal(mprof_timeline_t1(tl), (double)end + margin, 1e-3);
  int n = mprof_timeline_build(tl, 0);
  const mprof_prim_t *p = mprof_timeline_prims(tl, 0);
  const char *texts = mprof_timeline_text(tl, 0);
  int edges = 0;
  for (int i = 0; i < n; i++) {
    if (MPROF_PRIM_ROLE(&p[i]) != MPROF_ROLE_EDGE ||
        p[i].kind != MPROF_PRIM_TEXT)
      continue;
    edges++;
    assert_string_equal(texts + MPROF_PRIM_TEXT_OFFSET(&p[i]),
                        "\xe2\x80\xb9 2 s more");
    assert_true(p[i].x0 >= MPROF_SCENE_NAMES_PX && p[i].x0 < 130);
  }
  assert_int_equal(edges, 1); /* nothing after the burst: no right edge */
  /* zoomed in on the burst's middle: both edges, how much each side */
  mprof_timeline_set_range(tl, 2001000000, 2002000000);
  n = mprof_timeline_build(tl, 0);
  p = mprof_timeline_prims(tl, 0);
  texts = mprof_timeline_text(tl, 0);
  const char *want[] = {"\xe2\x80\xb9 2 s more",
                        "991 \xc2\xb5s more \xe2\x80\xba"};
  edges = 0;
  for (int i = 0; i < n; i++)
    if (MPROF_PRIM_ROLE(&p[i]) == MPROF_ROLE_EDGE &&
        p[i].kind == MPROF_PRIM_TEXT)
      assert_string_equal(texts + MPROF_PRIM_TEXT_OFFSET(&p[i]), want[edges++]);
  assert_int_equal(edges, 2);
  /* keys: zoom around the range's middle, move by a share of it */
  mprof_timeline_zoom_middle(tl, 0.5);
  assert_float_equal(mprof_timeline_t0(tl), 2001250000, 1e-3);
  assert_float_equal(mprof_timeline_t1(tl), 2001750000, 1e-3);
  mprof_timeline_shift(tl, -0.125);
  assert_float_equal(mprof_timeline_t0(tl), 2001187500, 1e-3);
  assert_float_equal(mprof_timeline_t1(tl), 2001687500, 1e-3);
  mprof_timeline_free(tl);
  mprof_model_free(m);
}

/* A start-up with more than 1 % of the activity is kept; a lone event
 * long after the burst is left out; a trace busy all along, one with a
 * single event and one with none are whole. */
static void test_busy_edges(void **state) {
  (void)state;
  static story_t s;
  int64_t start, end;
  burst_story(&s, 20);
  busy_of(&s, &start, &end);
  /* the activity: 601 running spans, 301 arrows, the labels */
  assert_int_equal(start, 0); /* 22 of 922: kept */
  burst_story(&s, 7);
  busy_of(&s, &start, &end);
  assert_int_equal(start, 2000000000); /* 9 of 909: left out */
  burst_story(&s, 0);
  add(&s, MPROF_EVENT_LABEL, 9000000000, 0, 2, "late");
  busy_of(&s, &start, &end);
  assert_int_equal(start, 2000000000);
  assert_int_equal(end, 2000000000 + 299 * 10000 + 900);
  s.count = 0;
  requests(&s, 0, 300);
  busy_of(&s, &start, &end);
  assert_int_equal(start, 0);
  assert_int_equal(end, 299 * 10000 + 900);
  s.count = 0;
  add(&s, MPROF_EVENT_LABEL, 5, 0, 7, "alone");
  busy_of(&s, &start, &end);
  assert_true(start == 0 && end >= 0);
  s.count = 0;
  mprof_model_t *m = model_of(&s);
  mprof_scene_busy(m, &start, &end);
  assert_true(start == 0 && end == 0);
  mprof_timeline_t *tl = mprof_timeline_new();
  assert_int_equal(mprof_timeline_show(tl, m, NULL), 0);
  mprof_timeline_resize(tl, 0, 1000, 300);
  mprof_timeline_fit(tl);
  assert_true(mprof_timeline_t0(tl) <= 0 && mprof_timeline_t1(tl) > 0);
  assert_true(mprof_timeline_build(tl, 0) >= 0);
  mprof_timeline_free(tl);
  mprof_model_free(m);
}

/* The texts of the name column of pane 0's last build, a line each as
 * "X0 X1 TEXT". */
static void name_column(const mprof_timeline_t *tl, int n, char *out,
                        size_t size) {
  const mprof_prim_t *p = mprof_timeline_prims(tl, 0);
  const char *texts = mprof_timeline_text(tl, 0);
  size_t at = 0;
  out[0] = 0;
  for (int i = 0; i < n; i++)
    if (MPROF_PRIM_ROLE(&p[i]) == MPROF_ROLE_NAME &&
        p[i].kind == MPROF_PRIM_TEXT)
      at += (size_t)snprintf(out + at, size - at, "%g %g %s\n", p[i].x0,
                             p[i].x1, texts + MPROF_PRIM_TEXT_OFFSET(&p[i]));
}

/* Row 0: "first" (0-1000), then "second" (2000-3000); row 1: a name too
 * long for the column (0-3000). */
static mprof_model_t *names_model(void) {
  static story_t s;
  s.count = 0;
  add(&s, MPROF_EVENT_CREATE, 0, 0, 1, "");
  add(&s, MPROF_EVENT_LABEL, 0, 0, 1, "first");
  add(&s, MPROF_EVENT_CREATE, 0, 0, 3, "");
  add(&s, MPROF_EVENT_LABEL, 0, 0, 3,
      "a request whose name is far longer than the column");
  add(&s, MPROF_EVENT_RESOLVE, 1000, 0, 1, "");
  add(&s, MPROF_EVENT_CREATE, 2000, 0, 2, "");
  add(&s, MPROF_EVENT_LABEL, 2000, 0, 2, "second");
  add(&s, MPROF_EVENT_RESOLVE, 3000, 0, 2, "");
  add(&s, MPROF_EVENT_RESOLVE, 3000, 0, 3, "");
  return model_of(&s);
}

static void test_name_column(void **state) {
  (void)state;
  mprof_model_t *m = names_model();
  mprof_timeline_t *tl = mprof_timeline_new();
  assert_int_equal(mprof_timeline_show(tl, m, NULL), 0);
  mprof_timeline_resize(tl, 0, 1000, 300);
  mprof_timeline_set_range(tl, 0, 3000);
  char column[512];
  name_column(tl, mprof_timeline_build(tl, 0), column, sizeof column);
  assert_string_equal(column,
                      "4 116 first\n"
                      "4 116 a request whose name is far longer than the "
                      "column\n");
  /* panned to 1500-4500: "first" has left, the column names "second",
   * still at its left */
  mprof_timeline_pan(tl, 0, -440, 0);
  assert_float_equal(mprof_timeline_t0(tl), 1500, 1e-6);
  name_column(tl, mprof_timeline_build(tl, 0), column, sizeof column);
  assert_string_equal(column,
                      "4 116 second\n"
                      "4 116 a request whose name is far longer than the "
                      "column\n");
  /* a narrow pane: a quarter of it */
  mprof_timeline_resize(tl, 0, 200, 300);
  assert_int_equal(mprof_timeline_viewport(tl, 0).names_px, 50);
  name_column(tl, mprof_timeline_build(tl, 0), column, sizeof column);
  assert_string_equal(column, "4 46 second\n"
                              "4 46 a request whose name is far longer than "
                              "the column\n");
  /* a double-click on a name picks the thread it names */
  mprof_timeline_resize(tl, 0, 1000, 300);
  mprof_viewport_t vp = mprof_timeline_viewport(tl, 0);
  assert_int_equal(mprof_timeline_hit(tl, 0, 60, mprof_scene_row_y(&vp, 0)),
                   (int)mprof_model_find(m, 2));
  assert_int_equal(mprof_timeline_hit(tl, 0, 60, mprof_scene_row_y(&vp, 1)),
                   (int)mprof_model_find(m, 3));
  assert_int_equal(mprof_timeline_hit(tl, 0, 60, mprof_scene_row_y(&vp, 2)),
                   -1);
  mprof_timeline_free(tl);
  mprof_model_free(m);
}

/* The legend entries, as their palette names joined by commas. */
static void legend_names(const mprof_timeline_t *tl, char *out, size_t size) {
  size_t at = 0;
  out[0] = 0;
  for (int i = 0, c; (c = mprof_timeline_legend(tl, i)) >= 0; i++)
    at += (size_t)snprintf(out + at, size - at, "%s%s", i ? "," : "",
                           mprof_scene_palette[c].name);
}

/* One trace of every ending and most arrow kinds, one of a few. */
static void test_legend(void **state) {
  (void)state;
  static story_t s;
  s.count = 0;
  add(&s, MPROF_EVENT_SWITCH, 0, 0, 1, "");
  add(&s, MPROF_EVENT_CREATE, 10, 1, 2, "");
  add(&s, MPROF_EVENT_CREATE, 20, 1, 3, "");
  add(&s, MPROF_EVENT_CREATE, 30, 1, 4, "");
  add(&s, MPROF_EVENT_SHOULD_RESOLVE, 35, 1, 4, "");
  add(&s, MPROF_EVENT_TRY_READ, 40, 1, 2, "");
  add(&s, MPROF_EVENT_FAIL, 50, 1, 3, "boom");
  add(&s, MPROF_EVENT_READ, 60, 1, 3, "");
  add(&s, MPROF_EVENT_SIGNAL, 70, 1, 2, "");
  add(&s, MPROF_EVENT_SUSPEND, 80, 0, 0, "");
  mprof_model_t *a = model_of(&s);
  burst_story(&s, 0);
  add(&s, MPROF_EVENT_COUNTER_NAME, 0, 0, 0, "queue");
  s.events[s.count - 1].counter = 1;
  add_counter(&s, 5, 1);
  mprof_model_t *b = model_of(&s);
  mprof_timeline_t *tl = mprof_timeline_new();
  char names[512];
  assert_int_equal(mprof_timeline_show(tl, a, NULL), 0);
  legend_names(tl, names, sizeof names);
  assert_string_equal(names, "thread,running,create,read_failed,try_read,"
                             "resolve,signal,failed,never resolved");
  assert_int_equal(mprof_timeline_show(tl, b, NULL), 0);
  legend_names(tl, names, sizeof names);
  /* (a request resolving itself draws no arrow) */
  assert_string_equal(names, "thread,running,create,idle,counter");
  /* compared: both traces' kinds, and their first divergence */
  assert_int_equal(mprof_timeline_show(tl, a, b), 0);
  legend_names(tl, names, sizeof names);
  assert_string_equal(names, "thread,running,create,read_failed,try_read,"
                             "resolve,signal,failed,never resolved,idle,"
                             "counter,first divergence");
  mprof_colour_t out[MPROF_COLOUR_COUNT];
  assert_int_equal(mprof_scene_legend(b, out), 5);
  assert_int_equal(out[4], MPROF_COLOUR_COUNTER);
  mprof_timeline_free(tl);
  mprof_model_free(a);
  mprof_model_free(b);
}

/* --- The palette, against WCAG 2 and CIE Lab -------------------------- */

static double linear(uint32_t channel) {
  double c = channel / 255.0;
  return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double luminance(uint32_t rgb) {
  return 0.2126 * linear(rgb >> 16 & 255) + 0.7152 * linear(rgb >> 8 & 255) +
         0.0722 * linear(rgb & 255);
}

/* WCAG 2's contrast ratio, 1 to 21. */
static double contrast(uint32_t a, uint32_t b) {
  double la = luminance(a), lb = luminance(b);
  return la > lb ? (la + 0.05) / (lb + 0.05) : (lb + 0.05) / (la + 0.05);
}

static double lab_f(double t) {
  return t > 0.008856 ? cbrt(t) : 7.787 * t + 16.0 / 116;
}

/* CIE76 colour difference: about 2.3 is just noticeable. */
static double delta_e(uint32_t a, uint32_t b) {
  double lab[2][3];
  uint32_t rgb[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    double r = linear(rgb[k] >> 16 & 255), g = linear(rgb[k] >> 8 & 255),
           bl = linear(rgb[k] & 255);
    double x = (0.4124 * r + 0.3576 * g + 0.1805 * bl) / 0.95047;
    double y = 0.2126 * r + 0.7152 * g + 0.0722 * bl;
    double z = (0.0193 * r + 0.1192 * g + 0.9505 * bl) / 1.08883;
    lab[k][0] = 116 * lab_f(y) - 16;
    lab[k][1] = 500 * (lab_f(x) - lab_f(y));
    lab[k][2] = 200 * (lab_f(y) - lab_f(z));
  }
  double d = 0;
  for (int i = 0; i < 3; i++)
    d += (lab[0][i] - lab[1][i]) * (lab[0][i] - lab[1][i]);
  return sqrt(d);
}

/* What legends may show: all but the background, texts, the axis and
 * the name column. */
static int in_legends(int c) {
  return c != MPROF_COLOUR_BACKGROUND && c != MPROF_COLOUR_TEXT &&
         c != MPROF_COLOUR_AXIS && c != MPROF_COLOUR_NAMES;
}

/* Drawn as lines or spans over the background (not bands or marks). */
static int drawn_as_line(int c) {
  return in_legends(c) && c != MPROF_COLOUR_IDLE && c != MPROF_COLOUR_GC &&
         c != MPROF_COLOUR_HIGHLIGHT && c != MPROF_COLOUR_MATCH;
}

static void test_palette(void **state) {
  (void)state;
  uint32_t bg = mprof_scene_palette[MPROF_COLOUR_BACKGROUND].rgb;
  /* the oracle: white on the old light grey, black on white */
  assert_float_equal(contrast(0xffffff, 0xe8e8e8), 1.225, 0.001);
  assert_float_equal(contrast(0x000000, 0xffffff), 21, 1e-9);
  assert_true(contrast(mprof_scene_palette[MPROF_COLOUR_RUNNING].rgb, bg) >= 3);
  for (int c = 0; c < MPROF_COLOUR_COUNT; c++) {
    double ratio = contrast(mprof_scene_palette[c].rgb, bg);
    if (drawn_as_line(c) && ratio < 3)
      fail_msg("%s (#%06x) has a contrast of %.2f on the background",
               mprof_scene_palette[c].name, mprof_scene_palette[c].rgb, ratio);
  }
  for (int a = 0; a < MPROF_COLOUR_COUNT; a++)
    for (int b = a + 1; b < MPROF_COLOUR_COUNT; b++) {
      double d =
          delta_e(mprof_scene_palette[a].rgb, mprof_scene_palette[b].rgb);
      if (in_legends(a) && in_legends(b) && d < 20)
        fail_msg("%s and %s look alike (delta E %.1f)",
                 mprof_scene_palette[a].name, mprof_scene_palette[b].name, d);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_busy_burst),  cmocka_unit_test(test_busy_edges),
      cmocka_unit_test(test_name_column), cmocka_unit_test(test_legend),
      cmocka_unit_test(test_palette),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
