/* test_dlopen.c -- libmprof loaded with dlopen() (as plugins and language
 * bindings load it): it must find room for its thread-local state in
 * glibc's static TLS surplus, start, record and stop. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "FAIL: dlopen: %s\n", dlerror());
    return 1;
  }
  int (*start)(const char *, size_t) =
      (int (*)(const char *, size_t))dlsym(lib, "mprof_unix_start_file");
  void (*label)(uint64_t, const char *) =
      (void (*)(uint64_t, const char *))dlsym(lib, "mprof__label");
  void (*stop)(void) = (void (*)(void))dlsym(lib, "mprof_unix_stop");
  if (!start || !label || !stop || start(argv[2], 1 << 20) != 0) {
    fprintf(stderr, "FAIL: cannot start through dlsym\n");
    return 1;
  }
  label(1, "loaded with dlopen");
  stop();
  puts("ok: dlopen, start, label, stop");
  return 0;
}
