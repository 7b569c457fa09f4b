/* record.h -- what platform layers (src/unix) and the libuv tracing
 * (src/uv) may call in the recorder beyond the public API.  Not installed. */
#ifndef MPROF_RECORD_H
#define MPROF_RECORD_H

#include <stddef.h>
#include <stdint.h>

/* In a forked child: stop recording without writing a byte to the parent's
 * trace, which the child still maps. */
void mprof__forget_after_fork(void);

/* mprof_label() of a label of `length` bytes (no NUL needed) that the
 * caller knows will not repeat (the libuv shim's network labels): written
 * whole, without the interning that would only evict the labels that do
 * repeat.  The reader sees the same label as from mprof_label(). */
void mprof__label_unique(uint64_t thread, const char *label, size_t length);

#endif /* MPROF_RECORD_H */
