/* uv_echo.c -- the workload of the libuv shim benchmark: a plain libuv
 * program (no mprof in it) that echoes messages over loopback TCP, one at a
 * time, in one loop, and prints "MESSAGES BYTES NS" of the echo phase.
 * bench_uv.c runs it with and without the LD_PRELOAD shim.
 *
 *   uv_echo MESSAGES SIZE MAX_MS [WARMUP]
 *
 * The echo phase stops early once MAX_MS have passed.  WARMUP messages
 * (default 0) are echoed first and left out of the figures: the state of a
 * server that has run for a while.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

static uv_loop_t *loop;
static uv_tcp_t server, server_side, client;
static uv_connect_t connect_req;
static char *message;
static size_t size, received;
static unsigned long sent, limit, warmup;
static uint64_t start_ns, max_ns;

static void die(const char *what, int err) {
  fprintf(stderr, "uv_echo: %s: %s\n", what, uv_strerror(err));
  exit(1);
}

static void alloc_buffer(uv_handle_t *handle, size_t suggested, uv_buf_t *buf) {
  (void)handle;
  buf->base = malloc(suggested);
  buf->len = buf->base ? suggested : 0;
}

static void written(uv_write_t *req, int status) {
  if (status < 0) die("write", status);
  free(req);
}

static void write_bytes(uv_stream_t *stream, char *base, size_t length) {
  uv_write_t *req = malloc(sizeof *req);
  uv_buf_t buf = uv_buf_init(base, (unsigned)length);
  int err = req ? uv_write(req, stream, &buf, 1, written) : UV_ENOMEM;
  if (err) die("uv_write", err);
}

/* The echo side copies what it reads into a buffer that lives until the
 * write is done: the read buffer itself. */
static void echo_written(uv_write_t *req, int status) {
  if (status < 0) die("echo write", status);
  free(req->data);
  free(req);
}

static void server_read(uv_stream_t *stream, ssize_t nread,
                        const uv_buf_t *buf) {
  if (nread > 0) {
    uv_write_t *req = malloc(sizeof *req);
    uv_buf_t back = uv_buf_init(buf->base, (unsigned)nread);
    req->data = buf->base;
    int err = uv_write(req, stream, &back, 1, echo_written);
    if (err) die("echo", err);
    return;
  }
  free(buf->base);
  if (nread < 0) uv_close((uv_handle_t *)stream, NULL);
}

static void server_accepted(uv_stream_t *listener, int status) {
  if (status < 0) die("listen", status);
  uv_tcp_init(loop, &server_side);
  uv_accept(listener, (uv_stream_t *)&server_side);
  uv_tcp_nodelay(&server_side, 1);
  uv_read_start((uv_stream_t *)&server_side, alloc_buffer, server_read);
  uv_close((uv_handle_t *)listener, NULL);
}

static void client_read(uv_stream_t *stream, ssize_t nread,
                        const uv_buf_t *buf) {
  free(buf->base);
  if (nread < 0) die("client read", (int)nread);
  received += (size_t)nread;
  if (received < size) return;
  received = 0;
  if (warmup) {
    if (--warmup == 0) start_ns = uv_hrtime();
    write_bytes(stream, message, size);
    return;
  }
  if (++sent < limit && uv_hrtime() - start_ns < max_ns) {
    write_bytes(stream, message, size);
    return;
  }
  printf("%lu %zu %llu\n", sent, sent * size,
         (unsigned long long)(uv_hrtime() - start_ns));
  uv_close((uv_handle_t *)stream, NULL);
  uv_read_stop((uv_stream_t *)&server_side);
  uv_close((uv_handle_t *)&server_side, NULL);
}

static void client_connected(uv_connect_t *req, int status) {
  if (status < 0) die("connect", status);
  uv_tcp_nodelay(&client, 1);
  uv_read_start(req->handle, alloc_buffer, client_read);
  start_ns = uv_hrtime();
  write_bytes(req->handle, message, size);
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: uv_echo MESSAGES SIZE MAX_MS [WARMUP]\n");
    return 2;
  }
  limit = strtoul(argv[1], NULL, 10);
  size = strtoul(argv[2], NULL, 10);
  max_ns = strtoull(argv[3], NULL, 10) * 1000000u;
  warmup = argc == 5 ? strtoul(argv[4], NULL, 10) : 0;
  message = calloc(1, size ? size : 1);
  if (!limit || !size || !message) return 2;
  loop = uv_default_loop();
  struct sockaddr_in addr;
  int length = sizeof addr;
  uv_ip4_addr("127.0.0.1", 0, &addr);
  uv_tcp_init(loop, &server);
  uv_tcp_bind(&server, (const struct sockaddr *)&addr, 0);
  int err = uv_listen((uv_stream_t *)&server, 1, server_accepted);
  if (err) die("listen", err);
  uv_tcp_getsockname(&server, (struct sockaddr *)&addr, &length);
  uv_tcp_init(loop, &client);
  uv_tcp_connect(&connect_req, &client, (const struct sockaddr *)&addr,
                 client_connected);
  uv_run(loop, UV_RUN_DEFAULT);
  uv_loop_close(loop);
  free(message);
  return 0;
}
