/* busy_idle.c -- a fault for the zoo: busy_loop.  An idle handle, started
 * to do a little work "when there is nothing else to do", is never
 * stopped: the loop never sleeps in its poll again, and spins for the
 * 300 ms until the timer ends the program. */
#include <uv.h>

static uv_idle_t idler;
static uv_timer_t deadline;
static long spins;

static void when_idle(uv_idle_t *idle) {
  (void)idle;
  spins++;
}

static void stop(uv_timer_t *timer) {
  uv_close((uv_handle_t *)timer, NULL);
  uv_close((uv_handle_t *)&idler, NULL);
}

int main(void) {
  uv_loop_t *loop = uv_default_loop();
  uv_idle_init(loop, &idler);
  uv_idle_start(&idler, when_idle);
  uv_timer_init(loop, &deadline);
  uv_timer_start(&deadline, stop, 300, 0);
  uv_run(loop, UV_RUN_DEFAULT);
  return uv_loop_close(loop);
}
