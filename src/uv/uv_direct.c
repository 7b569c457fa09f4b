/* uv_direct.c -- the real libuv for programs built with mprof/uv.h and
 * MPROF_TRACING: the wrappers (uv_internal.h) call libuv directly. */
#include "uv_internal.h"

static const mprof__uv_real_t real = {
#define MPROF__UV_INIT(ret, name, params, args) .name = name,
#define MPROF__UV_FS_INIT(ret, name, params, args, target)                     \
  MPROF__UV_HELPER_INIT(name)
#define MPROF__UV_HELPER_INIT(name) .name = name,
    MPROF_UV_CALLS(MPROF__UV_INIT) MPROF_UV_VOID_CALLS(MPROF__UV_INIT)
        MPROF_UV_FS_CALLS(MPROF__UV_FS_INIT)
            MPROF__UV_HELPERS(MPROF__UV_HELPER_INIT)
#undef MPROF__UV_INIT
#undef MPROF__UV_FS_INIT
#undef MPROF__UV_HELPER_INIT
};

const mprof__uv_real_t *mprof__uv_real(void) { return &real; }
