/* leaked_read.c -- a fault for the zoo: leaked.  A read from a pipe that
 * nobody writes to is still pending when a timer ends the program with
 * _exit(): its callback never runs, and whatever waited for it is lost. */
#include <stdlib.h>
#include <unistd.h>
#include <uv.h>

static char buffer[64];

static void got(uv_fs_t *req) { uv_fs_req_cleanup(req); }

static void give_up(uv_timer_t *timer) {
  (void)timer;
  _exit(0); /* exit() would wait for the pool thread stuck in read() */
}

int main(void) {
  int fds[2];
  if (pipe(fds)) return 1;
  uv_loop_t *loop = uv_default_loop();
  static uv_fs_t read_req;
  static uv_timer_t timer;
  uv_buf_t buf = uv_buf_init(buffer, sizeof buffer);
  uv_fs_read(loop, &read_req, fds[0], &buf, 1, -1, got);
  uv_timer_init(loop, &timer);
  uv_timer_start(&timer, give_up, 50, 0);
  uv_run(loop, UV_RUN_DEFAULT);
  return 0;
}
