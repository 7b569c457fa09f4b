/* uv_preload.c -- the LD_PRELOAD shim libmprof_uv_preload.so: it defines
 * the wrapped libuv functions, which call the same wrappers as a program
 * built with mprof/uv.h (uv_internal.h).  Recording starts from MPROF_TRACE
 * (src/unix/unix.c, linked into the shim); without it every call goes
 * straight through.
 *
 * Which libuv is "the real one" depends on who calls.  A preloaded object
 * comes first in every symbol lookup, so the shim's uv_run() is called by
 * the program, by a plugin that a host dlopen()ed with RTLD_LOCAL (Python's
 * extension modules: uvloop), and by libuv itself (uv_loop_init() calls
 * uv_signal_init() through its PLT).  dlsym(RTLD_NEXT) only sees the global
 * scope, where a privately loaded libuv is absent.  So each interposed
 * function looks at its return address and asks which libuv its caller
 * would have bound to without the shim, as the dynamic loader does: the
 * first definition of uv_version in the global scope, else the first in
 * the caller's own dependency scope, else any loaded object's.  Each libuv
 * gets its own table of real functions, filled from that object alone;
 * what it lacks is a stub returning UV_ENOSYS, so no wrapper can ever call
 * a missing function.  Callers' address ranges are cached, so a call costs
 * a short scan of a few ranges.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "uv_internal.h"

/* --- Stubs for what a libuv lacks ----------------------------------------- */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define MPROF__UV_STUB(ret, name, params, args)                                \
  static ret missing_##name params { return UV_ENOSYS; }
#define MPROF__UV_STUB_VOID(ret, name, params, args)                           \
  static void missing_##name params {}
#define MPROF__UV_STUB_FS(ret, name, params, args, target)                     \
  MPROF__UV_STUB(ret, name, params, args)
MPROF_UV_CALLS(MPROF__UV_STUB)
MPROF_UV_VOID_CALLS(MPROF__UV_STUB_VOID)
MPROF_UV_FS_CALLS(MPROF__UV_STUB_FS)
#undef MPROF__UV_STUB
#undef MPROF__UV_STUB_VOID
#undef MPROF__UV_STUB_FS

static uv_loop_t *missing_uv_default_loop(void) { return NULL; }
static const char *missing_uv_err_name(int err) { return "ENOSYS"; }
static int missing_uv_tcp_getsockname(const uv_tcp_t *handle,
                                      struct sockaddr *name, int *namelen) {
  return UV_ENOSYS;
}
static int missing_uv_udp_getsockname(const uv_udp_t *handle,
                                      struct sockaddr *name, int *namelen) {
  return UV_ENOSYS;
}
#define missing_uv_tcp_getpeername missing_uv_tcp_getsockname
#define missing_uv_udp_getpeername missing_uv_udp_getsockname
static void missing_uv_unref(uv_handle_t *handle) {}
#pragma GCC diagnostic pop

/* The table of a process without any libuv: stubs only. */
static const mprof__uv_real_t no_libuv = {
#define MPROF__UV_MISSING(ret, name, params, args) .name = missing_##name,
#define MPROF__UV_FS_MISSING(ret, name, params, args, target)                  \
  MPROF__UV_HELPER_MISSING(name)
#define MPROF__UV_HELPER_MISSING(name) .name = missing_##name,
    MPROF_UV_CALLS(MPROF__UV_MISSING) MPROF_UV_VOID_CALLS(MPROF__UV_MISSING)
        MPROF_UV_FS_CALLS(MPROF__UV_FS_MISSING)
            MPROF__UV_HELPERS(MPROF__UV_HELPER_MISSING)
#undef MPROF__UV_MISSING
#undef MPROF__UV_FS_MISSING
#undef MPROF__UV_HELPER_MISSING
};

#define MAX_LIBUVS 8
#define MAX_CALLERS 64
#define MAX_OBJECTS 512

/* --- Loaded objects ------------------------------------------------------- */

/* A loaded object's extent: its lowest and highest mapped addresses. */
typedef struct object_s {
  uintptr_t low, high;
  const char *name; /* "" for the main program */
} object_t;

/* The extent of the object dl_iterate_phdr() describes in info. */
static object_t object_extent(const struct dl_phdr_info *info) {
  object_t object = {UINTPTR_MAX, 0, info->dlpi_name};
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD) continue;
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    uintptr_t end = start + ph->p_memsz;
    object.low = start < object.low ? start : object.low;
    object.high = end > object.high ? end : object.high;
  }
  return object;
}

static int object_contains(const object_t *object, uintptr_t address) {
  return address >= object->low && address < object->high;
}

/* What the loaded objects' walk looks for and finds. */
typedef struct object_walk_s {
  uintptr_t address; /* the object that maps it, or 0: all of them */
  object_t found[MAX_OBJECTS];
  int count;
} object_walk_t;

static int object_visit(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  object_walk_t *walk = data;
  object_t object = object_extent(info);
  if (walk->address && !object_contains(&object, walk->address)) return 0;
  if (walk->count < MAX_OBJECTS) walk->found[walk->count++] = object;
  return walk->address != 0;
}

/* The object that maps address; 0 if none does. */
static int object_at(const void *address, object_t *object) {
  object_walk_t walk = {(uintptr_t)address, .count = 0};
  if (!dl_iterate_phdr(object_visit, &walk)) return 0;
  *object = walk.found[0];
  return 1;
}

/* A handle on object, for dlsym() in its own dependency scope (the main
 * program's is the global scope); NULL if it cannot be had.  The caller
 * dlclose()s it. */
static void *object_open(const object_t *object) {
  int main_program = !object->name || !*object->name;
  return dlopen(main_program ? NULL : object->name, RTLD_LAZY | RTLD_NOLOAD);
}

/* name as object's own scope resolves it: object first, then what it
 * needs; NULL if not found. */
static void *object_lookup(const object_t *object, const char *name) {
  void *handle = object_open(object);
  if (!handle) return NULL;
  void *symbol = dlsym(handle, name);
  dlclose(handle);
  return symbol;
}

/* The first loaded object that defines uv_version itself; NULL if none.
 * (Probed after the walk: dlopen() must not run inside dl_iterate_phdr.) */
static void *any_version(void) {
  static object_walk_t walk; /* under resolve_lock */
  walk.address = 0;
  walk.count = 0;
  dl_iterate_phdr(object_visit, &walk);
  for (int i = 0; i < walk.count; i++) {
    void *version = object_lookup(&walk.found[i], "uv_version");
    if (version && object_contains(&walk.found[i], (uintptr_t)version))
      return version;
  }
  return NULL;
}

/* --- One table per libuv -------------------------------------------------- */

typedef struct libuv_s {
  uintptr_t low; /* the libuv object's first address: its identity */
  mprof__uv_real_t real;
} libuv_t;

typedef struct caller_s {
  uintptr_t low, high;
  const mprof__uv_real_t *real;
} caller_t;

static libuv_t libuvs[MAX_LIBUVS];
static int libuv_count;
static caller_t callers[MAX_CALLERS];
static atomic_int caller_count; /* entries below it are complete */
/* The first libuv found: for callbacks on threads no wrapper ran on. */
static const mprof__uv_real_t *_Atomic first_real;
static pthread_mutex_t resolve_lock = PTHREAD_MUTEX_INITIALIZER;

/* The libuv whose uv_version the caller would bind to without the shim
 * (which defines no uv_version): the global scope's, else the caller's own
 * scope's, else the first loaded object that defines one.  0 if none does. */
static int libuv_of(const object_t *caller, object_t *libuv) {
  void *version = dlsym(RTLD_DEFAULT, "uv_version");
  if (!version && caller) version = object_lookup(caller, "uv_version");
  if (!version) version = any_version();
  return version && object_at(version, libuv);
}

/* name in libuv alone: what dlsym finds in its scope, if libuv defines it. */
static void *libuv_symbol(void *handle, const object_t *libuv,
                          const char *name) {
  void *symbol = dlsym(handle, name);
  return object_contains(libuv, (uintptr_t)symbol) ? symbol : NULL;
}

/* Fill real from libuv's own definitions, stubs where it has none.  The
 * handle stays open: a libuv whose functions we call is never unloaded. */
static void libuv_fill(mprof__uv_real_t *real, const object_t *libuv) {
  *real = no_libuv;
  void *handle = object_open(libuv);
  if (!handle) return;
  void *symbol;
#define MPROF__UV_RESOLVE(ret, name, params, args)                             \
  MPROF__UV_HELPER_RESOLVE(name)
#define MPROF__UV_FS_RESOLVE(ret, name, params, args, target)                  \
  MPROF__UV_HELPER_RESOLVE(name)
#define MPROF__UV_HELPER_RESOLVE(name)                                         \
  if ((symbol = libuv_symbol(handle, libuv, #name)))                           \
    real->name = (__typeof__(real->name))symbol;
  MPROF_UV_CALLS(MPROF__UV_RESOLVE)
  MPROF_UV_VOID_CALLS(MPROF__UV_RESOLVE)
  MPROF_UV_FS_CALLS(MPROF__UV_FS_RESOLVE)
  MPROF__UV_HELPERS(MPROF__UV_HELPER_RESOLVE)
#undef MPROF__UV_RESOLVE
#undef MPROF__UV_FS_RESOLVE
#undef MPROF__UV_HELPER_RESOLVE
}

/* The table of the libuv object, made on first use; no_libuv when the
 * process holds more libuvs than we keep. */
static const mprof__uv_real_t *libuv_table(const object_t *libuv) {
  for (int i = 0; i < libuv_count; i++)
    if (libuvs[i].low == libuv->low) return &libuvs[i].real;
  if (libuv_count == MAX_LIBUVS) return &no_libuv;
  libuv_t *entry = &libuvs[libuv_count++];
  entry->low = libuv->low;
  libuv_fill(&entry->real, libuv);
  const mprof__uv_real_t *none = NULL;
  atomic_compare_exchange_strong(&first_real, &none, &entry->real);
  return &entry->real;
}

/* The table for a caller at address, found the slow way and cached.  A
 * caller outside every object (code made at run time) gets the global
 * scope's libuv, uncached. */
__attribute__((noinline)) static const mprof__uv_real_t *
caller_resolve(const void *address) {
  pthread_mutex_lock(&resolve_lock);
  object_t caller, libuv;
  int known = object_at(address, &caller);
  const mprof__uv_real_t *real = &no_libuv;
  if (libuv_of(known ? &caller : NULL, &libuv)) real = libuv_table(&libuv);
  int n = atomic_load_explicit(&caller_count, memory_order_relaxed);
  if (known && n < MAX_CALLERS) {
    callers[n] = (caller_t){caller.low, caller.high, real};
    atomic_store_explicit(&caller_count, n + 1, memory_order_release);
  }
  pthread_mutex_unlock(&resolve_lock);
  return real;
}

/* The real libuv for a call from address, if its caller is cached; else
 * NULL.  Inlined into every interposed function: a few compares. */
__attribute__((always_inline)) static inline const mprof__uv_real_t *
caller_cached(const void *address) {
  uintptr_t at = (uintptr_t)address;
  int n = atomic_load_explicit(&caller_count, memory_order_acquire);
  for (int i = 0; i < n; i++)
    if (at >= callers[i].low && at < callers[i].high) return callers[i].real;
  return NULL;
}

/* The real libuv for a call from address. */
static const mprof__uv_real_t *caller_real(const void *address) {
  const mprof__uv_real_t *real = caller_cached(address);
  return real ? real : caller_resolve(address);
}

/* A fork while another thread resolves leaves the lock held in the child. */
static void resolve_lock_reset(void) {
  pthread_mutex_init(&resolve_lock, NULL);
}

__attribute__((constructor)) static void preload_init(void) {
  pthread_atfork(NULL, NULL, resolve_lock_reset);
}

/* --- The table the wrappers use ------------------------------------------- */

/* The table of the innermost interposed call on this OS thread. */
static _Thread_local const mprof__uv_real_t *current
    __attribute__((tls_model("initial-exec")));

const mprof__uv_real_t *mprof__uv_real(void) {
  if (current) return current;
  const mprof__uv_real_t *first = atomic_load(&first_real);
  return first ? first : &no_libuv;
}

/* The return address of the interposed call that goes on to its
 * forward_NAME() below, set on this OS thread just before. */
static _Thread_local const void *forwarded_from
    __attribute__((tls_model("initial-exec")));

/* The interposed libuv functions.  A call nested in one for the same libuv
 * (a callback's call inside uv_run(), as most are) goes straight on to its
 * wrapper, with no table to set and put back; any other goes through
 * forward_NAME(), which sets the table for its caller and puts back the
 * one of the call it is nested in when it returns. */
#define MPROF__UV_FORWARD(ret, name, params, args)                             \
  __attribute__((noinline)) static ret forward_##name params {                 \
    const mprof__uv_real_t *outer = current;                                   \
    current = caller_real(forwarded_from);                                     \
    ret result = mprof_##name args;                                            \
    current = outer;                                                           \
    return result;                                                             \
  }                                                                            \
  ret name params {                                                            \
    const void *from = __builtin_return_address(0);                            \
    const mprof__uv_real_t *real = current;                                    \
    if (real && caller_cached(from) == real) return mprof_##name args;         \
    forwarded_from = from;                                                     \
    return forward_##name args;                                                \
  }
#define MPROF__UV_FORWARD_VOID(ret, name, params, args)                        \
  __attribute__((noinline)) static ret forward_##name params {                 \
    const mprof__uv_real_t *outer = current;                                   \
    current = caller_real(forwarded_from);                                     \
    mprof_##name args;                                                         \
    current = outer;                                                           \
  }                                                                            \
  ret name params {                                                            \
    const void *from = __builtin_return_address(0);                            \
    const mprof__uv_real_t *real = current;                                    \
    if (real && caller_cached(from) == real) {                                 \
      mprof_##name args;                                                       \
      return;                                                                  \
    }                                                                          \
    forwarded_from = from;                                                     \
    forward_##name args;                                                       \
  }
#define MPROF__UV_FORWARD_FS(ret, name, params, args, target)                  \
  MPROF__UV_FORWARD(ret, name, params, args)
MPROF_UV_CALLS(MPROF__UV_FORWARD)
MPROF_UV_VOID_CALLS(MPROF__UV_FORWARD_VOID)
MPROF_UV_FS_CALLS(MPROF__UV_FORWARD_FS)
