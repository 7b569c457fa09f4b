/* blocked_often.c -- a fault for the zoo, and what `mprof watch` must
 * catch live: loop_blocked again and again.  A timer's callback crunches
 * on the loop for 70 ms every 600 ms, five times (3 s), while a timer
 * that ticks every millisecond waits each time. */
#include <uv.h>

#include "zoo_spin.h"

static uv_timer_t ticker, cruncher;
static int crunches;

static void tick(uv_timer_t *timer) { (void)timer; }

static void crunch(uv_timer_t *timer) {
  zoo_spin_ms(70);
  if (++crunches < 5) return;
  uv_close((uv_handle_t *)timer, NULL);
  uv_close((uv_handle_t *)&ticker, NULL);
}

int main(void) {
  uv_loop_t *loop = uv_default_loop();
  uv_timer_init(loop, &ticker);
  uv_timer_start(&ticker, tick, 1, 1);
  uv_timer_init(loop, &cruncher);
  uv_timer_start(&cruncher, crunch, 600, 600);
  uv_run(loop, UV_RUN_DEFAULT);
  return uv_loop_close(loop);
}
