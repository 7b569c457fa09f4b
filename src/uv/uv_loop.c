/* uv_loop.c -- the libuv tracing of loops: a loop is a thread that runs
 * inside uv_run() and goes idle (mprof_suspend) in a prepare handle of
 * ours, the last thing before each poll.  That handle is hidden from the
 * program's uv_walk() and closed before the loop is.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

#include "uv_internal.h"

/* Our prepare handles carry this in their data, so uv_walk() skips them. */
static const char poll_mark_tag[] = "mprof poll mark";

static void poll_mark_fire(uv_prepare_t *prepare) {
  (void)prepare;
  mprof_suspend();
}

/* libuv runs a loop's prepare handles from the head of its queue, and
 * uv_prepare_start() puts a handle at the head: a prepare handle the
 * program started before our mark (Node.js starts its own before
 * uv_run()) would run after it, and its work would show as the poll.  So
 * the mark moves to the tail, to run last, right before the poll.  The
 * links are libuv's queue (void *[2], a struct uv__queue since 1.45): next,
 * then prev. */
static void poll_mark_last(uv_loop_t *loop, uv_prepare_t *mark) {
  void **head = (void **)&loop->prepare_handles;
  void **link = (void **)&mark->queue;
  ((void **)link[1])[0] = link[0];
  ((void **)link[0])[1] = link[1];
  link[0] = head;
  link[1] = head[1];
  ((void **)head[1])[0] = link;
  head[1] = link;
}

/* Our prepare handle on loop, unreferenced (it keeps no loop alive), last
 * of the loop's prepare handles. */
static uv_prepare_t *poll_mark_new(uv_loop_t *loop) {
  uv_prepare_t *mark = malloc(sizeof *mark);
  if (!mark || REAL->uv_prepare_init(loop, mark)) {
    free(mark);
    return NULL;
  }
  mark->data = (void *)poll_mark_tag;
  REAL->uv_prepare_start(mark, poll_mark_fire);
  poll_mark_last(loop, mark);
  REAL->uv_unref((uv_handle_t *)mark);
  return mark;
}

/* uv_default_loop() makes the default loop at its first call and is not
 * thread-safe: loops that first run on several OS threads at once would
 * each make it.  Our calls take turns. */
static pthread_mutex_t default_loop_lock = PTHREAD_MUTEX_INITIALIZER;

/* Does the object that defines libuv's uv_run() hold address? */
static int in_libuv(const void *address) {
  Dl_info at, libuv;
  return dladdr(address, &at) && dladdr((void *)REAL->uv_run, &libuv) &&
         at.dli_fbase == libuv.dli_fbase;
}

/* The default loop is a static of libuv's own: a loop elsewhere (in the
 * program's memory) is not it, and only a loop inside libuv's object is
 * asked about, which uv_default_loop() then finds made.  So a program
 * that never uses the default loop gets none from us. */
static int is_default_loop(const uv_loop_t *loop) {
  if (!in_libuv(loop)) return 0;
  pthread_mutex_lock(&default_loop_lock);
  int is_default = loop == REAL->uv_default_loop();
  pthread_mutex_unlock(&default_loop_lock);
  return is_default;
}

/* A fork while another OS thread holds the lock leaves it held in the
 * child. */
static void default_loop_lock_reset(void) {
  pthread_mutex_init(&default_loop_lock, NULL);
}

__attribute__((constructor)) static void loop_init(void) {
  pthread_atfork(NULL, NULL, default_loop_lock_reset);
}

/* The loop's entry, made on its first traced uv_run(). */
static mprof__uv_entry_t *loop_entry(uv_loop_t *loop) {
  mprof__uv_entry_t *entry = mprof__uv_map_get(loop);
  if (!entry)
    entry =
        mprof__uv_begin(loop, MPROF_LOOP,
                        is_default_loop(loop) ? "default loop" : "loop", NULL);
  if (entry && !entry->poll_mark) entry->poll_mark = poll_mark_new(loop);
  return entry;
}

int mprof_uv_run(uv_loop_t *loop, uv_run_mode mode) {
  mprof__uv_entry_t *entry = mprof_is_started() ? loop_entry(loop) : NULL;
  if (!entry) return REAL->uv_run(loop, mode);
  uint64_t outer = mprof__uv_running_loop, before = mprof_current();
  mprof__uv_running_loop = entry->thread;
  mprof_switch(entry->thread);
  int result = REAL->uv_run(loop, mode);
  int saved = errno;
  mprof__uv_running_loop = outer;
  mprof_switch(before);
  errno = saved;
  return result;
}

static void poll_mark_closed(uv_handle_t *handle) { free(handle); }

/* libuv's private flag of the handles it keeps for itself (its
 * UV_HANDLE_INTERNAL, the same in every libuv 1.x): an fs poll handle's
 * timer lives outside the loop. */
#define LIBUV_HANDLE_INTERNAL 0x10

/* Does loop hold a handle of the program's, besides our poll mark?  Read
 * as libuv's own uv_loop_close() reads its handle queue: up to the first
 * handle that is not libuv's, and without writing to it.  uv_walk() would
 * visit every handle and relink each, and a program may well close a loop
 * holding handles whose memory it has already freed (knot-resolver's kresd
 * does at exit: its uv_loop_close() then only fails with UV_EBUSY). */
static int holds_user_handle(const uv_loop_t *loop, const uv_prepare_t *mark) {
  void *const *head = (void *const *)&loop->handle_queue;
  for (void *const *link = head[0]; link != head; link = link[0]) {
    const uv_handle_t *handle =
        (const uv_handle_t *)((const char *)link -
                              offsetof(uv_handle_t, handle_queue));
    if (handle != (const uv_handle_t *)mark &&
        !(handle->flags & LIBUV_HANDLE_INTERNAL) &&
        !mprof__uv_libuv_own(loop, handle))
      return 1;
  }
  return 0;
}

int mprof_uv_loop_close(uv_loop_t *loop) {
  mprof__uv_entry_t *entry = mprof__uv_map_get(loop);
  if (entry && entry->poll_mark && !holds_user_handle(loop, entry->poll_mark)) {
    /* Our handle must be gone before libuv agrees to close the loop; with
     * no other handle left, one turn of the loop only closes it. */
    REAL->uv_close((uv_handle_t *)entry->poll_mark, poll_mark_closed);
    REAL->uv_run(loop, UV_RUN_NOWAIT);
    entry->poll_mark = NULL;
  }
  int result = REAL->uv_loop_close(loop);
  if (entry && result == 0) {
    int saved = errno;
    mprof_resolve(entry->thread);
    mprof__uv_map_release(mprof__uv_map_take(loop));
    errno = saved;
  }
  return result;
}

typedef struct walk_s {
  uv_walk_cb cb;
  void *arg;
} walk_t;

static void walk_user_handles(uv_handle_t *handle, void *arg) {
  const walk_t *walk = arg;
  if (handle->data != poll_mark_tag) walk->cb(handle, walk->arg);
}

void mprof_uv_walk(uv_loop_t *loop, uv_walk_cb walk_cb, void *arg) {
  walk_t walk = {walk_cb, arg};
  REAL->uv_walk(loop, walk_user_handles, &walk);
}
