/* uv_work.c -- the libuv tracing of the thread pool's requests: queued
 * work, whose work function runs as the request's thread on a pool
 * thread, and getaddrinfo, getnameinfo and random, each a request's thread
 * (switched to while it runs when called without a callback).
 */
#include "uv_internal.h"

MPROF__UV_REQUEST_DONE(work, uv_after_work_cb)

/* On a pool thread: the work runs as the request's thread. */
static void work_run(uv_work_t *req) {
  mprof__uv_entry_t *entry = mprof__uv_map_get(req);
  mprof_switch(entry->thread);
  ((uv_work_cb)entry->work_cb)(req);
  mprof_switch(MPROF_NONE);
}

int mprof_uv_queue_work(uv_loop_t *loop, uv_work_t *req, uv_work_cb work_cb,
                        uv_after_work_cb after_work_cb) {
  mprof__uv_entry_t *entry = work_cb
                                 ? mprof__uv_begin(req, MPROF_WORK, "work",
                                                   (mprof__uv_fn)after_work_cb)
                                 : NULL;
  if (entry) entry->work_cb = (mprof__uv_fn)work_cb;
  return mprof__uv_submitted(
      entry, REAL->uv_queue_work(loop, req, entry ? work_run : work_cb,
                                 entry ? work_done : after_work_cb));
}

static void getaddrinfo_done(uv_getaddrinfo_t *req, int status,
                             struct addrinfo *res) {
  mprof__uv_entry_t *entry = mprof__uv_map_take(req);
  mprof_switch(entry->thread);
  ((uv_getaddrinfo_cb)entry->cb)(req, status, res);
  mprof__uv_finish(entry, status);
}

int mprof_uv_getaddrinfo(uv_loop_t *loop, uv_getaddrinfo_t *req,
                         uv_getaddrinfo_cb cb, const char *node,
                         const char *service, const struct addrinfo *hints) {
  mprof__uv_sync_t sync;
  mprof__uv_entry_t *entry =
      mprof__uv_begin_request(&sync, req, (mprof__uv_fn)cb, MPROF_GETADDRINFO,
                              "getaddrinfo", node ? node : service);
  return mprof__uv_end_request(
      &sync, entry,
      REAL->uv_getaddrinfo(loop, req, entry ? getaddrinfo_done : cb, node,
                           service, hints));
}

static void getnameinfo_done(uv_getnameinfo_t *req, int status,
                             const char *hostname, const char *service) {
  mprof__uv_entry_t *entry = mprof__uv_map_take(req);
  mprof_switch(entry->thread);
  ((uv_getnameinfo_cb)entry->cb)(req, status, hostname, service);
  mprof__uv_finish(entry, status);
}

int mprof_uv_getnameinfo(uv_loop_t *loop, uv_getnameinfo_t *req,
                         uv_getnameinfo_cb cb, const struct sockaddr *addr,
                         int flags) {
  mprof__uv_address_t target = {"", 0};
  if (addr && mprof_is_started()) mprof__uv_address_text(addr, &target);
  mprof__uv_sync_t sync;
  mprof__uv_entry_t *entry = mprof__uv_begin_request(
      &sync, req, (mprof__uv_fn)cb, MPROF_GETNAMEINFO, "getnameinfo",
      target.length ? target.text : NULL);
  return mprof__uv_end_request(
      &sync, entry,
      REAL->uv_getnameinfo(loop, req, entry ? getnameinfo_done : cb, addr,
                           flags));
}

static void random_done(uv_random_t *req, int status, void *buf,
                        size_t buflen) {
  mprof__uv_entry_t *entry = mprof__uv_map_take(req);
  mprof_switch(entry->thread);
  ((uv_random_cb)entry->cb)(req, status, buf, buflen);
  mprof__uv_finish(entry, status);
}

int mprof_uv_random(uv_loop_t *loop, uv_random_t *req, void *buf, size_t buflen,
                    unsigned flags, uv_random_cb cb) {
  mprof__uv_sync_t sync;
  mprof__uv_entry_t *entry = mprof__uv_begin_request(
      &sync, req, (mprof__uv_fn)cb, MPROF_RANDOM, "random", NULL);
  return mprof__uv_end_request(
      &sync, entry,
      REAL->uv_random(loop, req, buf, buflen, flags, entry ? random_done : cb));
}
