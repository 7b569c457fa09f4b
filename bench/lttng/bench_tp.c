/* bench_tp.c -- the tracepoint provider's probes, linked statically into
 * the benchmark. */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "bench_tp.h"
