/* bench_tp.h -- the LTTng-UST tracepoint provider of the benchmark: one
 * event, mprof_bench:becomes, with the two integers of mprof_becomes(). */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER mprof_bench

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./bench_tp.h"

#if !defined(MPROF_BENCH_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define MPROF_BENCH_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

TRACEPOINT_EVENT(mprof_bench, becomes,
                 TP_ARGS(uint32_t, old_thread, uint32_t, new_thread),
                 TP_FIELDS(ctf_integer(uint32_t, old_thread, old_thread)
                               ctf_integer(uint32_t, new_thread, new_thread)))

#endif /* MPROF_BENCH_TP_H */

#include <lttng/tracepoint-event.h>
