/* write_backlog.c -- a fault for the zoo: write_backlog.  A client sends
 * 2000 blocks of 64 KiB to a server that never reads, all at once,
 * without waiting for any write to complete: once the socket's buffers are
 * full the writes pile up in libuv, pending, until a timer gives up after
 * 300 ms and closes the connection (the pending writes fail). */
#include <stdlib.h>
#include <uv.h>

#include "zoo_tcp.h"

#define BLOCKS 2000
#define BLOCK_BYTES 65536

static uv_tcp_t server, client, peer;
static uv_timer_t deadline;
static char block[BLOCK_BYTES];

static void written(uv_write_t *req, int status) {
  (void)status;
  free(req);
}

static void flood(uv_connect_t *req, int status) {
  (void)req;
  if (status) exit(1);
  uv_buf_t buf = uv_buf_init(block, sizeof block);
  for (int i = 0; i < BLOCKS; i++)
    uv_write(malloc(sizeof(uv_write_t)), (uv_stream_t *)&client, &buf, 1,
             written);
}

static void accepted(uv_stream_t *listener, int status) {
  if (status) return;
  uv_tcp_init(listener->loop, &peer);
  uv_accept(listener, (uv_stream_t *)&peer); /* and never reads */
}

static void give_up(uv_timer_t *timer) {
  uv_close((uv_handle_t *)timer, NULL);
  uv_close((uv_handle_t *)&client, NULL);
  uv_close((uv_handle_t *)&peer, NULL);
  uv_close((uv_handle_t *)&server, NULL);
}

int main(void) {
  uv_loop_t *loop = uv_default_loop();
  static uv_connect_t connect;
  struct sockaddr_in to;
  uv_ip4_addr("127.0.0.1", zoo_bind_local(loop, &server), &to);
  uv_listen((uv_stream_t *)&server, 4, accepted);
  uv_tcp_init(loop, &client);
  uv_tcp_connect(&connect, &client, (const struct sockaddr *)&to, flood);
  uv_timer_init(loop, &deadline);
  uv_timer_start(&deadline, give_up, 300, 0);
  uv_run(loop, UV_RUN_DEFAULT);
  return uv_loop_close(loop);
}
