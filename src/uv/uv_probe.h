/* uv_probe.h -- can the LD_PRELOAD shim see a program's libuv calls?
 * `mprof record` asks before it runs a program: the shim only sees calls
 * that go through the dynamic loader to a shared libuv.  A statically
 * linked program loads no preload at all, and a program with libuv linked
 * into its own image (Debian's node) calls it directly. */
#ifndef MPROF_UV_PROBE_H
#define MPROF_UV_PROBE_H

typedef enum mprof_uv_probe_e {
  MPROF_UV_PROBE_UNKNOWN = 0, /* not an ELF file we can read (a script...) */
  MPROF_UV_PROBE_DYNAMIC,     /* dynamically linked, no libuv of its own */
  MPROF_UV_PROBE_STATIC,      /* statically linked: no preload is loaded */
  MPROF_UV_PROBE_LIBUV_INSIDE /* defines uv_run itself: libuv linked in */
} mprof_uv_probe_t;

/* What the ELF file at path says.  Never fails: whatever cannot be read
 * or makes no sense is MPROF_UV_PROBE_UNKNOWN. */
mprof_uv_probe_t mprof_uv_probe_file(const char *path);

/* mprof_uv_probe_file() of the file that execvp() would run for name
 * (searched in PATH when it has no '/'). */
mprof_uv_probe_t mprof_uv_probe_program(const char *name);

#endif /* MPROF_UV_PROBE_H */
