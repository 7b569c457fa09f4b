/* uv_own_loop.c -- a libuv program that never uses the default loop: it
 * runs a timer on a loop of its own, then prints how many epoll instances
 * it holds, its loop's one.  Run plain and under the shim by
 * test_uv_own_loop.sh: the shim must not make the default loop (and its
 * epoll instance) of its own accord. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

/* How many of this process's descriptors are epoll instances. */
static int epoll_instances(void) {
  DIR *dir = opendir("/proc/self/fd");
  if (!dir) return -1;
  int count = 0;
  struct dirent *entry;
  while ((entry = readdir(dir))) {
    char path[PATH_MAX], target[64];
    snprintf(path, sizeof path, "/proc/self/fd/%s", entry->d_name);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n < 0) continue;
    target[n] = 0;
    count += strcmp(target, "anon_inode:[eventpoll]") == 0;
  }
  closedir(dir);
  return count;
}

static void tick(uv_timer_t *timer) { uv_close((uv_handle_t *)timer, NULL); }

int main(void) {
  uv_loop_t loop;
  uv_timer_t timer;
  if (uv_loop_init(&loop) || uv_timer_init(&loop, &timer) ||
      uv_timer_start(&timer, tick, 1, 0) || uv_run(&loop, UV_RUN_DEFAULT)) {
    fprintf(stderr, "uv_own_loop: libuv failed\n");
    return 1;
  }
  printf("epoll instances: %d\n", epoll_instances());
  return uv_loop_close(&loop) != 0;
}
