/* scene_pyramid.h -- the level-of-detail pyramid of a trace's picture
 * summary (scene_stream.h): the summary made in one pass at its finest
 * width, and each coarser level made from the one below it by halving
 * (mprof_cells_halve(), exact), down to the coarsest; a frame of any time
 * range and width drawn from the level that fits it, in work bounded by
 * its pixels; and the bytes of the pyramid's file (docs/viewer-gtk.md, "A
 * trace too big to model"), checked whole before it is believed.  No OS
 * calls. */
#ifndef MPROF_SCENE_PYRAMID_H
#define MPROF_SCENE_PYRAMID_H

#include "scene_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most levels a pyramid has. */
#define MPROF_PYRAMID_LEVELS 16
/* The bytes of what a file's key is made of (its trace's size, mtime,
 * uuid, as the index's key). */
#define MPROF_PYRAMID_KEY 32

typedef struct mprof_pyramid_s {
  mprof_cells_t *levels[MPROF_PYRAMID_LEVELS]; /* finest first */
  size_t level_count;
} mprof_pyramid_t;

/* A pyramid of finest (which it takes, freed on failure too): levels
 * halved from it while they have an even number of columns and at least
 * 2 * coarsest_columns.  Returns 0, MPROF_EINVAL or MPROF_ENOMEM. */
int mprof_pyramid_new(mprof_cells_t *finest, uint32_t coarsest_columns,
                      mprof_pyramid_t **out);
void mprof_pyramid_free(mprof_pyramid_t *pyramid);

/* The level a frame of [t0_ns, t1_ns) over `columns` draws from: the
 * coarsest with at least as many columns in that range as the frame. */
size_t mprof_pyramid_level_for(const mprof_pyramid_t *pyramid, int64_t t0_ns,
                               int64_t t1_ns, uint32_t columns);

/* A summary of [t0_ns, t1_ns) (t0 < t1) in columns x rows (rows at most
 * the pyramid's) from that level: each frame column the merge of the
 * level's columns whose start falls in it, or the one it lies in when
 * zoomed past the finest; rows past `rows` folded into the last; labels
 * where their line is MPROF_CELLS_LABEL_COLUMNS wide in the frame.  Only
 * the rows from first_row on (held below `rows`) are filled, those above
 * left empty, as a picture scrolled down to first_row shows them (the
 * arrows are kept whatever their rows: one may reach into view from
 * above).  Where the frame and a level have the same range and columns
 * and first_row is 0 it is that level, exactly.  Returns 0, MPROF_EINVAL
 * or MPROF_ENOMEM. */
int mprof_pyramid_frame(const mprof_pyramid_t *pyramid, int64_t t0_ns,
                        int64_t t1_ns, uint32_t columns, uint32_t first_row,
                        uint32_t rows, mprof_cells_t **out);

/* The file's bytes of a summary (a pyramid's finest level) of the trace
 * whose key is key, into a new buffer *data (free() it) of *size.
 * Returns 0 or MPROF_ENOMEM. */
int mprof_pyramid_bytes(const mprof_cells_t *finest,
                        const uint8_t key[MPROF_PYRAMID_KEY], uint8_t **data,
                        size_t *size);

/* What a file must be to be believed: the range and size of the summary
 * its reader would make (mprof_cells_new()'s, and its counter_limit). */
typedef struct mprof_pyramid_shape_s {
  int64_t t0_ns, t1_ns;
  uint32_t columns, rows, counter_limit;
} mprof_pyramid_shape_t;

/* The bytes of a file's fixed header, which hold its size. */
#define MPROF_PYRAMID_HEADER 128

/* The size a file whose first MPROF_PYRAMID_HEADER bytes are header says
 * it has, if it is a pyramid file and that size is at most what one of
 * shape may take: read before the rest, so that no more is read than a
 * good file holds.  Returns 0 or MPROF_EINVAL (*why says why). */
int mprof_pyramid_size(const uint8_t header[MPROF_PYRAMID_HEADER],
                       const mprof_pyramid_shape_t *shape, uint64_t *size,
                       const char **why);

/* The summary in a file's bytes, checked whole (its magic, size,
 * checksum, every count and reference, its labels in order, apart and
 * wide enough to be drawn) and against key and shape, exactly.  Returns
 * 0, MPROF_EINVAL (*why says why) or MPROF_ENOMEM. */
int mprof_pyramid_parse(const uint8_t *data, size_t size,
                        const uint8_t key[MPROF_PYRAMID_KEY],
                        const mprof_pyramid_shape_t *shape,
                        mprof_cells_t **finest, const char **why);

/* The checksum a file's bytes carry (FNV-1a over them all, its own 8
 * bytes at MPROF_PYRAMID_CHECKSUM_AT read as zeros): for the fuzz target,
 * to reach the checks behind it. */
#define MPROF_PYRAMID_CHECKSUM_AT 48
uint64_t mprof_pyramid_checksum(const uint8_t *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* MPROF_SCENE_PYRAMID_H */
