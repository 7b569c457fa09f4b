/* html_frame.c -- the first frame of `mprof html`'s page, built here with
 * the same model and scene code (src/model) that the page runs as
 * WebAssembly: the trace's fit view for the panes of a few common windows
 * (html_frame.h).
 * The page paints this display list as soon as its canvas exists, before
 * its own model is built (which takes the WebAssembly module's compilation
 * and the model's load), then replaces it with its own frame of the same
 * view: the same picture (test/web/test_viewer.js compares the pixels).
 * A pane of another size gets the nearest of them mapped to it, a stand-in
 * (web/viewer.js, paintStandIn()). */
#include <stdlib.h>
#include <string.h>

#include "html_frame.h"
#include "mprof.h"
#include "scene.h"

const html_frame_window_t html_frame_windows[HTML_FRAME_COUNT] = {
    {1920, 1080}, {1366, 768}, {1536, 864}, {1280, 720}, {1440, 900}, {1600, 900}};

/* The page's fit(): the trace's extent [0, duration] and 2 % on each
 * side, in doubles as JavaScript computes it. */
static void fit(const mprof_model_view_t *v, html_frame_t *out) {
  double lo = 0, hi = v->duration_ns > 1 ? (double)v->duration_ns : 1;
  double d = hi - lo, t1 = hi + d * 0.02;
  out->t0_ns = lo - d * 0.02;
  out->t1_ns = out->t0_ns + (t1 - out->t0_ns > 10 ? t1 - out->t0_ns : 10);
}

static void put_word(unsigned char *at, uint32_t word) {
  for (int i = 0; i < 4; i++)
    at[i] = (unsigned char)(word >> (8 * i));
}

static uint32_t float_word(float value) {
  uint32_t word;
  memcpy(&word, &value, sizeof word);
  return word;
}

/* The primitives as little-endian words, as the page reads them. */
static int copy_prims(const mprof_prim_t *prims, size_t count,
                      html_frame_t *out) {
  out->prims = malloc(count * sizeof *prims + 1);
  if (!out->prims)
    return MPROF_ENOMEM;
  for (size_t i = 0; i < count; i++) {
    const mprof_prim_t *p = &prims[i];
    const uint32_t words[10] = {float_word(p->x0),
                                float_word(p->y0),
                                float_word(p->x1),
                                float_word(p->y1),
                                p->kind,
                                p->colour,
                                float_word(p->alpha),
                                float_word(p->width),
                                p->thread,
                                p->role_text};
    for (int k = 0; k < 10; k++)
      put_word(out->prims + (i * 10 + (size_t)k) * 4, words[k]);
  }
  out->prims_size = count * 40;
  return 0;
}

/* The scene's texts up to the end of the last one a primitive uses. */
static int copy_text(const mprof_scene_t *scene, const mprof_prim_t *prims,
                     size_t count, html_frame_t *out) {
  const char *text = mprof_scene_text(scene);
  size_t size = 1; /* offset 0: the empty text */
  for (size_t i = 0; i < count; i++) {
    if (prims[i].kind != MPROF_PRIM_TEXT)
      continue;
    size_t at = MPROF_PRIM_TEXT_OFFSET(&prims[i]);
    size_t end = at + strlen(text + at) + 1;
    if (end > size)
      size = end;
  }
  out->text = malloc(size);
  if (!out->text)
    return MPROF_ENOMEM;
  memcpy(out->text, text, size);
  out->text_size = size;
  return 0;
}

/* The scene of model's fit view for out's pane, copied into out. */
static int build_scene(const mprof_model_t *model, mprof_scene_t *scene,
                       const uint8_t *shown, html_frame_t *out) {
  fit(mprof_model_view(model), out);
  mprof_viewport_t vp = {(int64_t)out->t0_ns,
                         (int64_t)out->t1_ns,
                         (uint32_t)out->width_px,
                         (uint32_t)out->height_px,
                         0,
                         HTML_FRAME_ROW_PX};
  mprof_scene_options_t options = {NULL, NULL, shown, NULL};
  int err = mprof_scene_build(scene, model, &vp, &options);
  size_t count = 0;
  const mprof_prim_t *prims = err ? NULL : mprof_scene_prims(scene, &count);
  if (!err)
    err = copy_prims(prims, count, out);
  if (!err)
    err = copy_text(scene, prims, count, out);
  return err;
}

/* The scenes of every window's pane. */
static int build_scenes(const mprof_model_t *model, html_frame_t *frames) {
  const mprof_model_view_t *v = mprof_model_view(model);
  uint8_t *shown = malloc(v->counter_count + 1);
  mprof_scene_t *scene = NULL;
  int err = shown ? mprof_scene_new(&scene) : MPROF_ENOMEM;
  if (!err)
    memset(shown, 1, v->counter_count + 1); /* the page shows them all */
  for (int i = 0; i < HTML_FRAME_COUNT && !err; i++) {
    frames[i].width_px = html_frame_windows[i].width - HTML_FRAME_SIDE_PX;
    frames[i].height_px = html_frame_windows[i].height - HTML_FRAME_BARS_PX;
    err = build_scene(model, scene, shown, &frames[i]);
  }
  mprof_scene_free(scene);
  free(shown);
  return err;
}

int html_frame_build(const unsigned char *data, size_t size,
                     html_frame_t *frames) {
  memset(frames, 0, HTML_FRAME_COUNT * sizeof *frames);
  mprof_trace_t *trace;
  mprof_model_t *model = NULL;
  int err = mprof_trace_open_memory(data, size, "trace", NULL, NULL, &trace);
  if (err)
    return err;
  err = mprof_model_load(trace, &model);
  mprof_trace_close(trace);
  if (!err)
    err = build_scenes(model, frames);
  mprof_model_free(model);
  return err;
}

void html_frame_free(html_frame_t *frames) {
  for (int i = 0; i < HTML_FRAME_COUNT; i++) {
    free(frames[i].prims);
    free(frames[i].text);
  }
  memset(frames, 0, HTML_FRAME_COUNT * sizeof *frames);
}
