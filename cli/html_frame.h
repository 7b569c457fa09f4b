/* html_frame.h -- the first frame of `mprof html`'s page, built natively
 * (html_frame.c): the display list of the trace's fit view, which the page
 * paints before its WebAssembly model exists. */
#ifndef MPROF_CLI_HTML_FRAME_H
#define MPROF_CLI_HTML_FRAME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The windows (CSS px) whose timeline pane gets a first frame: the six
 * most common desktop screen sizes (a maximized window in kiosk or
 * headless mode, the benchmark's).  A pane of a window w x h is
 * (w - HTML_FRAME_SIDE_PX) x (h - HTML_FRAME_BARS_PX) (viewer.css: the
 * side panel, the toolbar, the status line and the pane's border).  A
 * page whose pane has another size draws its first frame from its model,
 * as it draws every later one. */
#define HTML_FRAME_COUNT 6
#define HTML_FRAME_SIDE_PX 317
#define HTML_FRAME_BARS_PX 52

typedef struct html_frame_window_s {
  int width, height;
} html_frame_window_t;

extern const html_frame_window_t html_frame_windows[HTML_FRAME_COUNT];

typedef struct html_frame_s {
  double t0_ns, t1_ns;     /* the fit view's range (timeline.h) */
  int width_px, height_px; /* the pane */
  unsigned char *prims;    /* the primitives, ten little-endian 32-bit words
                              each (mprof_prim_t) */
  size_t prims_size;       /* bytes */
  char *text;              /* the scene's texts, at the primitives' offsets */
  size_t text_size;        /* bytes, the last NUL included */
} html_frame_t;

/* Build the fit view's display list of the trace in data (size bytes) for
 * the pane of each of html_frame_windows, into frames[HTML_FRAME_COUNT]
 * (the model once), every counter shown, nothing highlighted.  Returns 0,
 * or an mprof error (the trace does not read, out of memory);
 * html_frame_free() frees them either way. */
int html_frame_build(const unsigned char *data, size_t size,
                     html_frame_t *frames);

void html_frame_free(html_frame_t *frames);

#ifdef __cplusplus
}
#endif

#endif /* MPROF_CLI_HTML_FRAME_H */
