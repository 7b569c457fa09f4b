/* open.c -- the view state (timeline.h) the window and --png start from:
 * the documents' models, whole, in panes of a given size. */
#include "view.h"

mprof_timeline_t *mprof__view_timeline(mprof_view_doc_t *const *docs, int count,
                                       int width, int height) {
  mprof_timeline_t *tl = mprof_timeline_new();
  if (!tl || mprof_timeline_show(tl, docs[0]->model,
                                 count > 1 ? docs[1]->model : NULL)) {
    mprof_timeline_free(tl);
    return NULL;
  }
  for (int i = 0; i < count; i++) mprof_timeline_resize(tl, i, width, height);
  mprof_timeline_fit(tl);
  return tl;
}
