/* pyramid.c -- the level-of-detail pyramid of a trace too big to model
 * (src/model/scene_pyramid.h) as the window opens it: read from its file,
 * TRACE.mppyr beside the trace's index (or in the cache with it), if that
 * is whole, good, of this trace and of the one shape made here; else made
 * in one pass over the trace and written whole or not at all
 * (mprof_output_open()).
 *
 * Its size is bounded: PYRAMID_ROWS rows (more fold into the last),
 * PYRAMID_COUNTERS counters, FINEST_COLUMNS columns at the finest level
 * and half as many at each coarser one down to COARSEST_COLUMNS: at most
 * FINEST_COLUMNS x (rows + 65 + 16 x counters) bytes for the finest
 * (18 MiB), and its names on lines, each at least 16 columns wide, at
 * most rows x FINEST_COLUMNS / 15 of 76 bytes (41 MiB); as much again for
 * the other levels at most.  A file is read no further than its header
 * until the size it says is one such a pyramid may take. */
#define _GNU_SOURCE /* O_CLOEXEC, O_NOFOLLOW */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pyramid.h"
#include "view.h"

#define PYRAMID_ROWS 256
#define PYRAMID_COUNTERS 16
#define FINEST_COLUMNS 32768
#define COARSEST_COLUMNS 512

int mprof__view_pyramid_path(const char *trace_path, int cache, char *path,
                             size_t size) {
  int err = mprof_index_path(trace_path, cache, path, size);
  if (err) return err;
  size_t n = strlen(path);
  if (n < 5 || strcmp(path + n - 5, "mpidx")) return MPROF_EINVAL;
  memcpy(path + n - 5, "mppyr", 5);
  return 0;
}

static void key_bytes(const mprof_index_key_t *key,
                      uint8_t out[MPROF_PYRAMID_KEY]) {
  for (int i = 0; i < 8; i++) {
    out[i] = (uint8_t)(key->size >> 8 * i);
    out[8 + i] = (uint8_t)((uint64_t)key->mtime_ns >> 8 * i);
  }
  memcpy(out + 16, key->uuid, 16);
}

mprof_pyramid_shape_t mprof__view_pyramid_shape(const mprof_index_t *index) {
  mprof_pyramid_shape_t shape = {0, 0, FINEST_COLUMNS, PYRAMID_ROWS,
                                 PYRAMID_COUNTERS};
  mprof__view_whole_range(index, &shape.t0_ns, &shape.t1_ns);
  return shape;
}

/* n bytes from fd into data.  Returns 0, or -1 (errno set). */
static int read_exactly(int fd, uint8_t *data, size_t n) {
  for (size_t got = 0; got < n;) {
    ssize_t r = read(fd, data + got, n - got);
    if (r <= 0) {
      if (!r) errno = EIO; /* it shrank as it was read */
      return -1;
    }
    got += (size_t)r;
  }
  return 0;
}

/* The file fd, of st_size bytes: its header first, and the rest only if
 * the size the header says is the file's and one of shape may have. */
static int read_checked(int fd, uint64_t st_size,
                        const mprof_pyramid_shape_t *shape, uint8_t **data,
                        const char **why) {
  uint8_t header[MPROF_PYRAMID_HEADER];
  uint64_t size;
  *why = "truncated";
  if (st_size < sizeof header) return MPROF_EINVAL;
  *why = "cannot be read";
  if (read_exactly(fd, header, sizeof header)) return MPROF_EIO;
  if (mprof_pyramid_size(header, shape, &size, why)) return MPROF_EINVAL;
  *why = "truncated";
  if (size != st_size) return MPROF_EINVAL;
  *why = "out of memory";
  if (size > SIZE_MAX || !(*data = malloc((size_t)size))) return MPROF_ENOMEM;
  memcpy(*data, header, sizeof header);
  *why = "cannot be read";
  return read_exactly(fd, *data + sizeof header, (size_t)size - sizeof header)
             ? MPROF_EIO
             : 0;
}

/* The regular file at path (not a link to one), into a new buffer *data
 * of *size.  Returns 0, MPROF_EIO (errno set), MPROF_EINVAL (not a file
 * of shape) or MPROF_ENOMEM; *why says why. */
static int read_file(const char *path, const mprof_pyramid_shape_t *shape,
                     uint8_t **data, size_t *size, const char **why) {
  *data = NULL;
  *why = "cannot be read";
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  if (fd < 0) return MPROF_EIO;
  struct stat st;
  if (fstat(fd, &st)) {
    close(fd);
    return MPROF_EIO;
  }
  int err = MPROF_EINVAL;
  if (S_ISREG(st.st_mode))
    err = read_checked(fd, (uint64_t)st.st_size, shape, data, why);
  else
    *why = "not a regular file";
  close(fd);
  if (!err) *size = (size_t)st.st_size;
  if (err) {
    free(*data);
    *data = NULL;
  }
  return err;
}

int mprof__view_pyramid_read(const char *path, const mprof_index_key_t *key,
                             const mprof_pyramid_shape_t *shape,
                             mprof_cells_t **finest, const char **why) {
  size_t size = 0;
  uint8_t *data;
  *finest = NULL;
  int err = read_file(path, shape, &data, &size, why);
  if (err) return err;
  uint8_t k[MPROF_PYRAMID_KEY];
  key_bytes(key, k);
  err = mprof_pyramid_parse(data, size, k, shape, finest, why);
  free(data);
  return err;
}

int mprof__view_pyramid_write(const mprof_cells_t *finest,
                              const mprof_index_key_t *key, const char *path) {
  uint8_t k[MPROF_PYRAMID_KEY], *data;
  size_t size;
  key_bytes(key, k);
  int err = mprof_pyramid_bytes(finest, k, &data, &size);
  if (err) return err;
  err = mprof_index_write_file(path, data, size);
  free(data);
  return err;
}

/* The summary read from beside the trace or from the cache, if one there
 * is whole, good, of this trace and of shape; *why says why the first
 * file there was not believed (NULL: none was there). */
static mprof_cells_t *find(const char *trace_path, const mprof_index_key_t *key,
                           const mprof_pyramid_shape_t *shape,
                           const char **why) {
  for (int cache = 0; cache < 2; cache++) {
    char path[4096];
    mprof_cells_t *finest;
    const char *refused;
    if (mprof__view_pyramid_path(trace_path, cache, path, sizeof path))
      continue;
    int err = mprof__view_pyramid_read(path, key, shape, &finest, &refused);
    if (!err) return finest;
    if (!*why && (err != MPROF_EIO || errno != ENOENT)) *why = refused;
  }
  return NULL;
}

/* The summary made in one pass, written beside the trace or else in the
 * cache (unsaved if neither can be written). */
static int build(const char *trace_path, const mprof_trace_t *trace,
                 const mprof_pyramid_shape_t *shape,
                 const mprof_index_key_t *key, mprof_progress_fn progress,
                 void *progress_context, mprof_cells_t **out) {
  int err = mprof_cells_new(shape->t0_ns, shape->t1_ns, shape->columns,
                            shape->rows, out);
  if (err) return err;
  (*out)->counter_limit = shape->counter_limit;
  err = mprof_cells_stream(trace, *out, progress, progress_context);
  if (err) {
    mprof_cells_free(*out);
    *out = NULL;
    return err;
  }
  for (int cache = 0; cache < 2; cache++) {
    char path[4096];
    if (!mprof__view_pyramid_path(trace_path, cache, path, sizeof path) &&
        !mprof__view_pyramid_write(*out, key, path))
      break;
  }
  return 0;
}

int mprof__view_pyramid_find(const char *trace_path,
                             const mprof_index_key_t *key,
                             const mprof_index_t *index, const char **why,
                             mprof_pyramid_t **out) {
  *out = NULL;
  *why = NULL;
  mprof_pyramid_shape_t shape = mprof__view_pyramid_shape(index);
  mprof_cells_t *finest = find(trace_path, key, &shape, why);
  return finest ? mprof_pyramid_new(finest, COARSEST_COLUMNS, out)
                : MPROF_EINVAL;
}

int mprof__view_pyramid_open(const char *trace_path, const mprof_trace_t *trace,
                             const mprof_index_t *index,
                             mprof_progress_fn progress, void *progress_context,
                             int *built, const char **why,
                             mprof_pyramid_t **out) {
  mprof_index_key_t key;
  *out = NULL;
  *built = 0;
  *why = NULL;
  int err = mprof_index_key(trace_path, trace, &key);
  if (!err) err = mprof__view_pyramid_find(trace_path, &key, index, why, out);
  if (err != MPROF_EINVAL) return err;
  mprof_pyramid_shape_t shape = mprof__view_pyramid_shape(index);
  mprof_cells_t *finest;
  *built = 1;
  err = build(trace_path, trace, &shape, &key, progress, progress_context,
              &finest);
  return err ? err : mprof_pyramid_new(finest, COARSEST_COLUMNS, out);
}
