/* tree_prog.c -- a process tree for test_record_tree.sh, every process a
 * libuv program (so that a sanitizer build can preload its shim into all
 * of them): the top process spawns itself twice, as "idle" (never calls
 * libuv) and as "timer", then forks a child that runs a timer of its own,
 * and runs its own timer last.  Each process prints "ROLE PID" once it is
 * done, in that order.
 *
 *   tree_prog [top|idle|timer]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uv.h>

static void check(int result, const char *what) {
  if (result < 0) {
    fprintf(stderr, "tree_prog: %s: %s\n", what, uv_strerror(result));
    exit(1);
  }
}

static void done(const char *role) {
  printf("%s %ld\n", role, (long)getpid());
  fflush(stdout);
}

static void tick(uv_timer_t *timer) { uv_close((uv_handle_t *)timer, NULL); }

/* A 2 ms timer on loop, run to its end. */
static void run_timer(uv_loop_t *loop) {
  uv_timer_t timer;
  check(uv_timer_init(loop, &timer), "timer");
  check(uv_timer_start(&timer, tick, 2, 0), "timer start");
  check(uv_run(loop, UV_RUN_DEFAULT), "run");
}

static void exited(uv_process_t *process, int64_t status, int signal) {
  if (status || signal) {
    fprintf(stderr, "tree_prog: a child exited %lld (signal %d)\n",
            (long long)status, signal);
    exit(1);
  }
  uv_close((uv_handle_t *)process, NULL);
}

/* Run this program as role, to its end. */
static void spawn(uv_loop_t *loop, char *self, char *role) {
  uv_process_t process;
  char *args[] = {self, role, NULL};
  uv_stdio_container_t stdio[3] = {{UV_INHERIT_FD, {.fd = 0}},
                                   {UV_INHERIT_FD, {.fd = 1}},
                                   {UV_INHERIT_FD, {.fd = 2}}};
  uv_process_options_t options = {.exit_cb = exited,
                                  .file = self,
                                  .args = args,
                                  .stdio_count = 3,
                                  .stdio = stdio};
  check(uv_spawn(loop, &process, &options), "spawn");
  check(uv_run(loop, UV_RUN_DEFAULT), "run");
}

/* A forked child with a loop of its own after the fork. */
static void fork_child(uv_loop_t *loop) {
  pid_t child = fork();
  if (child == 0) {
    check(uv_loop_fork(loop), "loop fork");
    run_timer(loop);
    done("forked");
    _exit(0);
  }
  int status;
  if (child < 0 || waitpid(child, &status, 0) < 0 || status) {
    fprintf(stderr, "tree_prog: the forked child failed\n");
    exit(1);
  }
}

int main(int argc, char **argv) {
  const char *role = argc > 1 ? argv[1] : "top";
  if (!strcmp(role, "idle")) {
    done("idle");
    return 0;
  }
  uv_loop_t *loop = uv_default_loop();
  if (!strcmp(role, "timer")) {
    run_timer(loop);
    done("timer");
    return 0;
  }
  spawn(loop, argv[0], "idle");
  spawn(loop, argv[0], "timer");
  fork_child(loop);
  run_timer(loop);
  done("top");
  return 0;
}
