/* uv_fs.c -- the libuv tracing of file system requests: every uv_fs_* call
 * alike, from the list in mprof/uv.h.  Each is a request's thread labelled
 * "fs NAME TARGET", and reads, writes and sendfiles count their bytes.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>

#include "uv_internal.h"

/* The counters of a read, write or sendfile that moved result bytes (a
 * result of 0 or less: nothing, and req may not even be filled in). */
static void fs_count(const uv_fs_t *req, ssize_t result) {
  if (result <= 0) return;
  if (req->fs_type == UV_FS_READ)
    mprof_counter_increase(mprof__uv_bytes_read, result);
  else if (req->fs_type == UV_FS_WRITE || req->fs_type == UV_FS_SENDFILE)
    mprof_counter_increase(mprof__uv_bytes_written, result);
}

static void fs_done(uv_fs_t *req) {
  mprof__uv_entry_t *entry = mprof__uv_map_take(req);
  ssize_t result = req->result;
  mprof_switch(entry->thread);
  fs_count(req, result);
  ((uv_fs_cb)entry->cb)(req);
  mprof__uv_finish(entry, result < 0 ? (int)result : 0);
}

/* The callback of the stat requests that an fs poll handle makes, one per
 * interval: libuv's own, learned from the first, which libuv makes inside
 * uv_fs_poll_start() (mprof__uv_in_wrapped); the next ones come from libuv's
 * own timer, with the same callback. */
static _Atomic(uv_fs_cb) fs_poll_stat_cb;

/* Is an fs call with callback cb one that libuv makes for an fs poll
 * handle? */
static int fs_poll_own(uv_fs_cb cb) {
  if (mprof__uv_in_wrapped)
    atomic_store_explicit(&fs_poll_stat_cb, cb, memory_order_relaxed);
  return cb &&
         cb == atomic_load_explicit(&fs_poll_stat_cb, memory_order_relaxed);
}

/* Before an fs call NAME ("open") with its label's target (or NULL), as
 * mprof__uv_begin_request().  libuv's own calls are not traced: the synchronous
 * ones made with no loop from inside uv_fs_copyfile(), and an fs poll handle's
 * stat requests. */
static mprof__uv_entry_t *fs_begin(mprof__uv_sync_t *sync,
                                   const uv_loop_t *loop, uv_fs_t *req,
                                   uv_fs_cb cb, const char *name,
                                   const char *target) {
  sync->thread = MPROF_NONE;
  if (fs_poll_own(cb) || !mprof_is_started() || (!cb && !loop)) return NULL;
  char what[32];
  snprintf(what, sizeof what, "fs %s", name);
  return mprof__uv_begin_request(sync, req, (mprof__uv_fn)cb, MPROF_FS, what,
                                 target);
}

/* After the fs call, as mprof__uv_end_request(), counting a synchronous call's
 * bytes. */
static int fs_end(const mprof__uv_sync_t *sync, mprof__uv_entry_t *entry,
                  const uv_fs_t *req, int result) {
  if (sync->thread != MPROF_NONE) {
    int saved = errno;
    fs_count(req, result);
    errno = saved;
  }
  return mprof__uv_end_request(sync, entry, result);
}

/* Every fs call alike: its callback, if any, becomes fs_done. */
#define MPROF__UV_FS_WRAPPER(ret, name, params, args, target)                  \
  ret mprof_##name params {                                                    \
    mprof__uv_sync_t sync;                                                     \
    mprof__uv_entry_t *entry =                                                 \
        fs_begin(&sync, loop, req, cb, &#name[sizeof "uv_fs_" - 1], target);   \
    if (entry) cb = fs_done;                                                   \
    return fs_end(&sync, entry, req, REAL->name args);                         \
  }
MPROF_UV_FS_CALLS(MPROF__UV_FS_WRAPPER)
