/* ok_http.c -- a correct program for the zoo: a small HTTP-like server
 * and a client in one loop.  The client makes 20 requests one after the
 * other, each on a new connection; the server answers each and closes it.
 * Nothing must be found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "zoo_tcp.h"

#define REQUESTS 20

typedef struct conn_s {
  uv_tcp_t tcp;
  uv_write_t write;
  char out[64];
  char in[256];
} conn_t;

static uv_tcp_t server;
static int port, done;
static void request(void);

static void free_conn(uv_handle_t *handle) { free(handle->data); }

static void alloc(uv_handle_t *handle, size_t size, uv_buf_t *buf) {
  conn_t *c = handle->data;
  (void)size;
  *buf = uv_buf_init(c->in, sizeof c->in);
}

static void answered(uv_write_t *req, int status) {
  (void)status;
  uv_close((uv_handle_t *)req->handle, free_conn);
}

/* Server side: a request came in; answer it. */
static void server_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf) {
  conn_t *c = stream->data;
  (void)buf;
  if (n <= 0) {
    if (n < 0) uv_close((uv_handle_t *)stream, free_conn);
    return;
  }
  uv_read_stop(stream);
  int length = snprintf(c->out, sizeof c->out,
                        "HTTP/1.0 200 OK\r\n\r\nhello %d\n", done);
  uv_buf_t reply = uv_buf_init(c->out, (unsigned)length);
  uv_write(&c->write, stream, &reply, 1, answered);
}

static void accepted(uv_stream_t *listener, int status) {
  if (status) return;
  conn_t *c = calloc(1, sizeof *c);
  uv_tcp_init(listener->loop, &c->tcp);
  c->tcp.data = c;
  uv_accept(listener, (uv_stream_t *)&c->tcp);
  uv_read_start((uv_stream_t *)&c->tcp, alloc, server_read);
}

/* Client side: read the answer to the end, then the next request. */
static void client_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf) {
  (void)buf;
  if (n >= 0) return;
  uv_close((uv_handle_t *)stream, free_conn);
  if (++done < REQUESTS)
    request();
  else
    uv_close((uv_handle_t *)&server, NULL);
}

static void sent(uv_write_t *req, int status) {
  (void)req;
  (void)status;
}

static void connected(uv_connect_t *req, int status) {
  conn_t *c = req->data;
  free(req);
  if (status) {
    fprintf(stderr, "ok_http: connect: %s\n", uv_strerror(status));
    exit(1);
  }
  int length =
      snprintf(c->out, sizeof c->out, "GET /item/%d HTTP/1.0\r\n\r\n", done);
  uv_buf_t get = uv_buf_init(c->out, (unsigned)length);
  uv_write(&c->write, (uv_stream_t *)&c->tcp, &get, 1, sent);
  uv_read_start((uv_stream_t *)&c->tcp, alloc, client_read);
}

static void request(void) {
  conn_t *c = calloc(1, sizeof *c);
  uv_connect_t *req = malloc(sizeof *req);
  struct sockaddr_in to;
  uv_ip4_addr("127.0.0.1", port, &to);
  uv_tcp_init(uv_default_loop(), &c->tcp);
  c->tcp.data = c;
  req->data = c;
  uv_tcp_connect(req, &c->tcp, (const struct sockaddr *)&to, connected);
}

int main(void) {
  uv_loop_t *loop = uv_default_loop();
  port = zoo_bind_local(loop, &server);
  uv_listen((uv_stream_t *)&server, 16, accepted);
  request();
  uv_run(loop, UV_RUN_DEFAULT);
  return uv_loop_close(loop);
}
