/* uv_tiny.c -- the workload of the start benchmark (bench_start.c): a
 * plain libuv program that runs one timer of 0 ms and exits, so that a
 * process's start is most of its run. */
#include <uv.h>

static void fired(uv_timer_t *timer) { uv_close((uv_handle_t *)timer, NULL); }

int main(void) {
  uv_loop_t *loop = uv_default_loop();
  uv_timer_t timer;
  if (uv_timer_init(loop, &timer) || uv_timer_start(&timer, fired, 0, 0))
    return 1;
  uv_run(loop, UV_RUN_DEFAULT);
  return uv_loop_close(loop) ? 1 : 0;
}
