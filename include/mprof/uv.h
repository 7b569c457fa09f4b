/* mprof/uv.h -- trace a libuv program's requests, handles and loops.
 *
 * Include it after <uv.h> (it includes <uv.h> itself).  Built with
 * MPROF_TRACING, the libuv calls listed below become calls of the
 * mprof_uv_* wrappers of libmprof_uv, which record:
 *   - each request (fs, write, connect, shutdown, udp send, work,
 *     getaddrinfo, getnameinfo, random) as a thread created by the
 *     current thread, switched to while its callback runs, resolved when
 *     the callback returns, or failed with uv_err_name(status); an fs call
 *     without a callback (synchronous) as a thread created, run and ended
 *     within the call;
 *   - each handle as a long-lived thread, switched to per callback and
 *     resolved when its close callback returns;
 *   - each loop as a thread that runs while uv_run() runs, idle while the
 *     loop waits in its poll;
 *   - uv_async_send() as a signal to the async handle, bytes read and
 *     written as the counters "uv bytes read" and "uv bytes written", and
 *     the "net send ..."/"net recv ..." labels of docs/libuv.md.
 * Built without MPROF_TRACING, this header adds nothing: the program calls
 * plain libuv.  The same wrappers serve unmodified programs through the
 * LD_PRELOAD shim libmprof_uv_preload.so (`mprof record`).
 */
#ifndef MPROF_UV_H
#define MPROF_UV_H

#include <uv.h>

#include "../mprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The wrapped calls returning a value: X(return type, libuv name, its
 * parameters, its arguments).  mprof_NAME has the parameters, result and
 * errno of NAME and records what the header comment says. */
#define MPROF_UV_CALLS(X)                                                      \
  X(int, uv_run, (uv_loop_t * loop, uv_run_mode mode), (loop, mode))           \
  X(int, uv_loop_close, (uv_loop_t * loop), (loop))                            \
  X(int, uv_timer_init, (uv_loop_t * loop, uv_timer_t * handle),               \
    (loop, handle))                                                            \
  X(int, uv_timer_start,                                                       \
    (uv_timer_t * handle, uv_timer_cb cb, uint64_t timeout, uint64_t repeat),  \
    (handle, cb, timeout, repeat))                                             \
  X(int, uv_idle_init, (uv_loop_t * loop, uv_idle_t * handle), (loop, handle)) \
  X(int, uv_idle_start, (uv_idle_t * handle, uv_idle_cb cb), (handle, cb))     \
  X(int, uv_check_init, (uv_loop_t * loop, uv_check_t * handle),               \
    (loop, handle))                                                            \
  X(int, uv_check_start, (uv_check_t * handle, uv_check_cb cb), (handle, cb))  \
  X(int, uv_prepare_init, (uv_loop_t * loop, uv_prepare_t * handle),           \
    (loop, handle))                                                            \
  X(int, uv_prepare_start, (uv_prepare_t * handle, uv_prepare_cb cb),          \
    (handle, cb))                                                              \
  X(int, uv_async_init,                                                        \
    (uv_loop_t * loop, uv_async_t * handle, uv_async_cb cb),                   \
    (loop, handle, cb))                                                        \
  X(int, uv_async_send, (uv_async_t * handle), (handle))                       \
  X(int, uv_signal_init, (uv_loop_t * loop, uv_signal_t * handle),             \
    (loop, handle))                                                            \
  X(int, uv_signal_start, (uv_signal_t * handle, uv_signal_cb cb, int signum), \
    (handle, cb, signum))                                                      \
  X(int, uv_tcp_init, (uv_loop_t * loop, uv_tcp_t * handle), (loop, handle))   \
  X(int, uv_udp_init, (uv_loop_t * loop, uv_udp_t * handle), (loop, handle))   \
  X(int, uv_pipe_init, (uv_loop_t * loop, uv_pipe_t * handle, int ipc),        \
    (loop, handle, ipc))                                                       \
  X(int, uv_tty_init,                                                          \
    (uv_loop_t * loop, uv_tty_t * handle, uv_file fd, int readable),           \
    (loop, handle, fd, readable))                                              \
  X(int, uv_listen, (uv_stream_t * stream, int backlog, uv_connection_cb cb),  \
    (stream, backlog, cb))                                                     \
  X(int, uv_accept, (uv_stream_t * server, uv_stream_t * client),              \
    (server, client))                                                          \
  X(int, uv_read_start,                                                        \
    (uv_stream_t * stream, uv_alloc_cb alloc_cb, uv_read_cb read_cb),          \
    (stream, alloc_cb, read_cb))                                               \
  X(int, uv_write,                                                             \
    (uv_write_t * req, uv_stream_t * handle, const uv_buf_t bufs[],            \
     unsigned int nbufs, uv_write_cb cb),                                      \
    (req, handle, bufs, nbufs, cb))                                            \
  X(int, uv_try_write,                                                         \
    (uv_stream_t * handle, const uv_buf_t bufs[], unsigned int nbufs),         \
    (handle, bufs, nbufs))                                                     \
  X(int, uv_shutdown,                                                          \
    (uv_shutdown_t * req, uv_stream_t * handle, uv_shutdown_cb cb),            \
    (req, handle, cb))                                                         \
  X(int, uv_tcp_connect,                                                       \
    (uv_connect_t * req, uv_tcp_t * handle, const struct sockaddr *addr,       \
     uv_connect_cb cb),                                                        \
    (req, handle, addr, cb))                                                   \
  X(int, uv_udp_send,                                                          \
    (uv_udp_send_t * req, uv_udp_t * handle, const uv_buf_t bufs[],            \
     unsigned int nbufs, const struct sockaddr *addr, uv_udp_send_cb cb),      \
    (req, handle, bufs, nbufs, addr, cb))                                      \
  X(int, uv_udp_recv_start,                                                    \
    (uv_udp_t * handle, uv_alloc_cb alloc_cb, uv_udp_recv_cb recv_cb),         \
    (handle, alloc_cb, recv_cb))                                               \
  X(int, uv_queue_work,                                                        \
    (uv_loop_t * loop, uv_work_t * req, uv_work_cb work_cb,                    \
     uv_after_work_cb after_work_cb),                                          \
    (loop, req, work_cb, after_work_cb))                                       \
  X(int, uv_getaddrinfo,                                                       \
    (uv_loop_t * loop, uv_getaddrinfo_t * req, uv_getaddrinfo_cb cb,           \
     const char *node, const char *service, const struct addrinfo *hints),     \
    (loop, req, cb, node, service, hints))                                     \
  X(int, uv_write2,                                                            \
    (uv_write_t * req, uv_stream_t * handle, const uv_buf_t bufs[],            \
     unsigned int nbufs, uv_stream_t *send_handle, uv_write_cb cb),            \
    (req, handle, bufs, nbufs, send_handle, cb))                               \
  X(int, uv_tcp_init_ex,                                                       \
    (uv_loop_t * loop, uv_tcp_t * handle, unsigned int flags),                 \
    (loop, handle, flags))                                                     \
  X(int, uv_udp_init_ex,                                                       \
    (uv_loop_t * loop, uv_udp_t * handle, unsigned int flags),                 \
    (loop, handle, flags))                                                     \
  X(int, uv_poll_init, (uv_loop_t * loop, uv_poll_t * handle, int fd),         \
    (loop, handle, fd))                                                        \
  X(int, uv_poll_start, (uv_poll_t * handle, int events, uv_poll_cb cb),       \
    (handle, events, cb))                                                      \
  X(int, uv_fs_event_init, (uv_loop_t * loop, uv_fs_event_t * handle),         \
    (loop, handle))                                                            \
  X(int, uv_fs_event_start,                                                    \
    (uv_fs_event_t * handle, uv_fs_event_cb cb, const char *path,              \
     unsigned int flags),                                                      \
    (handle, cb, path, flags))                                                 \
  X(int, uv_fs_poll_init, (uv_loop_t * loop, uv_fs_poll_t * handle),           \
    (loop, handle))                                                            \
  X(int, uv_fs_poll_start,                                                     \
    (uv_fs_poll_t * handle, uv_fs_poll_cb cb, const char *path,                \
     unsigned int interval),                                                   \
    (handle, cb, path, interval))                                              \
  X(int, uv_spawn,                                                             \
    (uv_loop_t * loop, uv_process_t * handle,                                  \
     const uv_process_options_t *options),                                     \
    (loop, handle, options))                                                   \
  X(int, uv_getnameinfo,                                                       \
    (uv_loop_t * loop, uv_getnameinfo_t * req, uv_getnameinfo_cb cb,           \
     const struct sockaddr *addr, int flags),                                  \
    (loop, req, cb, addr, flags))                                              \
  X(int, uv_random,                                                            \
    (uv_loop_t * loop, uv_random_t * req, void *buf, size_t buflen,            \
     unsigned flags, uv_random_cb cb),                                         \
    (loop, req, buf, buflen, flags, cb))                                       \
  X(int, uv_poll_init_socket,                                                  \
    (uv_loop_t * loop, uv_poll_t * handle, uv_os_sock_t socket),               \
    (loop, handle, socket))                                                    \
  X(int, uv_signal_start_oneshot,                                              \
    (uv_signal_t * handle, uv_signal_cb signal_cb, int signum),                \
    (handle, signal_cb, signum))                                               \
  X(int, uv_tcp_close_reset, (uv_tcp_t * handle, uv_close_cb close_cb),        \
    (handle, close_cb))                                                        \
  X(int, uv_try_write2,                                                        \
    (uv_stream_t * handle, const uv_buf_t bufs[], unsigned int nbufs,          \
     uv_stream_t *send_handle),                                                \
    (handle, bufs, nbufs, send_handle))                                        \
  X(int, uv_udp_try_send,                                                      \
    (uv_udp_t * handle, const uv_buf_t bufs[], unsigned int nbufs,             \
     const struct sockaddr *addr),                                             \
    (handle, bufs, nbufs, addr))

/* The wrapped fs calls, all of the form X(return type, libuv name, its
 * parameters, its arguments, the path their label shows or NULL): each
 * takes a loop, a request and, last, a callback. */
#define MPROF_UV_FS_CALLS(X)                                                   \
  X(int, uv_fs_access,                                                         \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, int mode,              \
     uv_fs_cb cb),                                                             \
    (loop, req, path, mode, cb), path)                                         \
  X(int, uv_fs_chmod,                                                          \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, int mode,              \
     uv_fs_cb cb),                                                             \
    (loop, req, path, mode, cb), path)                                         \
  X(int, uv_fs_chown,                                                          \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, uv_uid_t uid,          \
     uv_gid_t gid, uv_fs_cb cb),                                               \
    (loop, req, path, uid, gid, cb), path)                                     \
  X(int, uv_fs_close,                                                          \
    (uv_loop_t * loop, uv_fs_t * req, uv_file file, uv_fs_cb cb),              \
    (loop, req, file, cb), NULL)                                               \
  X(int, uv_fs_closedir,                                                       \
    (uv_loop_t * loop, uv_fs_t * req, uv_dir_t * dir, uv_fs_cb cb),            \
    (loop, req, dir, cb), NULL)                                                \
  X(int, uv_fs_copyfile,                                                       \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, const char *new_path,  \
     int flags, uv_fs_cb cb),                                                  \
    (loop, req, path, new_path, flags, cb), path)                              \
  X(int, uv_fs_fchmod,                                                         \
    (uv_loop_t * loop, uv_fs_t * req, uv_file file, int mode, uv_fs_cb cb),    \
    (loop, req, file, mode, cb), NULL)                                         \
  X(int, uv_fs_fchown,                                                         \
    (uv_loop_t * loop, uv_fs_t * req, uv_file file, uv_uid_t uid,              \
     uv_gid_t gid, uv_fs_cb cb),                                               \
    (loop, req, file, uid, gid, cb), NULL)                                     \
  X(int, uv_fs_fdatasync,                                                      \
    (uv_loop_t * loop, uv_fs_t * req, uv_file file, uv_fs_cb cb),              \
    (loop, req, file, cb), NULL)                                               \
  X(int, uv_fs_fstat,                                                          \
    (uv_loop_t * loop, uv_fs_t * req, uv_file file, uv_fs_cb cb),              \
    (loop, req, file, cb), NULL)                                               \
  X(int, uv_fs_fsync,                                                          \
    (uv_loop_t * loop, uv_fs_t * req, uv_file file, uv_fs_cb cb),              \
    (loop, req, file, cb), NULL)                                               \
  X(int, uv_fs_ftruncate,                                                      \
    (uv_loop_t * loop, uv_fs_t * req, uv_file file, int64_t offset,            \
     uv_fs_cb cb),                                                             \
    (loop, req, file, offset, cb), NULL)                                       \
  X(int, uv_fs_futime,                                                         \
    (uv_loop_t * loop, uv_fs_t * req, uv_file file, double atime,              \
     double mtime, uv_fs_cb cb),                                               \
    (loop, req, file, atime, mtime, cb), NULL)                                 \
  X(int, uv_fs_lchown,                                                         \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, uv_uid_t uid,          \
     uv_gid_t gid, uv_fs_cb cb),                                               \
    (loop, req, path, uid, gid, cb), path)                                     \
  X(int, uv_fs_link,                                                           \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, const char *new_path,  \
     uv_fs_cb cb),                                                             \
    (loop, req, path, new_path, cb), path)                                     \
  X(int, uv_fs_lstat,                                                          \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, uv_fs_cb cb),          \
    (loop, req, path, cb), path)                                               \
  X(int, uv_fs_lutime,                                                         \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, double atime,          \
     double mtime, uv_fs_cb cb),                                               \
    (loop, req, path, atime, mtime, cb), path)                                 \
  X(int, uv_fs_mkdir,                                                          \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, int mode,              \
     uv_fs_cb cb),                                                             \
    (loop, req, path, mode, cb), path)                                         \
  X(int, uv_fs_mkdtemp,                                                        \
    (uv_loop_t * loop, uv_fs_t * req, const char *tpl, uv_fs_cb cb),           \
    (loop, req, tpl, cb), tpl)                                                 \
  X(int, uv_fs_mkstemp,                                                        \
    (uv_loop_t * loop, uv_fs_t * req, const char *tpl, uv_fs_cb cb),           \
    (loop, req, tpl, cb), tpl)                                                 \
  X(int, uv_fs_open,                                                           \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, int flags, int mode,   \
     uv_fs_cb cb),                                                             \
    (loop, req, path, flags, mode, cb), path)                                  \
  X(int, uv_fs_opendir,                                                        \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, uv_fs_cb cb),          \
    (loop, req, path, cb), path)                                               \
  X(int, uv_fs_read,                                                           \
    (uv_loop_t * loop, uv_fs_t * req, uv_file file, const uv_buf_t bufs[],     \
     unsigned int nbufs, int64_t offset, uv_fs_cb cb),                         \
    (loop, req, file, bufs, nbufs, offset, cb), NULL)                          \
  X(int, uv_fs_readdir,                                                        \
    (uv_loop_t * loop, uv_fs_t * req, uv_dir_t * dir, uv_fs_cb cb),            \
    (loop, req, dir, cb), NULL)                                                \
  X(int, uv_fs_readlink,                                                       \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, uv_fs_cb cb),          \
    (loop, req, path, cb), path)                                               \
  X(int, uv_fs_realpath,                                                       \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, uv_fs_cb cb),          \
    (loop, req, path, cb), path)                                               \
  X(int, uv_fs_rename,                                                         \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, const char *new_path,  \
     uv_fs_cb cb),                                                             \
    (loop, req, path, new_path, cb), path)                                     \
  X(int, uv_fs_rmdir,                                                          \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, uv_fs_cb cb),          \
    (loop, req, path, cb), path)                                               \
  X(int, uv_fs_scandir,                                                        \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, int flags,             \
     uv_fs_cb cb),                                                             \
    (loop, req, path, flags, cb), path)                                        \
  X(int, uv_fs_sendfile,                                                       \
    (uv_loop_t * loop, uv_fs_t * req, uv_file out_fd, uv_file in_fd,           \
     int64_t in_offset, size_t length, uv_fs_cb cb),                           \
    (loop, req, out_fd, in_fd, in_offset, length, cb), NULL)                   \
  X(int, uv_fs_stat,                                                           \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, uv_fs_cb cb),          \
    (loop, req, path, cb), path)                                               \
  X(int, uv_fs_statfs,                                                         \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, uv_fs_cb cb),          \
    (loop, req, path, cb), path)                                               \
  X(int, uv_fs_symlink,                                                        \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, const char *new_path,  \
     int flags, uv_fs_cb cb),                                                  \
    (loop, req, path, new_path, flags, cb), path)                              \
  X(int, uv_fs_unlink,                                                         \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, uv_fs_cb cb),          \
    (loop, req, path, cb), path)                                               \
  X(int, uv_fs_utime,                                                          \
    (uv_loop_t * loop, uv_fs_t * req, const char *path, double atime,          \
     double mtime, uv_fs_cb cb),                                               \
    (loop, req, path, atime, mtime, cb), path)                                 \
  X(int, uv_fs_write,                                                          \
    (uv_loop_t * loop, uv_fs_t * req, uv_file file, const uv_buf_t bufs[],     \
     unsigned int nbufs, int64_t offset, uv_fs_cb cb),                         \
    (loop, req, file, bufs, nbufs, offset, cb), NULL)

/* The wrapped calls returning nothing, in the same form. */
#define MPROF_UV_VOID_CALLS(X)                                                 \
  X(void, uv_close, (uv_handle_t * handle, uv_close_cb close_cb),              \
    (handle, close_cb))                                                        \
  X(void, uv_walk, (uv_loop_t * loop, uv_walk_cb walk_cb, void *arg),          \
    (loop, walk_cb, arg))                                                      \
  X(void, uv_pipe_connect,                                                     \
    (uv_connect_t * req, uv_pipe_t * handle, const char *name,                 \
     uv_connect_cb cb),                                                        \
    (req, handle, name, cb))

#ifdef MPROF_TRACING

/* mprof_uv_run(), mprof_uv_close(), ...: one per libuv call above. */
#define MPROF__UV_DECLARE(ret, name, params, args) ret mprof_##name params;
#define MPROF__UV_FS_DECLARE(ret, name, params, args, target)                  \
  MPROF__UV_DECLARE(ret, name, params, args)
MPROF_UV_CALLS(MPROF__UV_DECLARE)
MPROF_UV_VOID_CALLS(MPROF__UV_DECLARE)
MPROF_UV_FS_CALLS(MPROF__UV_FS_DECLARE)
#undef MPROF__UV_DECLARE
#undef MPROF__UV_FS_DECLARE

/* The library's own sources see libuv's names unchanged. */
#ifndef MPROF_UV_NO_MACROS
#define uv_run mprof_uv_run
#define uv_loop_close mprof_uv_loop_close
#define uv_timer_init mprof_uv_timer_init
#define uv_timer_start mprof_uv_timer_start
#define uv_idle_init mprof_uv_idle_init
#define uv_idle_start mprof_uv_idle_start
#define uv_check_init mprof_uv_check_init
#define uv_check_start mprof_uv_check_start
#define uv_prepare_init mprof_uv_prepare_init
#define uv_prepare_start mprof_uv_prepare_start
#define uv_async_init mprof_uv_async_init
#define uv_async_send mprof_uv_async_send
#define uv_signal_init mprof_uv_signal_init
#define uv_signal_start mprof_uv_signal_start
#define uv_tcp_init mprof_uv_tcp_init
#define uv_udp_init mprof_uv_udp_init
#define uv_pipe_init mprof_uv_pipe_init
#define uv_tty_init mprof_uv_tty_init
#define uv_listen mprof_uv_listen
#define uv_accept mprof_uv_accept
#define uv_read_start mprof_uv_read_start
#define uv_write mprof_uv_write
#define uv_try_write mprof_uv_try_write
#define uv_shutdown mprof_uv_shutdown
#define uv_tcp_connect mprof_uv_tcp_connect
#define uv_udp_send mprof_uv_udp_send
#define uv_udp_recv_start mprof_uv_udp_recv_start
#define uv_queue_work mprof_uv_queue_work
#define uv_getaddrinfo mprof_uv_getaddrinfo
#define uv_fs_open mprof_uv_fs_open
#define uv_fs_close mprof_uv_fs_close
#define uv_fs_read mprof_uv_fs_read
#define uv_fs_write mprof_uv_fs_write
#define uv_fs_stat mprof_uv_fs_stat
#define uv_fs_unlink mprof_uv_fs_unlink
#define uv_close mprof_uv_close
#define uv_walk mprof_uv_walk
#define uv_fs_lstat mprof_uv_fs_lstat
#define uv_fs_rmdir mprof_uv_fs_rmdir
#define uv_fs_mkdir mprof_uv_fs_mkdir
#define uv_fs_scandir mprof_uv_fs_scandir
#define uv_fs_rename mprof_uv_fs_rename
#define uv_fs_fstat mprof_uv_fs_fstat
#define uv_fs_fsync mprof_uv_fs_fsync
#define uv_write2 mprof_uv_write2
#define uv_tcp_init_ex mprof_uv_tcp_init_ex
#define uv_udp_init_ex mprof_uv_udp_init_ex
#define uv_poll_init mprof_uv_poll_init
#define uv_poll_start mprof_uv_poll_start
#define uv_fs_event_init mprof_uv_fs_event_init
#define uv_fs_event_start mprof_uv_fs_event_start
#define uv_fs_poll_init mprof_uv_fs_poll_init
#define uv_fs_poll_start mprof_uv_fs_poll_start
#define uv_spawn mprof_uv_spawn
#define uv_getnameinfo mprof_uv_getnameinfo
#define uv_random mprof_uv_random
#define uv_pipe_connect mprof_uv_pipe_connect
#define uv_poll_init_socket mprof_uv_poll_init_socket
#define uv_signal_start_oneshot mprof_uv_signal_start_oneshot
#define uv_tcp_close_reset mprof_uv_tcp_close_reset
#define uv_try_write2 mprof_uv_try_write2
#define uv_udp_try_send mprof_uv_udp_try_send
#define uv_fs_access mprof_uv_fs_access
#define uv_fs_chmod mprof_uv_fs_chmod
#define uv_fs_chown mprof_uv_fs_chown
#define uv_fs_closedir mprof_uv_fs_closedir
#define uv_fs_copyfile mprof_uv_fs_copyfile
#define uv_fs_fchmod mprof_uv_fs_fchmod
#define uv_fs_fchown mprof_uv_fs_fchown
#define uv_fs_fdatasync mprof_uv_fs_fdatasync
#define uv_fs_ftruncate mprof_uv_fs_ftruncate
#define uv_fs_futime mprof_uv_fs_futime
#define uv_fs_lchown mprof_uv_fs_lchown
#define uv_fs_link mprof_uv_fs_link
#define uv_fs_lutime mprof_uv_fs_lutime
#define uv_fs_mkdtemp mprof_uv_fs_mkdtemp
#define uv_fs_mkstemp mprof_uv_fs_mkstemp
#define uv_fs_opendir mprof_uv_fs_opendir
#define uv_fs_readdir mprof_uv_fs_readdir
#define uv_fs_readlink mprof_uv_fs_readlink
#define uv_fs_realpath mprof_uv_fs_realpath
#define uv_fs_sendfile mprof_uv_fs_sendfile
#define uv_fs_statfs mprof_uv_fs_statfs
#define uv_fs_symlink mprof_uv_fs_symlink
#define uv_fs_utime mprof_uv_fs_utime
#endif /* MPROF_UV_NO_MACROS */

#endif /* MPROF_TRACING */

#ifdef __cplusplus
}
#endif

#endif /* MPROF_UV_H */
