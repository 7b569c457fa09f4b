/* retry_storm.c -- a fault for the zoo: retry_storm.  A client connects
 * to a port nobody listens on and, each time it is refused, connects
 * again at once, with no back-off: 30 refusals in a few milliseconds. */
#include <stdlib.h>
#include <uv.h>

#include "zoo_tcp.h"

#define ATTEMPTS 30

static struct sockaddr_in closed;
static int attempts;
static void attempt(void);

static void free_handle(uv_handle_t *handle) { free(handle); }

static void refused(uv_connect_t *req, int status) {
  (void)status;
  uv_close((uv_handle_t *)req->handle, free_handle);
  free(req);
  if (++attempts < ATTEMPTS) attempt();
}

static void attempt(void) {
  uv_tcp_t *tcp = malloc(sizeof *tcp);
  uv_connect_t *req = malloc(sizeof *req);
  uv_tcp_init(uv_default_loop(), tcp);
  uv_tcp_connect(req, tcp, (const struct sockaddr *)&closed, refused);
}

int main(void) {
  uv_loop_t *loop = uv_default_loop();
  uv_ip4_addr("127.0.0.1", zoo_closed_port(loop), &closed);
  attempt();
  uv_run(loop, UV_RUN_DEFAULT);
  return uv_loop_close(loop);
}
