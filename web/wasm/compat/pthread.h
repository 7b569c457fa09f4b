/* pthread.h -- for the WebAssembly build only (web/CMakeLists.txt puts
 * this directory on its include path): wasi-libc has no threads.  The
 * page builds an index on one thread (mprof_index_build(..., 1, ...)),
 * which starts none; these only need to compile, and would fail. */
#ifndef MPROF_WASM_PTHREAD_H
#define MPROF_WASM_PTHREAD_H

typedef int pthread_t;

static inline int pthread_create(pthread_t *thread, const void *attributes,
                                 void *(*start)(void *), void *argument) {
  (void)thread, (void)attributes, (void)start, (void)argument;
  return 1;
}

static inline int pthread_join(pthread_t thread, void **result) {
  (void)thread, (void)result;
  return 1;
}

#endif /* MPROF_WASM_PTHREAD_H */
