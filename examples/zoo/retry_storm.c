/* retry_storm.c -- a fault for the zoo: retry_storm.  A client connects
 * to a port nobody listens on and, each time it is refused, connects
 * again at once, with no back-off: 30 refusals in a few milliseconds. */
#include <stdlib.h>
#include <uv.h>

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
  uv_tcp_t probe; /* a port bound and let go: nobody listens there */
  struct sockaddr_storage bound;
  int length = sizeof bound;
  uv_ip4_addr("127.0.0.1", 0, &closed);
  uv_tcp_init(loop, &probe);
  uv_tcp_bind(&probe, (const struct sockaddr *)&closed, 0);
  uv_tcp_getsockname(&probe, (struct sockaddr *)&bound, &length);
  closed.sin_port = ((struct sockaddr_in *)&bound)->sin_port;
  uv_close((uv_handle_t *)&probe, NULL);
  attempt();
  uv_run(loop, UV_RUN_DEFAULT);
  return uv_loop_close(loop);
}
