/* uv_preload.c -- the LD_PRELOAD shim libmprof_uv_preload.so: it defines
 * the wrapped libuv functions, which call the same wrappers as a program
 * built with mprof/uv.h (uv_trace.c), and finds the real ones with
 * dlsym(RTLD_NEXT).  Recording starts from MPROF_TRACE (src/unix/unix.c,
 * linked into the shim); without it every call goes straight through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>

#include "uv_internal.h"

static mprof__uv_real_t real;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;
/* Set once real is filled: each wrapped call then skips pthread_once. */
static atomic_int real_ready;

static void real_resolve(void) {
#define MPROF__UV_RESOLVE(ret, name, params, args)                             \
  real.name = (__typeof__(real.name))dlsym(RTLD_NEXT, #name);
#define MPROF__UV_FS_RESOLVE(ret, name, params, args, target)                  \
  MPROF__UV_HELPER_RESOLVE(name)
#define MPROF__UV_HELPER_RESOLVE(name)                                         \
  real.name = (__typeof__(real.name))dlsym(RTLD_NEXT, #name);
  MPROF_UV_CALLS(MPROF__UV_RESOLVE)
  MPROF_UV_VOID_CALLS(MPROF__UV_RESOLVE)
  MPROF_UV_FS_CALLS(MPROF__UV_FS_RESOLVE)
  MPROF__UV_HELPERS(MPROF__UV_HELPER_RESOLVE)
#undef MPROF__UV_RESOLVE
#undef MPROF__UV_FS_RESOLVE
#undef MPROF__UV_HELPER_RESOLVE
  atomic_store_explicit(&real_ready, 1, memory_order_release);
}

const mprof__uv_real_t *mprof__uv_real(void) {
  if (!atomic_load_explicit(&real_ready, memory_order_acquire))
    pthread_once(&real_once, real_resolve);
  return &real;
}

/* The interposed libuv functions. */
#define MPROF__UV_FORWARD(ret, name, params, args)                             \
  ret name params { return mprof_##name args; }
#define MPROF__UV_FORWARD_VOID(ret, name, params, args)                        \
  ret name params { mprof_##name args; }
#define MPROF__UV_FORWARD_FS(ret, name, params, args, target)                  \
  MPROF__UV_FORWARD(ret, name, params, args)
MPROF_UV_CALLS(MPROF__UV_FORWARD)
MPROF_UV_VOID_CALLS(MPROF__UV_FORWARD_VOID)
MPROF_UV_FS_CALLS(MPROF__UV_FORWARD_FS)
