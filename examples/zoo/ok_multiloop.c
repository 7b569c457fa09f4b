/* ok_multiloop.c -- a correct program for the zoo: three loops.  Two
 * worker threads each run a loop of their own, with a timer that ticks 10
 * times, and tell the main loop of each tick with uv_async_send(); the
 * main loop closes when it has heard every tick it can (sends may
 * coalesce, so it counts the workers' ends, not the wake-ups).  As
 * Node.js does, the main loop's first wake-up starts a timer, unreferenced
 * and never closed: a timer created inside the async handle's callback
 * does not wait on the handle, so no lost wake-up.  Nothing must be
 * found. */
#include <uv.h>

#define WORKERS 2
#define TICKS 10

typedef struct worker_s {
  uv_thread_t thread;
  uv_loop_t loop;
  uv_timer_t timer;
  int ticks;
} worker_t;

static uv_async_t heard;
static uv_timer_t watchdog;
static uv_mutex_t lock;
static int workers_done;

static void tick(uv_timer_t *timer) {
  worker_t *w = timer->data;
  if (++w->ticks == TICKS) {
    uv_close((uv_handle_t *)timer, NULL);
    uv_mutex_lock(&lock);
    workers_done++;
    uv_mutex_unlock(&lock);
  }
  uv_async_send(&heard);
}

static void work(void *arg) {
  worker_t *w = arg;
  uv_loop_init(&w->loop);
  uv_timer_init(&w->loop, &w->timer);
  w->timer.data = w;
  uv_timer_start(&w->timer, tick, 3, 3);
  uv_run(&w->loop, UV_RUN_DEFAULT);
  uv_loop_close(&w->loop);
}

static void bark(uv_timer_t *timer) { (void)timer; }

static void on_heard(uv_async_t *async) {
  if (!uv_is_active((uv_handle_t *)&watchdog)) {
    uv_timer_init(async->loop, &watchdog);
    uv_timer_start(&watchdog, bark, 60000, 0);
    uv_unref((uv_handle_t *)&watchdog);
  }
  uv_mutex_lock(&lock);
  int done = workers_done;
  uv_mutex_unlock(&lock);
  if (done == WORKERS) uv_close((uv_handle_t *)async, NULL);
}

int main(void) {
  static worker_t workers[WORKERS];
  uv_loop_t *loop = uv_default_loop();
  uv_mutex_init(&lock);
  uv_async_init(loop, &heard, on_heard);
  for (int i = 0; i < WORKERS; i++)
    uv_thread_create(&workers[i].thread, work, &workers[i]);
  uv_run(loop, UV_RUN_DEFAULT);
  for (int i = 0; i < WORKERS; i++) uv_thread_join(&workers[i].thread);
  uv_mutex_destroy(&lock);
  return 0; /* the watchdog is still open: uv_loop_close() would say EBUSY */
}
