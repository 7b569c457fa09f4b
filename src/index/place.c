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

/* The key of a file of head's size and time, and of uuid. */
static void key_of(const mprof_trace_head_t *head, const uint8_t *uuid,
                   mprof_index_key_t *key) {
  memset(key, 0, sizeof *key);
  key->size = head->size;
  key->mtime_ns = head->mtime_ns;
  memcpy(key->uuid, uuid, 16);
}

int mprof_index_key(const char *path, const mprof_trace_t *trace,
                    mprof_index_key_t *key) {
  mprof_trace_head_t status;
  if (mprof_trace_read_status(path, &status)) return MPROF_EIO;
  key_of(&status, mprof_trace_info(trace)->uuid, key);
  return 0;
}

int mprof_index_key_read(const char *path, mprof_index_key_t *key) {
  mprof_trace_head_t head;
  int err = mprof_trace_read_head(path, &head);
  if (err) return err;
  key_of(&head, head.uuid, key);
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

int mprof_index_agrees(const mprof_index_t *x, const mprof_trace_t *trace) {
  if (x->packet_count != mprof_trace_packet_count(trace)) return 0;
  for (size_t i = 0; i < x->packet_count; i++) {
    const mprof_packet_info_t *pk = mprof_trace_packet(trace, i);
    if (x->packets[i].offset != pk->offset ||
        x->packets[i].content_bytes != pk->content_bytes ||
        x->packets[i].header_hash != mprof__index_header_hash(pk))
      return 0;
  }
  return 1;
}

/* Whether x, not of key, is of the same trace file before it grew: the
 * same uuid, no bigger, no newer. */
static int grew_from(const mprof_index_t *x, const mprof_index_key_t *key) {
  return !memcmp(x->key.uuid, key->uuid, 16) && x->key.size <= key->size &&
         x->key.mtime_ns <= key->mtime_ns;
}

/* What is found where an index may be. */
typedef struct finding_s {
  mprof_index_t *valid; /* of the trace as it is */
  mprof_index_t *grown; /* of the trace before it grew */
  const char *why;      /* why the first one there is not valid */
} finding_t;

/* The index at place (0 beside, 1 cache) of the trace, if there is one,
 * into f: valid if of key and (trace not NULL) agreeing with trace's
 * packets.  Returns 0 if it is valid. */
static int find_at(const char *trace_path, const mprof_trace_t *trace,
                   const mprof_index_key_t *key, int place, finding_t *f) {
  char path[PATH_MAX];
  mprof_index_t *x;
  const char *why = NULL;
  if (mprof_index_path(trace_path, place, path, sizeof path) ||
      mprof_index_read(path, NULL, &x, &why)) {
    if (!f->why) f->why = why;
    return -1;
  }
  int same_key = mprof_index_key_equal(&x->key, key);
  if (same_key && (!trace || mprof_index_agrees(x, trace))) {
    f->valid = x;
    return 0;
  }
  if (!f->why)
    f->why = same_key ? "its packets are not the trace's"
                      : "stale: the trace changed since it was built";
  if (!f->grown && grew_from(x, key))
    f->grown = x;
  else
    mprof_index_free(x);
  return -1;
}

/* The index of the trace, beside it or in the cache. */
static void find(const char *trace_path, const mprof_trace_t *trace,
                 const mprof_index_key_t *key, finding_t *f) {
  *f = (finding_t){NULL, NULL, NULL};
  if (find_at(trace_path, trace, key, 0, f))
    find_at(trace_path, trace, key, 1, f);
}

/* The valid index that find() found into *out, the one of the trace
 * before it grew freed. */
static int found_valid(finding_t *f, mprof_index_t **out) {
  mprof_index_free(f->grown);
  *out = f->valid;
  return f->valid ? 0 : MPROF_EINVAL;
}

int mprof_index_find(const char *trace_path, const mprof_trace_t *trace,
                     mprof_index_t **out) {
  mprof_index_key_t key;
  finding_t f;
  if (mprof_index_key(trace_path, trace, &key)) return MPROF_EINVAL;
  find(trace_path, trace, &key, &f);
  return found_valid(&f, out);
}

int mprof_index_find_keyed(const char *trace_path, const mprof_index_key_t *key,
                           mprof_index_t **out, const char **why) {
  finding_t f;
  find(trace_path, NULL, key, &f);
  if (why) *why = f.valid ? NULL : f.why;
  return found_valid(&f, out);
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
  finding_t f;
  if (mprof_index_key(trace_path, trace, &key)) return MPROF_EIO;
  find(trace_path, trace, &key, &f);
  if (why) *why = f.valid || f.grown ? NULL : f.why;
  if (f.valid) {
    mprof_index_free(f.grown);
    if (found) *found = MPROF_INDEX_VALID;
    *out = f.valid;
    return 0;
  }
  int err = mprof_index_extend(f.grown, trace, &key, threads, out);
  mprof_index_free(f.grown);
  if (err) return err;
  int saved = !save(*out, trace_path);
  if (found)
    *found = !saved    ? MPROF_INDEX_UNSAVED
             : f.grown ? MPROF_INDEX_EXTENDED
                       : MPROF_INDEX_BUILT;
  return 0;
}
