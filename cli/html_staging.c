/* html_staging.c -- `mprof html`'s directory built under a temporary name
 * and moved into place whole (html_staging.h). */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "html_staging.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory being built and the one it becomes, from staging_make()
 * to staging_commit() or staging_drop(): what a message names. */
static char staged[4096], final[4096];

int staging_make(const char *dir, char *tmp, size_t size) {
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--; /* "out/" is named as "out" */
  if ((size_t)snprintf(tmp, size, "%.*s.part-XXXXXX", (int)n, dir) >= size) {
    errno = ENAMETOOLONG;
    return -1;
  }
  if (!mkdtemp(tmp)) return -1;
  snprintf(staged, sizeof staged, "%s", tmp);
  snprintf(final, sizeof final, "%.*s", (int)n, dir);
  return 0;
}

const char *staging_shown(const char *path) {
  static char shown[8192];
  size_t n = strlen(staged);
  if (!n || strncmp(path, staged, n) || (path[n] && path[n] != '/'))
    return path;
  snprintf(shown, sizeof shown, "%s%s", final, path + n);
  return shown;
}

static int is_dir(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Each entry of from into to, a directory into the one of its name that
 * is there already; from removed after. */
static int move_into(const char *from, const char *to, char *failed,
                     size_t size) {
  DIR *d = opendir(from);
  int err = d ? 0 : -1;
  struct dirent *e;
  while (!err && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char src[4096], dst[4096];
    snprintf(src, sizeof src, "%s/%s", from, e->d_name);
    snprintf(dst, sizeof dst, "%s/%s", to, e->d_name);
    err = is_dir(src) && is_dir(dst) ? move_into(src, dst, failed, size)
                                     : rename(src, dst);
    if (err && !*failed) snprintf(failed, size, "%s", dst);
  }
  if (d) closedir(d);
  return err || rmdir(from) ? -1 : 0;
}

int staging_commit(const char *tmp, const char *dir, char *failed,
                   size_t size) {
  *failed = '\0';
  struct stat st;
  int there = lstat(dir, &st) == 0;
  staged[0] = '\0';
  if (!there && errno == ENOENT && rename(tmp, dir) == 0) return 0;
  if (there && !S_ISDIR(st.st_mode)) errno = ENOTDIR;
  if (there && S_ISDIR(st.st_mode) && move_into(tmp, dir, failed, size) == 0)
    return 0;
  if (!*failed) snprintf(failed, size, "%s", dir);
  int err = errno;
  staging_drop(tmp);
  errno = err;
  return -1;
}

void staging_drop(const char *tmp) {
  if (!strcmp(tmp, staged)) staged[0] = '\0';
  DIR *d = opendir(tmp);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", tmp, e->d_name);
    if (is_dir(path))
      staging_drop(path);
    else
      unlink(path);
  }
  if (d) closedir(d);
  rmdir(tmp);
}

int staging_file_key(FILE *f, size_t *size, int64_t *mtime_ns) {
  struct stat st;
  if (fstat(fileno(f), &st) != 0) return -1;
  *size = (size_t)st.st_size;
  *mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
  return 0;
}
