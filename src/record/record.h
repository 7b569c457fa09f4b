/* record.h -- what platform layers (src/unix) may call in the recorder
 * beyond the public API.  Not installed. */
#ifndef MPROF_RECORD_H
#define MPROF_RECORD_H

/* In a forked child: stop recording without writing a byte to the parent's
 * trace, which the child still maps. */
void mprof__forget_after_fork(void);

#endif /* MPROF_RECORD_H */
