/* dlopen_host.c MODE [MODULE] -- a program that does not link libuv, as a
 * plugin host:
 *   local MODULE   dlopen()s MODULE (uv_module.so) RTLD_LOCAL, runs it
 *   global MODULE  the same with RTLD_GLOBAL
 *   none           with no libuv loaded at all, calls whatever uv_run the
 *                  process defines (the shim's, when preloaded) and prints
 *                  its result: a wrapper must never call a missing libuv.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

static int run_module(const char *path, int scope) {
  void *module = dlopen(path, RTLD_NOW | scope);
  if (!module) {
    fprintf(stderr, "dlopen_host: %s\n", dlerror());
    return 2;
  }
  int (*module_run)(void) = (int (*)(void))dlsym(module, "module_run");
  if (!module_run) {
    fprintf(stderr, "dlopen_host: %s: no module_run\n", path);
    return 2;
  }
  return module_run();
}

static int run_without_libuv(void) {
  int (*run)(uv_loop_t *, uv_run_mode) =
      (int (*)(uv_loop_t *, uv_run_mode))dlsym(RTLD_DEFAULT, "uv_run");
  if (!run) {
    printf("uv_run: absent\n");
    return 0;
  }
  static uv_loop_t loop;
  printf("uv_run: %d\n", run(&loop, UV_RUN_NOWAIT));
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "local"))
    return run_module(argv[2], RTLD_LOCAL);
  if (argc == 3 && !strcmp(argv[1], "global"))
    return run_module(argv[2], RTLD_GLOBAL);
  if (argc == 2 && !strcmp(argv[1], "none")) return run_without_libuv();
  fprintf(stderr, "usage: dlopen_host local|global MODULE | none\n");
  return 2;
}
