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

/* The pane the frame is built for: the timeline of a 1600x900 window
 * (viewer.css: the side panel takes 317 px, the toolbar, status line and
 * the pane's border 52 px).  A page whose pane has another size draws its
 * first frame from its model, as it draws every later one. */
#define HTML_FRAME_WIDTH_PX 1283
#define HTML_FRAME_HEIGHT_PX 848
/* viewer.js's row height. */
#define HTML_FRAME_ROW_PX 16

typedef struct html_frame_s {
  double t0_ns, t1_ns;  /* the fit view's range, as the page computes it */
  unsigned char *prims; /* the primitives, ten little-endian 32-bit words
                           each (mprof_prim_t) */
  size_t prims_size;    /* bytes */
  char *text;           /* the scene's texts, at the primitives' offsets */
  size_t text_size;     /* bytes, the last NUL included */
} html_frame_t;

/* Build the fit view's display list of the trace in data (size bytes) for
 * a pane of HTML_FRAME_WIDTH_PX x HTML_FRAME_HEIGHT_PX, every counter
 * shown, nothing highlighted.  Returns 0, or an mprof error (the trace
 * does not read, out of memory); html_frame_free() frees it either way. */
int html_frame_build(const unsigned char *data, size_t size, html_frame_t *out);

void html_frame_free(html_frame_t *frame);

#ifdef __cplusplus
}
#endif

#endif /* MPROF_CLI_HTML_FRAME_H */
