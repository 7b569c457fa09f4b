/* tsc.h -- the TSC's frequency: what the CPU declares, or a 10 ms
 * measurement.  For the recorder's Unix layer (unix.c), which never waits
 * for it at start, and for `mprof record`, which measures once for the
 * whole process tree it runs and passes the result down in MPROF_TSC_HZ.
 * Not installed. */
#ifndef MPROF_TSC_H
#define MPROF_TSC_H

#include <stdint.h>

/* The environment variable that carries the frequency down a process
 * tree: decimal Hz, 0 for "no usable TSC". */
#define MPROF__TSC_HZ_ENV "MPROF_TSC_HZ"

/* 1 and *hz if the CPU says, without waiting: 0 if its TSC is not
 * invariant (it may change rate or stop), else the frequency from CPUID
 * leaf 0x15 (the crystal's) or the hypervisor's leaf 0x40000010.  0 when
 * the TSC is invariant but neither leaf gives its frequency. */
int mprof__tsc_hz_declared(uint64_t *hz);

/* The frequency measured against CLOCK_MONOTONIC_RAW over 10 ms (0 if it
 * cannot be measured).  Blocks the caller for those 10 ms. */
uint64_t mprof__tsc_hz_measure(void);

/* What the CPU declares, else measured: 0 if there is no usable TSC. */
uint64_t mprof__tsc_hz(void);

#endif /* MPROF_TSC_H */
