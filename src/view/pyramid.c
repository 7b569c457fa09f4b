/* pyramid.c -- the level-of-detail pyramid of a trace too big to model
 * (src/model/scene_pyramid.h) as the window opens it: read from its file,
 * TRACE.mppyr beside the trace's index (or in the cache with it), if that
 * is whole, good and of this trace; else made in one pass over the trace
 * and written whole or not at all (a temporary name renamed over it).
 *
 * Its size is bounded: PYRAMID_ROWS rows (more fold into the last),
 * PYRAMID_COUNTERS counters, FINEST_COLUMNS columns at the finest level
 * and half as many at each coarser one down to COARSEST_COLUMNS: at most
 * FINEST_COLUMNS x (rows + 57 + 16 x counters) bytes for the finest
 * (19 MiB), and its names on lines, at most one per 16 columns of a row,
 * 76 bytes each (38 MiB); about as much again for the other levels. */
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

/* The whole of the file at path, into a new buffer; NULL if it cannot be
 * read. */
static uint8_t *read_file(const char *path, size_t *size) {
  int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0) return NULL;
  uint8_t *data = NULL;
  if (!fstat(fd, &st) && st.st_size > 0 && (data = malloc((size_t)st.st_size)))
    for (size_t got = 0; got < (size_t)st.st_size;) {
      ssize_t n = read(fd, data + got, (size_t)st.st_size - got);
      if (n <= 0) {
        free(data);
        data = NULL;
        break;
      }
      got += (size_t)n;
    }
  close(fd);
  *size = (size_t)st.st_size;
  return data;
}

int mprof__view_pyramid_read(const char *path, const mprof_index_key_t *key,
                             mprof_cells_t **finest, const char **why) {
  size_t size = 0;
  uint8_t *data = read_file(path, &size);
  *finest = NULL;
  if (!data) {
    *why = "cannot be read";
    return MPROF_EIO;
  }
  uint8_t k[MPROF_PYRAMID_KEY];
  key_bytes(key, k);
  int err = mprof_pyramid_parse(data, size, k, finest, why);
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
  char temp[4096];
  int fd = -1;
  if (snprintf(temp, sizeof temp, "%s.%ld.tmp", path, (long)getpid()) <
      (int)sizeof temp)
    fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  size_t done = 0;
  while (fd >= 0 && done < size) {
    ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) break;
    done += (size_t)n;
  }
  free(data);
  if (fd >= 0 && close(fd) == 0 && done == size && rename(temp, path) == 0)
    return 0;
  if (fd >= 0) unlink(temp);
  return MPROF_EIO;
}

/* The summary read from beside the trace or from the cache, if one there
 * is good; *why says why one there was not believed. */
static mprof_cells_t *find(const char *trace_path, const mprof_index_key_t *key,
                           const char **why) {
  for (int cache = 0; cache < 2; cache++) {
    char path[4096];
    mprof_cells_t *finest;
    const char * not ;
    if (mprof__view_pyramid_path(trace_path, cache, path, sizeof path))
      continue;
    int err = mprof__view_pyramid_read(path, key, &finest, &not );
    if (!err) return finest;
    if (err != MPROF_EIO || errno != ENOENT) *why = not ;
  }
  return NULL;
}

/* The summary made in one pass, written beside the trace or else in the
 * cache (unsaved if neither can be written). */
static int build(const char *trace_path, const mprof_trace_t *trace,
                 const mprof_index_t *index, const mprof_index_key_t *key,
                 mprof_progress_fn progress, void *progress_context,
                 mprof_cells_t **out) {
  int64_t t0, t1;
  mprof__view_whole_range(index, &t0, &t1);
  int err = mprof_cells_new(t0, t1, FINEST_COLUMNS, PYRAMID_ROWS, out);
  if (err) return err;
  (*out)->counter_limit = PYRAMID_COUNTERS;
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
  if (err) return err;
  mprof_cells_t *finest = find(trace_path, &key, why);
  if (!finest) {
    *built = 1;
    err = build(trace_path, trace, index, &key, progress, progress_context,
                &finest);
  }
  return err ? err : mprof_pyramid_new(finest, COARSEST_COLUMNS, out);
}
