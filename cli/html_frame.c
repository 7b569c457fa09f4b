/* html_frame.c -- the first frame of `mprof html`'s page, built here with
 * the same model and view core (src/model, src/scene) that the page runs
 * as WebAssembly: the view state's fit view for the panes of a few common
 * windows (html_frame.h).
 * The page paints this display list as soon as its canvas exists, before
 * its own model is built (which takes the WebAssembly module's compilation
 * and the model's load), then replaces it with its own frame of the same
 * view: the same picture (test/web/test_viewer.js compares the pixels).
 * A pane of another size gets the nearest of them mapped to it, a stand-in
 * (web/viewer/first_frame.js, paintStandIn()). */
#include <stdlib.h>
#include <string.h>

#include "html_frame.h"
#include "mprof.h"
#include "timeline.h"

const html_frame_window_t html_frame_windows[HTML_FRAME_COUNT] = {
    {1920, 1080}, {1366, 768}, {1536, 864},
    {1280, 720},  {1440, 900}, {1600, 900}};

static void put_word(unsigned char *at, uint32_t word) {
  for (int i = 0; i < 4; i++) at[i] = (unsigned char)(word >> (8 * i));
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
  if (!out->prims) return MPROF_ENOMEM;
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
static int copy_text(const char *text, const mprof_prim_t *prims, size_t count,
                     html_frame_t *out) {
  size_t size = 1; /* offset 0: the empty text */
  for (size_t i = 0; i < count; i++) {
    if (prims[i].kind != MPROF_PRIM_TEXT) continue;
    size_t at = MPROF_PRIM_TEXT_OFFSET(&prims[i]);
    size_t end = at + strlen(text + at) + 1;
    if (end > size) size = end;
  }
  out->text = malloc(size);
  if (!out->text) return MPROF_ENOMEM;
  memcpy(out->text, text, size);
  out->text_size = size;
  return 0;
}

/* Pane 0 of tl, fit to out's size as the page's first frame shows it,
 * copied into out. */
static int build_frame(mprof_timeline_t *tl, html_frame_t *out) {
  mprof_timeline_resize(tl, 0, out->width_px, out->height_px);
  mprof_timeline_fit(tl);
  out->t0_ns = mprof_timeline_t0(tl);
  out->t1_ns = mprof_timeline_t1(tl);
  int count = mprof_timeline_build(tl, 0);
  if (count < 0) return count;
  const mprof_prim_t *prims = mprof_timeline_prims(tl, 0);
  const char *text = mprof_timeline_text(tl, 0);
  int err = copy_prims(prims, (size_t)count, out);
  return err ? err : copy_text(text, prims, (size_t)count, out);
}

/* The frames of every window's pane, of the view state the page starts
 * with: every counter shown, nothing selected. */
static int build_frames(const mprof_model_t *model, html_frame_t *frames) {
  mprof_timeline_t *tl = mprof_timeline_new();
  int err = tl ? mprof_timeline_show(tl, model, NULL) : MPROF_ENOMEM;
  for (int i = 0; i < HTML_FRAME_COUNT && !err; i++) {
    frames[i].width_px = html_frame_windows[i].width - HTML_FRAME_SIDE_PX;
    frames[i].height_px = html_frame_windows[i].height - HTML_FRAME_BARS_PX;
    err = build_frame(tl, &frames[i]);
  }
  mprof_timeline_free(tl);
  return err;
}

/* The trace's damage: already told, under the trace's name, when mprof
 * html read it. */
static void told_already(void *context, const char *line) {
  (void)context;
  (void)line;
}

int html_frame_build(const unsigned char *data, size_t size,
                     html_frame_t *frames) {
  memset(frames, 0, HTML_FRAME_COUNT * sizeof *frames);
  mprof_trace_t *trace;
  mprof_model_t *model = NULL;
  int err =
      mprof_trace_open_memory(data, size, "trace", told_already, NULL, &trace);
  if (err) return err;
  err = mprof_model_load(trace, &model);
  mprof_trace_close(trace);
  if (!err) err = build_frames(model, frames);
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
