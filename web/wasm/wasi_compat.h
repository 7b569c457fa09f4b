/* wasi_compat.h -- forced into every file of the WebAssembly build
 * (clang -include): declarations wasi-libc lacks.  The page opens traces
 * from memory only, so the file-opening code that calls these is never
 * linked (wasm-ld drops it); they only need to compile. */
#ifndef MPROF_WASI_COMPAT_H
#define MPROF_WASI_COMPAT_H

int mkstemp(char *template_path); /* no temporary files under WASI */
int dup(int fd);                  /* no descriptor duplication */

#endif /* MPROF_WASI_COMPAT_H */
