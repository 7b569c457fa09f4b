/* pool_saturated.c -- a fault for the zoo: pool_saturated.  32 jobs of
 * 20 ms each go to a thread pool of 4 threads at once: most of them wait
 * in the queue far longer than they run. */
#include <stdlib.h>
#include <unistd.h>
#include <uv.h>

#define JOBS 32

static void job(uv_work_t *req) {
  (void)req;
  usleep(20000);
}

static void job_done(uv_work_t *req, int status) {
  (void)req;
  (void)status;
}

int main(void) {
  setenv("UV_THREADPOOL_SIZE", "4", 1); /* read when the pool starts */
  uv_loop_t *loop = uv_default_loop();
  static uv_work_t jobs[JOBS];
  for (int i = 0; i < JOBS; i++) uv_queue_work(loop, &jobs[i], job, job_done);
  uv_run(loop, UV_RUN_DEFAULT);
  return uv_loop_close(loop);
}
