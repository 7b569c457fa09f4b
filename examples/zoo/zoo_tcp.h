/* zoo_tcp.h -- what the zoo's TCP programs share: a TCP handle bound to
 * 127.0.0.1 at a port the kernel picks, and a port where nobody listens. */
#ifndef ZOO_TCP_H
#define ZOO_TCP_H

#include <uv.h>

/* Init tcp on loop, bind it to 127.0.0.1 at a free port; returns the
 * port (in host order). */
static inline int zoo_bind_local(uv_loop_t *loop, uv_tcp_t *tcp) {
  struct sockaddr_in any;
  struct sockaddr_storage bound;
  int length = sizeof bound;
  uv_ip4_addr("127.0.0.1", 0, &any);
  uv_tcp_init(loop, tcp);
  uv_tcp_bind(tcp, (const struct sockaddr *)&any, 0);
  uv_tcp_getsockname(tcp, (struct sockaddr *)&bound, &length);
  return ntohs(((struct sockaddr_in *)&bound)->sin_port);
}

/* A port bound and let go again: nobody listens there (runs the loop
 * once, to close the probe). */
static inline int zoo_closed_port(uv_loop_t *loop) {
  uv_tcp_t probe;
  int port = zoo_bind_local(loop, &probe);
  uv_close((uv_handle_t *)&probe, NULL);
  uv_run(loop, UV_RUN_NOWAIT);
  return port;
}

#endif /* ZOO_TCP_H */
