/* uv_handle.c -- the libuv tracing of handles that are not streams or UDP
 * sockets: timers, idle, check and prepare handles, async, signal and poll
 * handles, fs event and fs poll handles, and processes; and the close of
 * every handle.  A handle is a thread from its init to the return of its
 * close callback; each of its callbacks runs switched to it.
 */
#include <errno.h>
#include <stdio.h>

#include "uv_internal.h"

static void close_fire(uv_handle_t *handle) {
  mprof__uv_entry_t *entry = mprof__uv_map_take(handle);
  mprof_switch(entry->thread);
  if (entry->close_cb) ((uv_close_cb)entry->close_cb)(handle);
  mprof__uv_finish(entry, 0);
}

/* A traced handle's entry, holding close_cb for close_fire(); NULL if the
 * handle is not traced.  libuv's uv_tcp_close_reset() calls uv_close()
 * with the callback it got, then our own close_fire. */
static mprof__uv_entry_t *close_watch(uv_handle_t *handle,
                                      uv_close_cb close_cb) {
  mprof__uv_entry_t *entry = mprof__uv_map_get(handle);
  if (entry && close_cb != close_fire) entry->close_cb = (mprof__uv_fn)close_cb;
  return entry;
}

void mprof_uv_close(uv_handle_t *handle, uv_close_cb close_cb) {
  mprof__uv_entry_t *entry = close_watch(handle, close_cb);
  REAL->uv_close(handle, entry ? close_fire : close_cb);
}

int mprof_uv_tcp_close_reset(uv_tcp_t *handle, uv_close_cb close_cb) {
  mprof__uv_entry_t *entry = close_watch((uv_handle_t *)handle, close_cb);
  return REAL->uv_tcp_close_reset(handle, entry ? close_fire : close_cb);
}

/* The callbacks with only the handle as argument. */
#define MPROF__UV_SIMPLE_HANDLE(kind)                                          \
  static void kind##_fire(uv_##kind##_t *handle) {                             \
    mprof__uv_entry_t *entry = mprof__uv_enter(handle);                        \
    ((uv_##kind##_cb)entry->cb)(handle);                                       \
    mprof_switch(mprof__uv_running_loop);                                      \
  }
MPROF__UV_SIMPLE_HANDLE(timer)
MPROF__UV_SIMPLE_HANDLE(idle)
MPROF__UV_SIMPLE_HANDLE(check)
MPROF__UV_SIMPLE_HANDLE(prepare)
MPROF__UV_SIMPLE_HANDLE(async)

int mprof_uv_timer_init(uv_loop_t *loop, uv_timer_t *handle) {
  int result = REAL->uv_timer_init(loop, handle);
  return mprof__uv_in_wrapped
             ? result
             : mprof__uv_handle_inited(loop, handle, UV_TIMER, MPROF_TIMER,
                                       "timer", result);
}

int mprof_uv_timer_start(uv_timer_t *handle, uv_timer_cb cb, uint64_t timeout,
                         uint64_t repeat) {
  mprof__uv_entry_t *entry =
      mprof__uv_watch(handle, (mprof__uv_fn)cb, (mprof__uv_fn)timer_fire, 0);
  return REAL->uv_timer_start(handle, entry ? timer_fire : cb, timeout, repeat);
}

/* Idle, check and prepare handles: init, start and callback alike. */
#define MPROF__UV_LOOP_WATCHER(kind, KIND)                                     \
  int mprof_uv_##kind##_init(uv_loop_t *loop, uv_##kind##_t *handle) {         \
    return mprof__uv_handle_inited(loop, handle, UV_##KIND, MPROF_HANDLE,      \
                                   #kind,                                      \
                                   REAL->uv_##kind##_init(loop, handle));      \
  }                                                                            \
  int mprof_uv_##kind##_start(uv_##kind##_t *handle, uv_##kind##_cb cb) {      \
    mprof__uv_entry_t *entry = mprof__uv_watch(handle, (mprof__uv_fn)cb,       \
                                               (mprof__uv_fn)kind##_fire, 0);  \
    return REAL->uv_##kind##_start(handle, entry ? kind##_fire : cb);          \
  }
MPROF__UV_LOOP_WATCHER(idle, IDLE)
MPROF__UV_LOOP_WATCHER(check, CHECK)
MPROF__UV_LOOP_WATCHER(prepare, PREPARE)

int mprof_uv_async_init(uv_loop_t *loop, uv_async_t *handle, uv_async_cb cb) {
  /* The callback is given here, so the entry must exist first. */
  mprof__uv_entry_t *entry =
      cb && !mprof__uv_libuv_own(loop, handle)
          ? mprof__uv_begin(handle, MPROF_HANDLE, "async", (mprof__uv_fn)cb)
          : NULL;
  if (entry) entry->handle_type = UV_ASYNC;
  return mprof__uv_submitted(
      entry, REAL->uv_async_init(loop, handle, entry ? async_fire : cb));
}

/* The thread that sends from an OS thread where nothing traced runs: one
 * per OS thread, made at its first send. */
static _Thread_local uint64_t async_sender MPROF__UV_TLS;

int mprof_uv_async_send(uv_async_t *handle) {
  uint64_t target =
      mprof_is_started() ? mprof__uv_map_thread(handle) : MPROF_NONE;
  if (target != MPROF_NONE && mprof_current() != MPROF_NONE) {
    mprof_signal(target);
  } else if (target != MPROF_NONE) {
    if (async_sender == MPROF_NONE) {
      async_sender = mprof_create(MPROF_CALLBACK);
      mprof_label(async_sender, "async sender");
    }
    mprof_switch(async_sender);
    mprof_signal(target);
    mprof_switch(MPROF_NONE);
  }
  return REAL->uv_async_send(handle);
}

static void signal_fire(uv_signal_t *handle, int signum) {
  mprof__uv_entry_t *entry = mprof__uv_enter(handle);
  ((uv_signal_cb)entry->cb)(handle, signum);
  mprof_switch(mprof__uv_running_loop);
}

int mprof_uv_signal_init(uv_loop_t *loop, uv_signal_t *handle) {
  return mprof__uv_handle_inited(loop, handle, UV_SIGNAL, MPROF_HANDLE,
                                 "signal", REAL->uv_signal_init(loop, handle));
}

/* A signal handle's entry, holding cb, with its label "signal N". */
static mprof__uv_entry_t *signal_watch(uv_signal_t *handle, uv_signal_cb cb,
                                       int signum) {
  mprof__uv_entry_t *entry =
      mprof__uv_watch(handle, (mprof__uv_fn)cb, (mprof__uv_fn)signal_fire, 0);
  if (entry) {
    char label[32];
    snprintf(label, sizeof label, "signal %d", signum);
    mprof_label(entry->thread, label);
  }
  return entry;
}

int mprof_uv_signal_start(uv_signal_t *handle, uv_signal_cb cb, int signum) {
  mprof__uv_entry_t *entry = signal_watch(handle, cb, signum);
  return REAL->uv_signal_start(handle, entry ? signal_fire : cb, signum);
}

int mprof_uv_signal_start_oneshot(uv_signal_t *handle, uv_signal_cb cb,
                                  int signum) {
  mprof__uv_entry_t *entry = signal_watch(handle, cb, signum);
  return REAL->uv_signal_start_oneshot(handle, entry ? signal_fire : cb,
                                       signum);
}

static void poll_fire(uv_poll_t *handle, int status, int events) {
  mprof__uv_entry_t *entry = mprof__uv_enter(handle);
  ((uv_poll_cb)entry->cb)(handle, status, events);
  mprof_switch(mprof__uv_running_loop);
}

int mprof_uv_poll_init(uv_loop_t *loop, uv_poll_t *handle, int fd) {
  int result = REAL->uv_poll_init(loop, handle, fd);
  return mprof__uv_in_wrapped
             ? result
             : mprof__uv_handle_inited(loop, handle, UV_POLL, MPROF_HANDLE,
                                       "poll", result);
}

int mprof_uv_poll_init_socket(uv_loop_t *loop, uv_poll_t *handle,
                              uv_os_sock_t socket) {
  mprof__uv_in_wrapped++;
  int result = REAL->uv_poll_init_socket(loop, handle, socket);
  mprof__uv_in_wrapped--;
  return mprof__uv_handle_inited(loop, handle, UV_POLL, MPROF_HANDLE, "poll",
                                 result);
}

int mprof_uv_poll_start(uv_poll_t *handle, int events, uv_poll_cb cb) {
  mprof__uv_entry_t *entry =
      mprof__uv_watch(handle, (mprof__uv_fn)cb, (mprof__uv_fn)poll_fire, 0);
  return REAL->uv_poll_start(handle, events, entry ? poll_fire : cb);
}

/* A handle's second label, with the path it watches. */
static void label_path(mprof__uv_entry_t *entry, const char *what,
                       const char *path) {
  if (!entry || !path) return;
  char label[512];
  snprintf(label, sizeof label, "%s %s", what, path);
  mprof_label(entry->thread, label);
}

static void fs_event_fire(uv_fs_event_t *handle, const char *filename,
                          int events, int status) {
  mprof__uv_entry_t *entry = mprof__uv_enter(handle);
  ((uv_fs_event_cb)entry->cb)(handle, filename, events, status);
  mprof_switch(mprof__uv_running_loop);
}

int mprof_uv_fs_event_init(uv_loop_t *loop, uv_fs_event_t *handle) {
  return mprof__uv_handle_inited(loop, handle, UV_FS_EVENT, MPROF_HANDLE,
                                 "fs event",
                                 REAL->uv_fs_event_init(loop, handle));
}

int mprof_uv_fs_event_start(uv_fs_event_t *handle, uv_fs_event_cb cb,
                            const char *path, unsigned int flags) {
  mprof__uv_entry_t *entry =
      mprof__uv_watch(handle, (mprof__uv_fn)cb, (mprof__uv_fn)fs_event_fire, 0);
  label_path(entry, "fs event", path);
  return REAL->uv_fs_event_start(handle, entry ? fs_event_fire : cb, path,
                                 flags);
}

static void fs_poll_fire(uv_fs_poll_t *handle, int status,
                         const uv_stat_t *prev, const uv_stat_t *curr) {
  mprof__uv_entry_t *entry = mprof__uv_enter(handle);
  ((uv_fs_poll_cb)entry->cb)(handle, status, prev, curr);
  mprof_switch(mprof__uv_running_loop);
}

int mprof_uv_fs_poll_init(uv_loop_t *loop, uv_fs_poll_t *handle) {
  return mprof__uv_handle_inited(loop, handle, UV_FS_POLL, MPROF_HANDLE,
                                 "fs poll",
                                 REAL->uv_fs_poll_init(loop, handle));
}

int mprof_uv_fs_poll_start(uv_fs_poll_t *handle, uv_fs_poll_cb cb,
                           const char *path, unsigned int interval) {
  mprof__uv_entry_t *entry =
      mprof__uv_watch(handle, (mprof__uv_fn)cb, (mprof__uv_fn)fs_poll_fire, 0);
  label_path(entry, "fs poll", path);
  mprof__uv_in_wrapped++;
  int result =
      REAL->uv_fs_poll_start(handle, entry ? fs_poll_fire : cb, path, interval);
  mprof__uv_in_wrapped--;
  return result;
}

static void exit_fire(uv_process_t *process, int64_t exit_status,
                      int term_signal) {
  mprof__uv_entry_t *entry = mprof__uv_enter(process);
  if (entry->cb) ((uv_exit_cb)entry->cb)(process, exit_status, term_signal);
  mprof_switch(mprof__uv_running_loop);
}

/* A process handle is born in uv_spawn(); its exit callback is in the
 * options, which libuv reads during the call only. */
int mprof_uv_spawn(uv_loop_t *loop, uv_process_t *handle,
                   const uv_process_options_t *options) {
  mprof__uv_entry_t *entry =
      options ? mprof__uv_begin_labelled(handle, (mprof__uv_fn)options->exit_cb,
                                         MPROF_HANDLE, "process", options->file)
              : NULL;
  if (!entry) return REAL->uv_spawn(loop, handle, options);
  entry->handle_type = UV_PROCESS;
  uv_process_options_t ours = *options;
  ours.exit_cb = exit_fire;
  return mprof__uv_submitted(entry, REAL->uv_spawn(loop, handle, &ours));
}
