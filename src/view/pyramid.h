/* pyramid.h -- the level-of-detail pyramid of a trace too big to model,
 * as the viewer opens it (pyramid.c): read from its file beside the
 * trace's index, or made in one pass and written there. */
#ifndef MPROF_VIEW_PYRAMID_H
#define MPROF_VIEW_PYRAMID_H

#include "../model/scene_pyramid.h"
#include "mprof/index.h"
#include "view.h"

/* The time range that shows the whole of the trace its index is of, with
 * the fit's margin each side: [*t0_ns, *t1_ns), in ns since its first
 * event (open.c). */
void mprof__view_whole_range(const mprof_index_t *index, int64_t *t0_ns,
                             int64_t *t1_ns);

/* Whether the trace at path is one whose whole model would take more
 * than budget_bytes (*bytes, about): one trace file (not standard input
 * or a merged trace), not a legacy one (open.c).  If so (1), *out is the
 * trace opened (its problems told to diag); if not (0), or it cannot be
 * opened, its problems are left to the whole load that follows. */
int mprof__view_open_too_big(const char *path, uint64_t budget_bytes,
                             mprof_diag_fn diag, void *diag_context,
                             uint64_t *bytes, mprof_trace_t **out);

/* About the bytes the model of the part [t0_ns, t1_ns) of index's trace
 * takes: of the packets the index says that part needs, from their sizes
 * in the index, the trace unread (open.c).  Returns 0 or MPROF_ENOMEM. */
int mprof__view_window_bytes(const mprof_index_t *index, int64_t t0_ns,
                             int64_t t1_ns, uint64_t *bytes);

/* The document of the model of those packets, named after path (open.c).
 * Returns 0 or an mprof error. */
int mprof__view_window_doc(const char *path, const mprof_trace_t *trace,
                           const mprof_index_t *index, int64_t t0_ns,
                           int64_t t1_ns, mprof_view_doc_t **out);

/* Where the pyramid of the trace at trace_path lives: beside it, or with
 * cache nonzero in the cache, as its index (mprof_index_path()), ending
 * .mppyr.  Returns 0 or MPROF_EINVAL (the path does not fit). */
int mprof__view_pyramid_path(const char *trace_path, int cache, char *path,
                             size_t size);

/* What the pyramid of index's trace is made as, and must be to be
 * believed: of the window's whole range (mprof__view_whole_range()), at
 * the one size this viewer makes (a width that halves down to its
 * coarsest level, its rows and counters). */
mprof_pyramid_shape_t mprof__view_pyramid_shape(const mprof_index_t *index);

/* The pyramid's finest level in the file at path (a regular file, not a
 * link), believed only if whole, good, of key's trace and of shape; no
 * more of it read than a good one holds.  Returns 0, MPROF_EIO (cannot be
 * read: errno set), MPROF_EINVAL (not believed) or MPROF_ENOMEM; *why
 * says why. */
int mprof__view_pyramid_read(const char *path, const mprof_index_key_t *key,
                             const mprof_pyramid_shape_t *shape,
                             mprof_cells_t **finest, const char **why);

/* Write finest, of key's trace, to path whole or not at all
 * (mprof_output_open()); not where path is (or links to) something other
 * than a regular file.  Returns 0, MPROF_EIO (errno set) or
 * MPROF_ENOMEM. */
int mprof__view_pyramid_write(const mprof_cells_t *finest,
                              const mprof_index_key_t *key, const char *path);

/* The pyramid of the trace at trace_path, whose index is index, of key
 * (the trace file's: mprof_index_key_read()), read if a good one is there
 * as mprof__view_pyramid_open() reads it, without the trace.  Returns 0,
 * MPROF_EINVAL (none good there: *why says why a file there was not
 * believed, NULL if none was there) or MPROF_ENOMEM. */
int mprof__view_pyramid_find(const char *trace_path,
                             const mprof_index_key_t *key,
                             const mprof_index_t *index, const char **why,
                             mprof_pyramid_t **out);

/* The pyramid of trace, opened from trace_path, whose index is index:
 * read if a good one is there, of the whole range the index gives and of
 * the size this viewer makes (mprof__view_pyramid_shape()), else made in
 * one pass (*built set; progress hears how far it has come) and written.
 * *why says why a file there was not believed, NULL if none was there (a
 * caller tells it: "TRACE.mppyr: WHY: made again").  Returns 0 or an
 * mprof error. */
int mprof__view_pyramid_open(const char *trace_path, const mprof_trace_t *trace,
                             const mprof_index_t *index,
                             mprof_progress_fn progress, void *progress_context,
                             int *built, const char **why,
                             mprof_pyramid_t **out);

#endif /* MPROF_VIEW_PYRAMID_H */
