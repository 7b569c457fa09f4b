/* blocked_after_work.c -- a fault for the zoo: loop_blocked.  The work's
 * after-work callback crunches its result on the loop for 60 ms (that
 * belongs on the thread pool, in the work itself), and a timer that ticks
 * every 5 ms waits all that time. */
#include <uv.h>

#include "zoo_spin.h"

static uv_timer_t ticker;
static int ticks;

static void fetch(uv_work_t *req) { (void)req; }

static void crunch(uv_work_t *req, int status) {
  (void)req;
  (void)status;
  zoo_spin_ms(60);
}

static void tick(uv_timer_t *timer) {
  if (++ticks == 30) uv_close((uv_handle_t *)timer, NULL);
}

int main(void) {
  uv_loop_t *loop = uv_default_loop();
  static uv_work_t work;
  uv_timer_init(loop, &ticker);
  uv_timer_start(&ticker, tick, 5, 5);
  uv_queue_work(loop, &work, fetch, crunch);
  uv_run(loop, UV_RUN_DEFAULT);
  return uv_loop_close(loop);
}
