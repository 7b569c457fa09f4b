/* place.c -- where a trace's index lives, and the index of a trace found
 * there or built: TRACE.mpidx beside the trace, else (a directory that
 * cannot be written: a read-only disk, another user's) in the cache
 * directory, named after the trace's absolute path.  An index is
 * believed only if it is whole and good, of this very trace (its key),
 * and agrees with the trace's packets.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "index_internal.h"

int mprof_index_key(const char *path, const mprof_trace_t *trace,
                    mprof_index_key_t *key) {
  struct stat st;
  if (stat(path, &st) < 0) return MPROF_EIO;
  memset(key, 0, sizeof *key);
  key->size = (uint64_t)st.st_size;
  key->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
  memcpy(key->uuid, mprof_trace_info(trace)->uuid, 16);
  return 0;
}

/* FNV-1a of a text: the cache's name for a trace's path. */
static uint64_t text_hash(const char *text) {
  uint64_t h = 0xcbf29ce484222325u;
  for (; *text; text++) h = (h ^ (uint8_t)*text) * 0x100000001b3u;
  return h;
}

/* The cache directory, $XDG_CACHE_HOME/mprof or ~/.cache/mprof, into
 * dir; made (mode 0700) if make is nonzero.  Returns 0 or -1. */
static int cache_directory(char *dir, size_t size, int make) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n = xdg && *xdg     ? snprintf(dir, size, "%s/mprof", xdg)
          : home && *home ? snprintf(dir, size, "%s/.cache/mprof", home)
                          : -1;
  if (n < 0 || (size_t)n >= size) return -1;
  if (!make) return 0;
  char *slash = strrchr(dir, '/');
  *slash = 0;
  mkdir(dir, 0700); /* ~/.cache, if it is not there */
  *slash = '/';
  return mkdir(dir, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

static int fits(int n, size_t size) {
  return n >= 0 && (size_t)n < size ? 0 : MPROF_EINVAL;
}

int mprof_index_path(const char *trace_path, int cache, char *path,
                     size_t size) {
  if (!cache) return fits(snprintf(path, size, "%s.mpidx", trace_path), size);
  char dir[PATH_MAX], absolute[PATH_MAX];
  if (cache_directory(dir, sizeof dir, 0)) return MPROF_EINVAL;
  const char *name = realpath(trace_path, absolute) ? absolute : trace_path;
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  return fits(snprintf(path, size, "%s/%016llx-%s.mpidx", dir,
                       (unsigned long long)text_hash(name), base),
              size);
}

/* Whether index agrees with trace's packets: as many, at the same
 * offsets, of the same sizes. */
static int agrees(const mprof_index_t *x, const mprof_trace_t *trace) {
  if (x->packet_count != mprof_trace_packet_count(trace)) return 0;
  for (size_t i = 0; i < x->packet_count; i++) {
    const mprof_packet_info_t *pk = mprof_trace_packet(trace, i);
    if (x->packets[i].offset != pk->offset ||
        x->packets[i].content_bytes != pk->content_bytes)
      return 0;
  }
  return 1;
}

/* The valid index at place (0 beside, 1 cache) of the trace, if there is
 * one: 0, or MPROF_EINVAL with *why (NULL: no file there). */
static int find_at(const char *trace_path, const mprof_trace_t *trace,
                   const mprof_index_key_t *key, int place, mprof_index_t **out,
                   const char **why) {
  char path[PATH_MAX];
  *why = NULL;
  if (mprof_index_path(trace_path, place, path, sizeof path))
    return MPROF_EINVAL;
  mprof_index_t *x;
  if (mprof_index_read(path, key, &x, why)) return MPROF_EINVAL;
  if (agrees(x, trace)) {
    *out = x;
    return 0;
  }
  mprof_index_free(x);
  *why = "its packets are not the trace's";
  return MPROF_EINVAL;
}

/* The valid index of the trace, beside it or in the cache; *why tells
 * the first one there that was not believed. */
static int find(const char *trace_path, const mprof_trace_t *trace,
                const mprof_index_key_t *key, mprof_index_t **out,
                const char **why) {
  const char *beside, *cached;
  int err = find_at(trace_path, trace, key, 0, out, &beside);
  if (err) err = find_at(trace_path, trace, key, 1, out, &cached);
  *why = err ? (beside ? beside : cached) : NULL;
  return err;
}

int mprof_index_find(const char *trace_path, const mprof_trace_t *trace,
                     mprof_index_t **out) {
  mprof_index_key_t key;
  const char *why;
  if (mprof_index_key(trace_path, trace, &key)) return MPROF_EINVAL;
  return find(trace_path, trace, &key, out, &why);
}

/* Write index beside the trace, else in the cache.  Returns 0 or -1. */
static int save(const mprof_index_t *x, const char *trace_path) {
  char path[PATH_MAX], dir[PATH_MAX];
  if (!mprof_index_path(trace_path, 0, path, sizeof path) &&
      !mprof_index_write(x, path))
    return 0;
  return cache_directory(dir, sizeof dir, 1) ||
                 mprof_index_path(trace_path, 1, path, sizeof path) ||
                 mprof_index_write(x, path)
             ? -1
             : 0;
}

int mprof_index_open(const char *trace_path, const mprof_trace_t *trace,
                     unsigned threads, mprof_index_found_t *found,
                     const char **why, mprof_index_t **out) {
  mprof_index_key_t key;
  const char *problem;
  if (mprof_index_key(trace_path, trace, &key)) return MPROF_EIO;
  if (why) *why = NULL;
  if (!find(trace_path, trace, &key, out, &problem)) {
    if (found) *found = MPROF_INDEX_VALID;
    return 0;
  }
  if (why) *why = problem;
  int err = mprof_index_build(trace, &key, threads, out);
  if (err) return err;
  int saved = !save(*out, trace_path);
  if (found) *found = saved ? MPROF_INDEX_BUILT : MPROF_INDEX_UNSAVED;
  return 0;
}
