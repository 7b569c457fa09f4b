/* uv_more.c -- a libuv program of the calls that uv_prog.c leaves out,
 * built and run like it (test/uv/CMakeLists.txt, test_uv.sh) and checked
 * by check_uv in the mode of the same name:
 *   fs       every fs call: synchronous ones (no callback) that set up a
 *            directory, asynchronous ones all at once (a copyfile, an
 *            opendir and a sendfile among them that fail), then opendir,
 *            readdir and closedir, whose callback closes the files
 *            synchronously
 *   handles  an fs event and an fs poll handle, a tty (a pseudo-terminal)
 *            read and written, uv_write2() passing a TCP handle over an
 *            IPC pipe, a one-shot signal, a poll handle of a socket; and
 *            a tty on a file and a handle passed to a tty, which fail
 *   sockets  uv_udp_try_send(), uv_try_write() and uv_try_write2() over
 *            TCP, and uv_tcp_close_reset(); a uv_udp_try_send() with no
 *            address, which fails; then uv_getaddrinfo(),
 *            uv_getnameinfo() and uv_random() without a callback
 * Results are printed in a fixed order once the loop has run, so the output
 * is the same on every run.
 *
 *   uv_more DIR fs|handles|sockets
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <uv.h>

#include <mprof/uv.h>

#include "uv_check.h"

static uv_loop_t *loop;
static char dir[1024];
static char results[32][80];

static void print_results(void) {
  for (size_t i = 0; i < sizeof results / sizeof *results; i++)
    if (results[i][0]) printf("%s\n", results[i]);
}

static const char *status_name(ssize_t status) {
  return status < 0 ? uv_err_name((int)status) : "ok";
}

/* DIR/NAME into path. */
static void in_dir(char *path, size_t size, const char *name) {
  snprintf(path, size, "%s/%s", dir, name);
}

/* --- fs --- */

enum { FS_A, FS_B, FS_C, FS_HARD, FS_SYM, FS_MISSING, FS_FILES };
static const char *const fs_file_names[FS_FILES] = {"a",    "b",   "c",
                                                    "hard", "sym", "missing"};
static char fs_paths[FS_FILES][1100], fs_temp[1100];
static uv_file fd_a, fd_c;
static uv_fs_t fs_reqs[24], dir_req, link_req;
static const char *fs_call_names[24];
static size_t fs_calls;
static uv_dirent_t dirents[16];

static void fs_called(uv_fs_t *req) {
  size_t i = (size_t)(req - fs_reqs);
  snprintf(results[i], sizeof results[i], "fs %s: %s", fs_call_names[i],
           status_name(req->result));
  if (req->fs_type == UV_FS_MKSTEMP && req->result >= 0) {
    uv_fs_t close_req;
    snprintf(fs_temp, sizeof fs_temp, "%s", req->path);
    CHECK(uv_fs_close(loop, &close_req, (uv_file)req->result, NULL));
    uv_fs_req_cleanup(&close_req);
  }
  uv_fs_req_cleanup(req);
}

/* The next request, for the call named name. */
static uv_fs_t *fs_next(const char *name) {
  fs_call_names[fs_calls] = name;
  return &fs_reqs[fs_calls++];
}

/* A directory and two files, made by synchronous calls. */
static void fs_set_up(const char *parent) {
  uv_fs_t req;
  char template[1100];
  snprintf(template, sizeof template, "%s/uv_more.XXXXXX", parent);
  CHECK(uv_fs_mkdtemp(loop, &req, template, NULL));
  snprintf(dir, sizeof dir, "%s", req.path);
  uv_fs_req_cleanup(&req);
  for (int i = 0; i < FS_FILES; i++)
    in_dir(fs_paths[i], sizeof fs_paths[i], fs_file_names[i]);
  fd_a = uv_fs_open(loop, &req, fs_paths[FS_A], UV_FS_O_RDWR | UV_FS_O_CREAT,
                    0600, NULL);
  CHECK(fd_a);
  uv_fs_req_cleanup(&req);
  uv_buf_t text = uv_buf_init("0123456789abcdef", 16);
  CHECK(uv_fs_write(loop, &req, fd_a, &text, 1, 0, NULL));
  uv_fs_req_cleanup(&req);
  fd_c = uv_fs_open(loop, &req, fs_paths[FS_C], UV_FS_O_WRONLY | UV_FS_O_CREAT,
                    0600, NULL);
  CHECK(fd_c);
  uv_fs_req_cleanup(&req);
}

/* Calls that fail: on a missing file, a missing directory, and from a
 * descriptor that is not open. */
static void fs_start_failing(void) {
  const char *missing = fs_paths[FS_MISSING];
  CHECK(uv_fs_copyfile(loop, fs_next("copyfile of a missing file"), missing,
                       fs_paths[FS_B], UV_FS_COPYFILE_EXCL, fs_called));
  CHECK(uv_fs_opendir(loop, fs_next("opendir of a missing directory"), missing,
                      fs_called));
  CHECK(uv_fs_sendfile(loop, fs_next("sendfile from no file"), fd_c, -1, 0, 16,
                       fs_called));
}

/* Every other fs call at once, each with its own request. */
static void fs_start_all(void) {
  char temp[1100];
  in_dir(temp, sizeof temp, "s.XXXXXX");
  const char *a = fs_paths[FS_A];
  CHECK(uv_fs_copyfile(loop, fs_next("copyfile"), a, fs_paths[FS_B], 0,
                       fs_called));
  CHECK(
      uv_fs_sendfile(loop, fs_next("sendfile"), fd_c, fd_a, 0, 16, fs_called));
  CHECK(uv_fs_ftruncate(loop, fs_next("ftruncate"), fd_a, 16, fs_called));
  CHECK(uv_fs_fdatasync(loop, fs_next("fdatasync"), fd_a, fs_called));
  CHECK(uv_fs_fchmod(loop, fs_next("fchmod"), fd_a, 0600, fs_called));
  CHECK(uv_fs_futime(loop, fs_next("futime"), fd_a, 1e9, 1e9, fs_called));
  CHECK(uv_fs_fchown(loop, fs_next("fchown"), fd_a, (uv_uid_t)-1, (uv_gid_t)-1,
                     fs_called));
  CHECK(uv_fs_access(loop, fs_next("access"), a, R_OK, fs_called));
  CHECK(uv_fs_chmod(loop, fs_next("chmod"), a, 0600, fs_called));
  CHECK(uv_fs_utime(loop, fs_next("utime"), a, 1e9, 1e9, fs_called));
  CHECK(uv_fs_lutime(loop, fs_next("lutime"), a, 1e9, 1e9, fs_called));
  CHECK(uv_fs_chown(loop, fs_next("chown"), a, (uv_uid_t)-1, (uv_gid_t)-1,
                    fs_called));
  CHECK(uv_fs_lchown(loop, fs_next("lchown"), a, (uv_uid_t)-1, (uv_gid_t)-1,
                     fs_called));
  CHECK(uv_fs_statfs(loop, fs_next("statfs"), dir, fs_called));
  CHECK(uv_fs_realpath(loop, fs_next("realpath"), a, fs_called));
  CHECK(uv_fs_link(loop, fs_next("link"), a, fs_paths[FS_HARD], fs_called));
  CHECK(uv_fs_symlink(loop, fs_next("symlink"), a, fs_paths[FS_SYM], 0,
                      fs_called));
  CHECK(uv_fs_mkstemp(loop, fs_next("mkstemp"), temp, fs_called));
  fs_start_failing();
}

static void fs_dir_closed(uv_fs_t *req) {
  uv_fs_t close_req;
  snprintf(results[fs_calls + 1], sizeof results[0], "fs closedir: %s",
           status_name(req->result));
  uv_fs_req_cleanup(req);
  CHECK(uv_fs_close(loop, &close_req, fd_a, NULL));
  uv_fs_req_cleanup(&close_req);
  CHECK(uv_fs_close(loop, &close_req, fd_c, NULL));
  uv_fs_req_cleanup(&close_req);
}

static void fs_dir_read(uv_fs_t *req) {
  uv_dir_t *opened = req->ptr;
  snprintf(results[fs_calls], sizeof results[0], "fs readdir: %zd entries",
           req->result);
  uv_fs_req_cleanup(req);
  CHECK(uv_fs_closedir(loop, req, opened, fs_dir_closed));
}

static void fs_dir_opened(uv_fs_t *req) {
  uv_dir_t *opened = req->ptr;
  uv_fs_req_cleanup(req);
  opened->dirents = dirents;
  opened->nentries = sizeof dirents / sizeof *dirents;
  CHECK(uv_fs_readdir(loop, req, opened, fs_dir_read));
}

static void fs_link_read(uv_fs_t *req) {
  snprintf(results[fs_calls + 2], sizeof results[0], "fs readlink: %s",
           req->result < 0                    ? uv_err_name((int)req->result)
           : strcmp(req->ptr, fs_paths[FS_A]) ? "elsewhere"
                                              : "the file");
  uv_fs_req_cleanup(req);
}

static void fs_tidy(void) {
  for (int i = 0; i < FS_FILES; i++) unlink(fs_paths[i]);
  if (fs_temp[0]) unlink(fs_temp);
  rmdir(dir);
}

static void mode_fs(const char *parent) {
  fs_set_up(parent);
  fs_start_all();
  CHECK(uv_run(loop, UV_RUN_DEFAULT));
  CHECK(uv_fs_opendir(loop, &dir_req, dir, fs_dir_opened));
  CHECK(uv_fs_readlink(loop, &link_req, fs_paths[FS_SYM], fs_link_read));
  CHECK(uv_run(loop, UV_RUN_DEFAULT));
  print_results();
  fs_tidy();
}

/* --- handles --- */

enum {
  R_EVENT,
  R_POLL,
  R_TTY_READ,
  R_TTY_WRITE,
  R_WRITE2,
  R_PASSED,
  R_SIGNAL,
  R_SOCKET_POLL,
  R_TTY_FILE,
  R_TTY_PASS
};
static uv_fs_event_t fs_event;
static uv_fs_poll_t fs_poll;
static char event_path[1100], poll_path[1100];
static uv_tty_t tty, not_tty;
static int tty_master;
static uv_write_t tty_write_req, write2_req, tty_pass_req;
static uv_pipe_t ipc[2];
static uv_tcp_t passed, received;
static uv_signal_t oneshot;
static uv_poll_t socket_poll;
static uv_os_sock_t poll_socks[2];

static void touch(const char *path) {
  FILE *f = fopen(path, "a");
  if (f) {
    fputs("x\n", f);
    fclose(f);
  }
}

static void fs_event_seen(uv_fs_event_t *handle, const char *filename,
                          int events, int status) {
  (void)events;
  if (uv_is_closing((uv_handle_t *)handle)) /* more events of one change */
    return;
  snprintf(results[R_EVENT], sizeof results[0], "fs event: %s, %s",
           status_name(status), filename ? "named" : "unnamed");
  uv_close((uv_handle_t *)handle, NULL);
}

static void fs_poll_seen(uv_fs_poll_t *handle, int status,
                         const uv_stat_t *prev, const uv_stat_t *curr) {
  (void)prev;
  (void)curr;
  if (status < 0) { /* the file is missing at first */
    snprintf(results[R_POLL], sizeof results[0], "fs poll: %s",
             uv_err_name(status));
    touch(poll_path);
    return;
  }
  strcat(results[R_POLL], ", then ok");
  uv_close((uv_handle_t *)handle, NULL);
}

static void tty_written(uv_write_t *req, int status) {
  snprintf(results[R_TTY_WRITE], sizeof results[0], "tty write: %s",
           status_name(status));
  uv_close((uv_handle_t *)req->handle, NULL);
}

static void alloc_buffer(uv_handle_t *handle, size_t suggested, uv_buf_t *buf) {
  static char space[256];
  (void)handle;
  (void)suggested;
  *buf = uv_buf_init(space, sizeof space);
}

static void tty_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf) {
  (void)buf;
  if (nread == 0) return;
  snprintf(results[R_TTY_READ], sizeof results[0], "tty read: %zd bytes",
           nread);
  uv_read_stop(stream);
  uv_buf_t reply = uv_buf_init("ok\n", 3);
  CHECK(uv_write(&tty_write_req, stream, &reply, 1, tty_written));
}

/* A pseudo-terminal: uv's tty on its slave side, the input from its
 * master side. */
static void tty_start(void) {
  tty_master = posix_openpt(O_RDWR | O_NOCTTY);
  const char *slave =
      tty_master >= 0 && !grantpt(tty_master) && !unlockpt(tty_master)
          ? ptsname(tty_master)
          : NULL;
  int fd = slave ? open(slave, O_RDWR | O_NOCTTY) : -1;
  if (fd < 0) {
    fprintf(stderr, "uv_more: no pseudo-terminal\n");
    exit(1);
  }
  CHECK(uv_tty_init(loop, &tty, fd, 1));
  CHECK(uv_read_start((uv_stream_t *)&tty, alloc_buffer, tty_read));
  if (write(tty_master, "tty\n", 4) != 4) exit(1);
}

static void written2(uv_write_t *req, int status) {
  (void)req;
  snprintf(results[R_WRITE2], sizeof results[0], "write2: %s",
           status_name(status));
  uv_close((uv_handle_t *)&passed, NULL);
  uv_close((uv_handle_t *)&ipc[0], NULL);
}

static void ipc_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf) {
  (void)buf;
  if (nread <= 0) return;
  uv_pipe_t *pipe = (uv_pipe_t *)stream;
  int pending = uv_pipe_pending_count(pipe);
  if (pending && uv_pipe_pending_type(pipe) == UV_TCP) {
    CHECK(uv_tcp_init(loop, &received));
    CHECK(uv_accept(stream, (uv_stream_t *)&received));
    uv_close((uv_handle_t *)&received, NULL);
  }
  snprintf(results[R_PASSED], sizeof results[0],
           "write2: %zd byte, %d handle passed", nread, pending);
  uv_close((uv_handle_t *)stream, NULL);
}

static void never_written(uv_write_t *req, int status) {
  (void)req;
  (void)status;
  fprintf(stderr, "uv_more: a write that cannot start called back\n");
  exit(1);
}

/* A tty on a regular file, and a handle passed over the tty (not an IPC
 * pipe): libuv refuses both at once. */
static void tty_refused(void) {
  uv_file file = open(event_path, O_RDONLY);
  uv_buf_t one = uv_buf_init("h", 1);
  snprintf(results[R_TTY_FILE], sizeof results[0], "tty on a file: %s",
           status_name(uv_tty_init(loop, &not_tty, file, 0)));
  close(file);
  snprintf(results[R_TTY_PASS], sizeof results[0],
           "write2 of a handle to the tty: %s",
           status_name(uv_write2(&tty_pass_req, (uv_stream_t *)&tty, &one, 1,
                                 (uv_stream_t *)&passed, never_written)));
}

/* A bound TCP handle sent over an IPC pipe (a socket pair). */
static void write2_start(void) {
  uv_file fds[2];
  struct sockaddr_in any;
  CHECK(uv_socketpair(SOCK_STREAM, 0, fds, 0, 0));
  for (int i = 0; i < 2; i++) {
    CHECK(uv_pipe_init(loop, &ipc[i], 1));
    CHECK(uv_pipe_open(&ipc[i], fds[i]));
  }
  CHECK(uv_ip4_addr("127.0.0.1", 0, &any));
  CHECK(uv_tcp_init(loop, &passed));
  CHECK(uv_tcp_bind(&passed, (const struct sockaddr *)&any, 0));
  CHECK(uv_read_start((uv_stream_t *)&ipc[1], alloc_buffer, ipc_read));
  uv_buf_t one = uv_buf_init("h", 1);
  CHECK(uv_write2(&write2_req, (uv_stream_t *)&ipc[0], &one, 1,
                  (uv_stream_t *)&passed, written2));
}

static void signalled(uv_signal_t *handle, int signum) {
  snprintf(results[R_SIGNAL], sizeof results[0], "signal oneshot: %s",
           signum == SIGUSR2 ? "SIGUSR2" : "?");
  uv_close((uv_handle_t *)handle, NULL);
}

static void socket_ready(uv_poll_t *handle, int status, int events) {
  snprintf(results[R_SOCKET_POLL], sizeof results[0],
           "socket poll: %s, writable %d", status_name(status),
           !!(events & UV_WRITABLE));
  uv_close((uv_handle_t *)handle, NULL);
}

static void mode_handles(void) {
  in_dir(event_path, sizeof event_path, "uv_more.event");
  in_dir(poll_path, sizeof poll_path, "uv_more.poll");
  touch(event_path);
  unlink(poll_path);
  CHECK(uv_fs_event_init(loop, &fs_event));
  CHECK(uv_fs_event_start(&fs_event, fs_event_seen, event_path, 0));
  touch(event_path);
  CHECK(uv_fs_poll_init(loop, &fs_poll));
  CHECK(uv_fs_poll_start(&fs_poll, fs_poll_seen, poll_path, 5));
  tty_start();
  write2_start();
  tty_refused();
  CHECK(uv_signal_init(loop, &oneshot));
  CHECK(uv_signal_start_oneshot(&oneshot, signalled, SIGUSR2));
  CHECK(uv_kill(getpid(), SIGUSR2));
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, poll_socks));
  CHECK(uv_poll_init_socket(loop, &socket_poll, poll_socks[0]));
  CHECK(uv_poll_start(&socket_poll, UV_WRITABLE, socket_ready));
  CHECK(uv_run(loop, UV_RUN_DEFAULT));
  print_results();
  close(tty_master);
  close(poll_socks[0]);
  close(poll_socks[1]);
  unlink(event_path);
  unlink(poll_path);
}

/* --- sockets --- */

enum {
  R_UDP_SENT,
  R_UDP_UNSENT,
  R_UDP_RECEIVED,
  R_UDP_RECEIVED_OTHER,
  R_TRIED,
  R_READ,
  R_RESET,
  R_CLIENT,
  R_SYNC
};
static uv_udp_t udp_receiver, udp_sender, udp_other_sender;
static int udp_datagrams;
static uv_tcp_t listener, server_side, client;
static uv_connect_t connect_req;
static size_t server_bytes;

static void udp_received(uv_udp_t *handle, ssize_t nread, const uv_buf_t *buf,
                         const struct sockaddr *addr, unsigned flags) {
  (void)flags;
  if (nread <= 0 || !addr) return;
  snprintf(results[R_UDP_RECEIVED + udp_datagrams], sizeof results[0],
           "udp try_send: received %.*s", (int)nread, buf->base);
  if (++udp_datagrams < 2) return;
  uv_close((uv_handle_t *)handle, NULL);
  uv_close((uv_handle_t *)&udp_sender, NULL);
  uv_close((uv_handle_t *)&udp_other_sender, NULL);
}

/* Datagrams sent by uv_udp_try_send() over IPv4 loopback: "pong", then
 * "pang" from another socket, which the receiver's labels tell apart. */
static void udp_start(void) {
  struct sockaddr_in any, bound;
  int length = sizeof bound;
  CHECK(uv_ip4_addr("127.0.0.1", 0, &any));
  CHECK(uv_udp_init(loop, &udp_receiver));
  CHECK(uv_udp_bind(&udp_receiver, (const struct sockaddr *)&any, 0));
  CHECK(uv_udp_getsockname(&udp_receiver, (struct sockaddr *)&bound, &length));
  CHECK(uv_udp_recv_start(&udp_receiver, alloc_buffer, udp_received));
  CHECK(uv_udp_init(loop, &udp_sender));
  CHECK(uv_udp_bind(&udp_sender, (const struct sockaddr *)&any, 0));
  uv_buf_t pong = uv_buf_init("pong", 4);
  int sent =
      uv_udp_try_send(&udp_sender, &pong, 1, (const struct sockaddr *)&bound);
  snprintf(results[R_UDP_SENT], sizeof results[0], "udp try_send: %d bytes",
           sent);
  snprintf(results[R_UDP_UNSENT], sizeof results[0],
           "udp try_send without an address: %s",
           status_name(uv_udp_try_send(&udp_sender, &pong, 1, NULL)));
  uv_buf_t pang = uv_buf_init("pang", 4);
  CHECK(uv_udp_init(loop, &udp_other_sender));
  CHECK(uv_udp_bind(&udp_other_sender, (const struct sockaddr *)&any, 0));
  CHECK(uv_udp_try_send(&udp_other_sender, &pang, 1,
                        (const struct sockaddr *)&bound));
}

static void server_closed(uv_handle_t *handle) {
  (void)handle;
  snprintf(results[R_RESET], sizeof results[0], "close reset: closed");
}

static void server_read(uv_stream_t *stream, ssize_t nread,
                        const uv_buf_t *buf) {
  (void)buf;
  if (nread > 0) server_bytes += (size_t)nread;
  if (server_bytes < 3) return;
  snprintf(results[R_READ], sizeof results[0], "tcp: server read %zu bytes",
           server_bytes);
  uv_read_stop(stream);
  CHECK(uv_tcp_close_reset((uv_tcp_t *)stream, server_closed));
}

static void accepted(uv_stream_t *server, int status) {
  CHECK(status);
  CHECK(uv_tcp_init(loop, &server_side));
  CHECK(uv_accept(server, (uv_stream_t *)&server_side));
  CHECK(uv_read_start((uv_stream_t *)&server_side, alloc_buffer, server_read));
  uv_close((uv_handle_t *)server, NULL);
}

static void client_read(uv_stream_t *stream, ssize_t nread,
                        const uv_buf_t *buf) {
  (void)buf;
  if (nread >= 0) return;
  snprintf(results[R_CLIENT], sizeof results[0], "tcp: client got %s",
           uv_err_name((int)nread));
  uv_close((uv_handle_t *)stream, NULL);
}

static void connected(uv_connect_t *req, int status) {
  CHECK(status);
  uv_buf_t two = uv_buf_init("hi", 2), one = uv_buf_init("!", 1);
  int first = uv_try_write(req->handle, &two, 1);
  int second = uv_try_write2(req->handle, &one, 1, NULL);
  snprintf(results[R_TRIED], sizeof results[0], "tcp: tried %d and %d bytes",
           first, second);
  CHECK(uv_read_start(req->handle, alloc_buffer, client_read));
}

/* A connection whose client writes with uv_try_write() and
 * uv_try_write2(), and whose server side resets it. */
static void tcp_start(void) {
  struct sockaddr_in any, bound;
  int length = sizeof bound;
  CHECK(uv_ip4_addr("127.0.0.1", 0, &any));
  CHECK(uv_tcp_init(loop, &listener));
  CHECK(uv_tcp_bind(&listener, (const struct sockaddr *)&any, 0));
  CHECK(uv_listen((uv_stream_t *)&listener, 1, accepted));
  CHECK(uv_tcp_getsockname(&listener, (struct sockaddr *)&bound, &length));
  CHECK(uv_tcp_init(loop, &client));
  CHECK(uv_tcp_connect(&connect_req, &client, (const struct sockaddr *)&bound,
                       connected));
}

/* The requests that run synchronously without a callback. */
static void sync_requests(void) {
  uv_getaddrinfo_t addr_req;
  uv_getnameinfo_t name_req;
  uv_random_t random_req;
  struct addrinfo hints = {.ai_flags = AI_NUMERICHOST};
  struct sockaddr_in local;
  char bytes[8];
  int found = uv_getaddrinfo(loop, &addr_req, NULL, "127.0.0.1", NULL, &hints);
  if (found == 0) uv_freeaddrinfo(addr_req.addrinfo);
  CHECK(uv_ip4_addr("127.0.0.1", 0, &local));
  int named = uv_getnameinfo(loop, &name_req, NULL,
                             (const struct sockaddr *)&local, NI_NUMERICHOST);
  int random = uv_random(loop, &random_req, bytes, sizeof bytes, 0, NULL);
  snprintf(results[R_SYNC], sizeof results[0],
           "sync: getaddrinfo %s, getnameinfo %s, random %s",
           status_name(found), status_name(named), status_name(random));
}

static void mode_sockets(void) {
  udp_start();
  tcp_start();
  CHECK(uv_run(loop, UV_RUN_DEFAULT));
  sync_requests();
  print_results();
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: uv_more DIR fs|handles|sockets\n");
    return 2;
  }
  loop = uv_default_loop();
  snprintf(dir, sizeof dir, "%s", argv[1]);
  if (!strcmp(argv[2], "fs"))
    mode_fs(argv[1]);
  else if (!strcmp(argv[2], "handles"))
    mode_handles();
  else if (!strcmp(argv[2], "sockets"))
    mode_sockets();
  else
    return 2;
  CHECK(uv_loop_close(loop));
  return 0;
}
