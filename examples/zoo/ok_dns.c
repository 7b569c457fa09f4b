/* ok_dns.c -- a correct program for the zoo: a client that resolves
 * "localhost" and connects to a server of its own five times, then tries
 * a port nobody listens on three times and gives up, as it should: the
 * report must count the three refused connects (connect: ECONNREFUSED x3)
 * and find nothing wrong. */
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

#include "zoo_tcp.h"

#define ROUNDS 5
#define REFUSED 3

static uv_tcp_t server;
static int port, closed_port, rounds, refusals;
static void resolve(void);
static void knock(void);

static void free_handle(uv_handle_t *handle) { free(handle); }

static void accepted(uv_stream_t *listener, int status) {
  if (status) return;
  uv_tcp_t *peer = malloc(sizeof *peer);
  uv_tcp_init(listener->loop, peer);
  uv_accept(listener, (uv_stream_t *)peer);
  uv_close((uv_handle_t *)peer, free_handle);
}

static void connected(uv_connect_t *req, int status) {
  uv_close((uv_handle_t *)req->handle, free_handle);
  free(req);
  if (status) {
    fprintf(stderr, "ok_dns: connect: %s\n", uv_strerror(status));
    exit(1);
  }
  if (++rounds < ROUNDS)
    resolve();
  else
    knock();
}

static void resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res) {
  free(req);
  if (status) {
    fprintf(stderr, "ok_dns: getaddrinfo: %s\n", uv_strerror(status));
    exit(1);
  }
  struct sockaddr_in to = *(struct sockaddr_in *)res->ai_addr;
  to.sin_port = htons((unsigned short)port);
  uv_freeaddrinfo(res);
  uv_tcp_t *tcp = malloc(sizeof *tcp);
  uv_connect_t *connect = malloc(sizeof *connect);
  uv_tcp_init(uv_default_loop(), tcp);
  uv_tcp_connect(connect, tcp, (const struct sockaddr *)&to, connected);
}

static void resolve(void) {
  static const struct addrinfo hints = {.ai_family = AF_INET,
                                        .ai_socktype = SOCK_STREAM};
  uv_getaddrinfo_t *req = malloc(sizeof *req);
  uv_getaddrinfo(uv_default_loop(), req, resolved, "localhost", NULL, &hints);
}

/* The refused connects: expected, handled, and the end of the program. */
static void refused(uv_connect_t *req, int status) {
  uv_close((uv_handle_t *)req->handle, free_handle);
  free(req);
  if (status != UV_ECONNREFUSED) {
    fprintf(stderr, "ok_dns: expected ECONNREFUSED, got %s\n",
            uv_err_name(status));
    exit(1);
  }
  if (++refusals < REFUSED)
    knock();
  else
    uv_close((uv_handle_t *)&server, NULL);
}

static void knock(void) {
  struct sockaddr_in to;
  uv_ip4_addr("127.0.0.1", closed_port, &to);
  uv_tcp_t *tcp = malloc(sizeof *tcp);
  uv_connect_t *connect = malloc(sizeof *connect);
  uv_tcp_init(uv_default_loop(), tcp);
  uv_tcp_connect(connect, tcp, (const struct sockaddr *)&to, refused);
}

int main(void) {
  uv_loop_t *loop = uv_default_loop();
  closed_port = zoo_closed_port(loop);
  port = zoo_bind_local(loop, &server);
  uv_listen((uv_stream_t *)&server, 16, accepted);
  resolve();
  uv_run(loop, UV_RUN_DEFAULT);
  return uv_loop_close(loop);
}
