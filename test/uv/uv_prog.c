/* uv_prog.c -- a libuv program of every kind of work the libuv tracing
 * knows, in stages that run one after another so its output is the same on
 * every run: files, timers, the thread pool, an async send from another OS
 * thread, a TCP echo over loopback and a UDP datagram.  Built twice by
 * test/uv/CMakeLists.txt: plain (run under the LD_PRELOAD shim) and with
 * mprof/uv.h and MPROF_TRACING.
 *
 *   uv_prog DIR [all|no-loop|exit-in-callback|abort|fork|exec|threads]
 */
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uv.h>

#include <mprof/uv.h>

#include "uv_check.h"

static uv_loop_t *loop;
static char path[1024];
static char file_text[] = "0123456789abcdef";
static char read_buf[64];
static uv_fs_t fs_req;

/* --- files: write, read back, stat, unlink --- */

static void fs_stated_missing(uv_fs_t *req) {
  printf("fs: stat of the unlinked file: %s\n", uv_err_name((int)req->result));
  uv_fs_req_cleanup(req);
}

static void fs_unlinked(uv_fs_t *req) {
  uv_fs_req_cleanup(req);
  printf("fs: unlinked\n");
  CHECK(uv_fs_stat(loop, req, path, fs_stated_missing));
}

static void fs_stated(uv_fs_t *req) {
  printf("fs: stat size %llu\n", (unsigned long long)req->statbuf.st_size);
  uv_fs_req_cleanup(req);
  CHECK(uv_fs_unlink(loop, req, path, fs_unlinked));
}

static void fs_read_closed(uv_fs_t *req) {
  uv_fs_req_cleanup(req);
  CHECK(uv_fs_stat(loop, req, path, fs_stated));
}

static void fs_was_read(uv_fs_t *req) {
  uv_file file = (uv_file)(intptr_t)req->data;
  printf("fs: read %d bytes: %.*s\n", (int)req->result, (int)req->result,
         read_buf);
  uv_fs_req_cleanup(req);
  CHECK(uv_fs_close(loop, req, file, fs_read_closed));
}

static void fs_opened_for_read(uv_fs_t *req) {
  uv_file file = (uv_file)req->result;
  uv_fs_req_cleanup(req);
  req->data = (void *)(intptr_t)file;
  uv_buf_t buf = uv_buf_init(read_buf, sizeof read_buf);
  CHECK(uv_fs_read(loop, req, file, &buf, 1, 0, fs_was_read));
}

static void fs_write_closed(uv_fs_t *req) {
  uv_fs_req_cleanup(req);
  CHECK(uv_fs_open(loop, req, path, UV_FS_O_RDONLY, 0, fs_opened_for_read));
}

static void fs_written(uv_fs_t *req) {
  uv_file file = (uv_file)(intptr_t)req->data;
  printf("fs: wrote %d bytes\n", (int)req->result);
  uv_fs_req_cleanup(req);
  CHECK(uv_fs_close(loop, req, file, fs_write_closed));
}

static void fs_opened_for_write(uv_fs_t *req) {
  uv_file file = (uv_file)req->result;
  uv_fs_req_cleanup(req);
  req->data = (void *)(intptr_t)file;
  uv_buf_t buf = uv_buf_init(file_text, (unsigned)strlen(file_text));
  CHECK(uv_fs_write(loop, req, file, &buf, 1, 0, fs_written));
}

static void stage_files(void) {
  uv_fs_t sync_req;
  errno = 0;
  int result = uv_fs_open(loop, &sync_req, "/nonexistent/uv_prog",
                          UV_FS_O_RDONLY, 0, NULL);
  printf("fs: synchronous open of a missing file: %s, errno %d\n",
         uv_err_name(result), errno);
  uv_fs_req_cleanup(&sync_req);
  CHECK(uv_fs_open(loop, &fs_req, path,
                   UV_FS_O_WRONLY | UV_FS_O_CREAT | UV_FS_O_TRUNC, 0600,
                   fs_opened_for_write));
}

/* --- timers --- */

static uv_timer_t timer;
static int ticks;

static void timer_closed(uv_handle_t *handle) {
  (void)handle;
  printf("timer: closed after %d ticks\n", ticks);
}

static void timer_tick(uv_timer_t *handle) {
  if (++ticks == 3) uv_close((uv_handle_t *)handle, timer_closed);
}

static void stage_timers(void) {
  CHECK(uv_timer_init(loop, &timer));
  printf("timer: start without a callback: %s\n",
         uv_err_name(uv_timer_start(&timer, NULL, 1, 1)));
  CHECK(uv_timer_start(&timer, timer_tick, 1, 1));
}

/* --- the thread pool --- */

static uv_work_t works[2];
static long sums[2];
static int work_statuses[2] = {-1, -1};

static void work_sum(uv_work_t *req) {
  long n = (long)(req - works + 1) * 1000, sum = 0;
  for (long i = 1; i <= n; i++) sum += i;
  sums[req - works] = sum;
}

/* The two works finish in either order on the pool's threads, so their
 * statuses are printed after the stage, in index order. */
static void work_after(uv_work_t *req, int status) {
  work_statuses[req - works] = status;
}

static void print_works(void) {
  for (int i = 0; i < 2; i++)
    printf("work %d: status %d\n", i, work_statuses[i]);
}

static void stage_work(void) {
  for (int i = 0; i < 2; i++)
    CHECK(uv_queue_work(loop, &works[i], work_sum, work_after));
}

/* --- async send from another OS thread --- */

static uv_async_t async;
static uv_thread_t sender;

static void async_woken(uv_async_t *handle) {
  printf("async: woken\n");
  uv_close((uv_handle_t *)handle, NULL);
}

static void send_from_thread(void *arg) {
  (void)arg;
  uv_async_send(&async);
}

static void stage_async(void) {
  CHECK(uv_async_init(loop, &async, async_woken));
  CHECK(uv_thread_create(&sender, send_from_thread, NULL));
}

/* --- TCP echo over loopback --- */

static uv_tcp_t server, server_side, client;
static uv_connect_t connect_req;
static uv_write_t client_writes[2];
static char echoed[64];
static size_t echoed_length;
static char *messages[2] = {"hello", "world!"};

static void alloc_buffer(uv_handle_t *handle, size_t suggested, uv_buf_t *buf) {
  (void)handle;
  buf->base = malloc(suggested);
  buf->len = buf->base ? suggested : 0;
}

static void echo_written(uv_write_t *req, int status) {
  if (status < 0) fprintf(stderr, "uv_prog: echo: %s\n", uv_strerror(status));
  free(req->data);
  free(req);
}

static void server_read(uv_stream_t *stream, ssize_t nread,
                        const uv_buf_t *buf) {
  if (nread > 0) {
    uv_write_t *req = malloc(sizeof *req);
    req->data = buf->base;
    uv_buf_t back = uv_buf_init(buf->base, (unsigned)nread);
    CHECK(uv_write(req, stream, &back, 1, echo_written));
    return;
  }
  free(buf->base);
  if (nread < 0) uv_close((uv_handle_t *)stream, NULL);
}

static void server_accepted(uv_stream_t *listener, int status) {
  CHECK(status);
  CHECK(uv_tcp_init(loop, &server_side));
  CHECK(uv_accept(listener, (uv_stream_t *)&server_side));
  CHECK(uv_read_start((uv_stream_t *)&server_side, alloc_buffer, server_read));
  uv_close((uv_handle_t *)listener, NULL);
}

static void client_shut(uv_shutdown_t *req, int status) {
  CHECK(status);
  uv_close((uv_handle_t *)req->handle, NULL);
  free(req);
}

static void client_read(uv_stream_t *stream, ssize_t nread,
                        const uv_buf_t *buf) {
  if (nread > 0) {
    memcpy(echoed + echoed_length, buf->base, (size_t)nread);
    echoed_length += (size_t)nread;
  }
  free(buf->base);
  if (echoed_length == strlen(messages[0]) + strlen(messages[1])) {
    printf("tcp: echoed %zu bytes: %.*s\n", echoed_length, (int)echoed_length,
           echoed);
    uv_shutdown_t *req = malloc(sizeof *req);
    uv_read_stop(stream);
    CHECK(uv_shutdown(req, stream, client_shut));
  }
}

static void client_connected(uv_connect_t *req, int status) {
  CHECK(status);
  for (int i = 0; i < 2; i++) {
    uv_buf_t buf = uv_buf_init(messages[i], (unsigned)strlen(messages[i]));
    CHECK(uv_write(&client_writes[i], req->handle, &buf, 1, NULL));
  }
  CHECK(uv_read_start(req->handle, alloc_buffer, client_read));
}

static void stage_tcp(void) {
  struct sockaddr_in any, bound;
  int length = sizeof bound;
  CHECK(uv_ip4_addr("127.0.0.1", 0, &any));
  CHECK(uv_tcp_init(loop, &server));
  CHECK(uv_tcp_bind(&server, (const struct sockaddr *)&any, 0));
  CHECK(uv_listen((uv_stream_t *)&server, 4, server_accepted));
  CHECK(uv_tcp_getsockname(&server, (struct sockaddr *)&bound, &length));
  CHECK(uv_tcp_init(loop, &client));
  uv_write_t early;
  uv_buf_t buf = uv_buf_init(messages[0], 1);
  printf("tcp: write before connecting: %s\n",
         uv_err_name(uv_write(&early, (uv_stream_t *)&client, &buf, 1, NULL)));
  CHECK(uv_tcp_connect(&connect_req, &client, (const struct sockaddr *)&bound,
                       client_connected));
}

/* --- UDP --- */

static uv_udp_t receiver, udp_sender;
static uv_udp_send_t udp_req;
static char datagram[] = "ping";

static void udp_received(uv_udp_t *handle, ssize_t nread, const uv_buf_t *buf,
                         const struct sockaddr *addr, unsigned flags) {
  (void)flags;
  if (nread > 0 && addr) {
    printf("udp: received %.*s\n", (int)nread, buf->base);
    uv_close((uv_handle_t *)handle, NULL);
    uv_close((uv_handle_t *)&udp_sender, NULL);
  }
  free(buf->base);
}

/* A datagram from one socket to another over ip (IPv4 or IPv6). */
static void udp_over(const char *ip) {
  struct sockaddr_storage any, bound;
  int length = sizeof bound;
  if (strchr(ip, ':'))
    CHECK(uv_ip6_addr(ip, 0, (struct sockaddr_in6 *)&any));
  else
    CHECK(uv_ip4_addr(ip, 0, (struct sockaddr_in *)&any));
  CHECK(uv_udp_init(loop, &receiver));
  if (uv_udp_bind(&receiver, (const struct sockaddr *)&any, 0)) {
    printf("udp %s: unavailable\n", ip);
    uv_close((uv_handle_t *)&receiver, NULL);
    return;
  }
  CHECK(uv_udp_getsockname(&receiver, (struct sockaddr *)&bound, &length));
  CHECK(uv_udp_recv_start(&receiver, alloc_buffer, udp_received));
  CHECK(uv_udp_init(loop, &udp_sender));
  CHECK(uv_udp_bind(&udp_sender, (const struct sockaddr *)&any, 0));
  uv_buf_t buf = uv_buf_init(datagram, (unsigned)strlen(datagram));
  CHECK(uv_udp_send(&udp_req, &udp_sender, &buf, 1,
                    (const struct sockaddr *)&bound, NULL));
}

static void stage_udp(void) { udp_over("127.0.0.1"); }
static void stage_udp6(void) { udp_over("::1"); }

/* --- directories: mkdir, scandir, rename, rmdir --- */

static char dir_path[1100], moved_path[1100];

static void dir_removed(uv_fs_t *req) {
  printf("dirs: rmdir %s\n",
         req->result ? uv_err_name((int)req->result) : "ok");
  uv_fs_req_cleanup(req);
}

static void dir_renamed(uv_fs_t *req) {
  uv_fs_req_cleanup(req);
  CHECK(uv_fs_rmdir(loop, req, moved_path, dir_removed));
}

static void dir_scanned(uv_fs_t *req) {
  printf("dirs: %d entries\n", (int)req->result);
  uv_fs_req_cleanup(req);
  CHECK(uv_fs_rename(loop, req, dir_path, moved_path, dir_renamed));
}

static void dir_made(uv_fs_t *req) {
  uv_fs_req_cleanup(req);
  CHECK(uv_fs_scandir(loop, req, dir_path, 0, dir_scanned));
}

static void stage_dirs(void) {
  snprintf(dir_path, sizeof dir_path, "%s.d", path);
  snprintf(moved_path, sizeof moved_path, "%s.moved", path);
  CHECK(uv_fs_mkdir(loop, &fs_req, dir_path, 0700, dir_made));
}

/* --- getnameinfo, random, a child process, a pipe, a poll --- */

static uv_getnameinfo_t name_req;
static uv_random_t random_req;
static char random_bytes[16];
static uv_process_t process;
static char *self;
static uv_pipe_t pipe_server, pipe_client, pipe_accepted;
static uv_connect_t pipe_connect_req;
static char pipe_path[1100];
static uv_poll_t poll_handle;
static int poll_fds[2];
static char more_results[5][64]; /* printed in this order once all ran */

static void print_more(void) {
  for (int i = 0; i < 5; i++) printf("%s\n", more_results[i]);
}

static void name_found(uv_getnameinfo_t *req, int status, const char *host,
                       const char *service) {
  (void)req;
  (void)host;
  (void)service;
  snprintf(more_results[0], 64, "getnameinfo: %s",
           status ? uv_err_name(status) : "ok");
}

static void random_got(uv_random_t *req, int status, void *buf, size_t len) {
  (void)req;
  (void)buf;
  snprintf(more_results[1], 64, "random: %s, %zu bytes",
           status ? uv_err_name(status) : "ok", len);
}

static void process_exited(uv_process_t *handle, int64_t status, int signal) {
  snprintf(more_results[2], 64, "process: exited %d, signal %d", (int)status,
           signal);
  uv_close((uv_handle_t *)handle, NULL);
}

static void pipe_connected(uv_connect_t *req, int status) {
  snprintf(more_results[3], 64, "pipe: connect %s",
           status ? uv_err_name(status) : "ok");
  uv_close((uv_handle_t *)req->handle, NULL);
}

static void pipe_accepted_cb(uv_stream_t *server, int status) {
  CHECK(status);
  CHECK(uv_pipe_init(loop, &pipe_accepted, 0));
  CHECK(uv_accept(server, (uv_stream_t *)&pipe_accepted));
  uv_close((uv_handle_t *)&pipe_accepted, NULL);
  uv_close((uv_handle_t *)server, NULL);
}

static void poll_ready(uv_poll_t *handle, int status, int events) {
  snprintf(more_results[4], 64, "poll: %s, writable %d",
           status ? uv_err_name(status) : "ok", !!(events & UV_WRITABLE));
  uv_close((uv_handle_t *)handle, NULL);
}

static void stage_more(void) {
  struct sockaddr_in local;
  CHECK(uv_ip4_addr("127.0.0.1", 0, &local));
  CHECK(uv_getnameinfo(loop, &name_req, name_found,
                       (const struct sockaddr *)&local, NI_NUMERICHOST));
  CHECK(uv_random(loop, &random_req, random_bytes, sizeof random_bytes, 0,
                  random_got));
  char *args[] = {self, dir_path, "no-loop", NULL};
  uv_process_options_t options = {
      .exit_cb = process_exited, .file = self, .args = args};
  CHECK(uv_spawn(loop, &process, &options));
  snprintf(pipe_path, sizeof pipe_path, "%s.sock", path);
  CHECK(uv_pipe_init(loop, &pipe_server, 0));
  CHECK(uv_pipe_bind(&pipe_server, pipe_path));
  CHECK(uv_listen((uv_stream_t *)&pipe_server, 1, pipe_accepted_cb));
  CHECK(uv_pipe_init(loop, &pipe_client, 0));
  uv_pipe_connect(&pipe_connect_req, &pipe_client, pipe_path, pipe_connected);
  CHECK(pipe(poll_fds));
  CHECK(uv_poll_init(loop, &poll_handle, poll_fds[1]));
  CHECK(uv_poll_start(&poll_handle, UV_WRITABLE, poll_ready));
}

/* --- idle, prepare, check and signal handles --- */

static uv_idle_t idle;
static uv_prepare_t prepare;
static uv_check_t check;
static uv_signal_t signal_handle;
static char watcher_results[4][64];

#define ONCE(kind, slot)                                                       \
  static void kind##_once(uv_##kind##_t *handle) {                             \
    snprintf(watcher_results[slot], 64, "%s: ran", #kind);                     \
    uv_close((uv_handle_t *)handle, NULL);                                     \
  }
ONCE(idle, 0)
ONCE(prepare, 1)
ONCE(check, 2)

static void signalled(uv_signal_t *handle, int signum) {
  snprintf(watcher_results[3], 64, "signal: %s",
           signum == SIGUSR1 ? "SIGUSR1" : "?");
  uv_close((uv_handle_t *)handle, NULL);
}

static void stage_watchers(void) {
  CHECK(uv_idle_init(loop, &idle));
  CHECK(uv_idle_start(&idle, idle_once));
  CHECK(uv_prepare_init(loop, &prepare));
  CHECK(uv_prepare_start(&prepare, prepare_once));
  CHECK(uv_check_init(loop, &check));
  CHECK(uv_check_start(&check, check_once));
  CHECK(uv_signal_init(loop, &signal_handle));
  CHECK(uv_signal_start(&signal_handle, signalled, SIGUSR1));
  CHECK(uv_kill(getpid(), SIGUSR1));
}

static void print_watchers(void) {
  for (int i = 0; i < 4; i++) printf("%s\n", watcher_results[i]);
}

/* --- the odd cases --- */

static uv_timer_t first_timer;

static void exit_now(uv_timer_t *handle) {
  (void)handle;
  printf("exit-in-callback: exiting\n");
  fflush(stdout);
  exit(3);
}

/* A child forked inside a callback runs the timer stage on its own. */
static void abort_now(uv_timer_t *handle) {
  (void)handle;
  printf("abort: aborting\n");
  fflush(stdout);
  abort();
}

static void fork_now(uv_timer_t *handle) {
  uv_close((uv_handle_t *)handle, NULL);
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    CHECK(uv_loop_fork(loop));
    stage_timers();
    return;
  }
  int status;
  waitpid(child, &status, 0);
  printf("fork: child exited %d\n", WEXITSTATUS(status));
}

/* Many OS threads, each with its own loop and timer. */
#define LOOPS 4

typedef struct own_loop_s {
  uv_loop_t loop;
  uv_timer_t timer;
  int ticks;
} own_loop_t;

static void own_tick(uv_timer_t *handle) {
  own_loop_t *own = handle->data;
  if (++own->ticks == 3) uv_close((uv_handle_t *)handle, NULL);
}

static void own_loop_run(void *arg) {
  own_loop_t *own = arg;
  CHECK(uv_loop_init(&own->loop));
  CHECK(uv_timer_init(&own->loop, &own->timer));
  own->timer.data = own;
  CHECK(uv_timer_start(&own->timer, own_tick, 1, 1));
  CHECK(uv_run(&own->loop, UV_RUN_DEFAULT));
  CHECK(uv_loop_close(&own->loop));
}

static void many_loops(void) {
  static own_loop_t owns[LOOPS];
  uv_thread_t threads[LOOPS];
  for (int i = 0; i < LOOPS; i++)
    CHECK(uv_thread_create(&threads[i], own_loop_run, &owns[i]));
  int ticks = 0;
  for (int i = 0; i < LOOPS; i++) {
    uv_thread_join(&threads[i]);
    ticks += owns[i].ticks;
  }
  printf("threads: %d loops ran %d ticks\n", LOOPS, ticks);
}

static void count_handle(uv_handle_t *handle, void *arg) {
  (void)handle;
  ++*(int *)arg;
}

/* uv_walk() sees the program's handles only; uv_loop_close() fails while
 * one is open, then works once it is closed. */
static void close_with_a_handle_open(void) {
  uv_timer_t leftover;
  int handles = 0;
  CHECK(uv_timer_init(loop, &leftover));
  uv_walk(loop, count_handle, &handles);
  printf("walk: %d handle\n", handles);
  printf("loop close with a handle open: %s\n",
         uv_err_name(uv_loop_close(loop)));
  uv_close((uv_handle_t *)&leftover, NULL);
  CHECK(uv_run(loop, UV_RUN_DEFAULT));
  CHECK(uv_loop_close(loop));
}

/* A program may close its loop while the loop holds a handle whose memory
 * the program has already reused (knot-resolver's kresd does at exit):
 * libuv's uv_loop_close() reads no further than the first open handle and
 * fails with EBUSY. */
static void close_with_a_handle_freed(void) {
  static uv_timer_t open;
  static uv_idle_t freed;
  CHECK(uv_timer_init(loop, &open));
  CHECK(uv_idle_init(loop, &freed));
  CHECK(uv_run(loop, UV_RUN_NOWAIT));
  memset(&freed, 0, sizeof freed);
  printf("loop close with a handle freed: %s\n",
         uv_err_name(uv_loop_close(loop)));
}

static void run(void (*stage)(void)) {
  stage();
  CHECK(uv_run(loop, UV_RUN_DEFAULT));
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: uv_prog DIR "
                    "[all|no-loop|exit-in-callback|abort|fork|exec|threads|env|"
                    "freed-handle]\n");
    return 2;
  }
  const char *mode = argc > 2 ? argv[2] : "all";
  self = argv[0];
  snprintf(path, sizeof path, "%s/uv_prog.%d.txt", argv[1], (int)getpid());
  loop = uv_default_loop();
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!strcmp(mode, "env")) { /* what `mprof record` passed on */
    const char *names[] = {"GLIBC_TUNABLES", "MPROF_HUGE_PAGES_STARTED"};
    for (int i = 0; i < 2; i++)
      printf("env: %s %s\n", names[i],
             getenv(names[i]) ? getenv(names[i]) : "unset");
    return 0;
  }
  if (!strcmp(mode, "no-loop")) {
    uv_timer_init(loop, &timer);
    printf("no-loop: never ran the loop\n");
    return 0;
  }
  if (!strcmp(mode, "freed-handle")) {
    close_with_a_handle_freed();
    return 0;
  }
  if (!strcmp(mode, "threads")) {
    many_loops();
    return 0;
  }
  if (!strcmp(mode, "exec")) {
    printf("exec: into no-loop\n");
    execl(argv[0], argv[0], argv[1], "no-loop", (char *)NULL);
    return 1;
  }
  if (!strcmp(mode, "exit-in-callback") || !strcmp(mode, "fork") ||
      !strcmp(mode, "abort")) {
    CHECK(uv_timer_init(loop, &first_timer));
    CHECK(uv_timer_start(&first_timer,
                         mode[0] == 'e'   ? exit_now
                         : mode[0] == 'a' ? abort_now
                                          : fork_now,
                         1, 0));
    CHECK(uv_run(loop, UV_RUN_DEFAULT));
    return 0;
  }
  run(stage_files);
  run(stage_timers);
  run(stage_work);
  print_works();
  run(stage_async);
  uv_thread_join(&sender);
  run(stage_tcp);
  run(stage_udp);
  run(stage_udp6);
  run(stage_dirs);
  run(stage_more);
  print_more();
  run(stage_watchers);
  print_watchers();
  unlink(pipe_path);
  printf("work sums: %ld %ld\n", sums[0], sums[1]);
  close_with_a_handle_open();
  printf("done\n");
  return 0;
}
