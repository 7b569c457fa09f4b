/* html_staging.h -- the directory `mprof html` writes, built under a
 * temporary name beside it and moved into place whole once every trace
 * was read unchanged, so that a failure leaves nothing half written. */
#ifndef MPROF_HTML_STAGING_H
#define MPROF_HTML_STAGING_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The size and modification time of the open file f, which tell that a
 * trace was rewritten while the directory was being built; -1 if not
 * known. */
int staging_file_key(FILE *f, size_t *size, int64_t *mtime_ns);

/* Make a new directory (0700: it holds traces) beside dir, named after
 * it, into tmp (size bytes); 0, or -1 with errno set. */
int staging_make(const char *dir, char *tmp, size_t size);

/* path as it will be named once the directory being built is moved into
 * place (path itself if it is not in it): messages never name the
 * temporary directory.  A buffer of its own, good until the next call. */
const char *staging_shown(const char *path);

/* Move what tmp holds to dir: tmp renamed dir if there is none, else each
 * of its files moved into dir, over the one of its name (the files of dir
 * that are not the page's stay).  tmp is gone after.  0, or -1 with errno
 * set and *failed the path that could not be moved. */
int staging_commit(const char *tmp, const char *dir, char *failed, size_t size);

/* Remove tmp and all it holds. */
void staging_drop(const char *tmp);

#endif
