/* uv_prepare.c -- a libuv program whose own prepare handle, started
 * before uv_run(), works 5 ms busy in each turn of the loop, while a
 * timer every 20 ms wakes the loop ten times.  Run under `mprof record`
 * by test_uv_prepare.sh: the loop's time in poll must not hold that work.
 * Prints how many times each callback ran. */
#include <stdio.h>
#include <time.h>
#include <uv.h>

static uv_prepare_t prepare;
static uv_timer_t timer;
static int prepares, timers;

static double now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

static void work_before_poll(uv_prepare_t *handle) {
  (void)handle;
  prepares++;
  double end = now_ms() + 5;
  while (now_ms() < end) continue;
}

static void tick(uv_timer_t *handle) {
  if (++timers < 10) return;
  uv_close((uv_handle_t *)&prepare, NULL);
  uv_close((uv_handle_t *)handle, NULL);
}

int main(void) {
  uv_loop_t *loop = uv_default_loop();
  uv_prepare_init(loop, &prepare);
  uv_prepare_start(&prepare, work_before_poll);
  uv_timer_init(loop, &timer);
  uv_timer_start(&timer, tick, 20, 20);
  int result = uv_run(loop, UV_RUN_DEFAULT);
  printf("prepare ran %s, timer ran %d times\n",
         prepares >= 10 ? "10 times or more" : "too few times", timers);
  return result || uv_loop_close(loop);
}
