/* ok_slow_work.c -- a correct program for the zoo, and one that `mprof
 * watch` must leave alone while it runs: six jobs of 300 ms on the thread
 * pool, one after the other, each started by the one before.  At any
 * moment a job is in flight: its request pending, which a trace read to
 * its end would call leaked, but a live one must not. */
#include <unistd.h>
#include <uv.h>

static uv_work_t job;
static int jobs;

static void slow(uv_work_t *req) {
  (void)req;
  usleep(300 * 1000);
}

static void done(uv_work_t *req, int status) {
  (void)status;
  if (++jobs < 6) uv_queue_work(req->loop, req, slow, done);
}

int main(void) {
  uv_loop_t *loop = uv_default_loop();
  uv_queue_work(loop, &job, slow, done);
  uv_run(loop, UV_RUN_DEFAULT);
  return uv_loop_close(loop);
}
