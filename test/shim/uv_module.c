/* uv_module.c -- a plugin that uses libuv, for dlopen_host to load the way
 * Python loads uvloop: with dlopen(), after the program started, often
 * RTLD_LOCAL.  uv_loop_init() calls libuv's own uv_signal_init() through
 * its PLT, which the preloaded shim interposes too. */
#include <stdio.h>
#include <uv.h>

static void on_timer(uv_timer_t *timer) {
  printf("timer fired\n");
  uv_close((uv_handle_t *)timer, NULL);
}

static uv_timer_t timer;

/* The timer starts once the stat is done, so the output's order is fixed. */
static void on_stat(uv_fs_t *req) {
  printf("stat /: %s\n",
         req->result == 0 ? "ok" : uv_err_name((int)req->result));
  uv_fs_req_cleanup(req);
  uv_timer_init(req->loop, &timer);
  uv_timer_start(&timer, on_timer, 1, 0);
}

/* One loop with an fs request, then a timer; 0 when all went well. */
int module_run(void) {
  uv_loop_t loop;
  uv_fs_t stat_req;
  if (uv_loop_init(&loop) != 0) return 1;
  uv_fs_stat(&loop, &stat_req, "/", on_stat);
  uv_run(&loop, UV_RUN_DEFAULT);
  int closed = uv_loop_close(&loop);
  printf("loop closed: %s\n", closed ? uv_err_name(closed) : "ok");
  return closed != 0;
}
