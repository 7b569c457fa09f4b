/* findings_loops.h -- the judgement of the loop findings (loop_blocked,
 * busy_loop: docs/analysis.md), item by item, shared by the model's
 * analysis (findings_loops.c walks each loop stream's timeline) and the
 * streaming one (stream_loops.c feeds a stream's spans and idle bands as
 * they close).  A scan holds one loop stream's state, bounded by the
 * loop (its current iteration, the callbacks of a busy window), and
 * makes descriptions of findings that mprof__loop_finding_write() turns
 * into findings. */
#ifndef MPROF_FINDINGS_LOOPS_H
#define MPROF_FINDINGS_LOOPS_H

#include "findings_internal.h"

/* A thread as a scan sees it: its index (the model's), and, for the
 * stream, its record (NULL in the model's). */
typedef struct mprof__loop_thread_s {
  uint32_t index;
  void *ref;
} mprof__loop_thread_t;

/* One item of a loop stream's timeline, in time order: a running span, or
 * an idle band (thread.index MPROF_NO_THREAD: the loop in its poll). */
typedef struct mprof__loop_item_s {
  int64_t start_ns, end_ns;
  int64_t thread_start_ns; /* the thread's creation */
  mprof__loop_thread_t thread;
  uint8_t loop;        /* the thread is a loop */
  uint8_t spins_alone; /* a timer, an idle, prepare or check handle */
  uint8_t before_poll; /* a prepare handle: it runs before the poll */
} mprof__loop_item_t;

/* A span named by a finding: a callback that ran, or one that waited
 * (from start_ns, its creation or the block's start, to end_ns). */
typedef struct mprof__loop_span_s {
  mprof__loop_thread_t thread;
  int64_t start_ns, end_ns;
} mprof__loop_span_t;

/* A callback's runs in a busy streak. */
typedef struct mprof__loop_runs_s {
  mprof__loop_thread_t thread;
  uint32_t runs;
} mprof__loop_runs_t;

/* A finding judged: loop_blocked (the callbacks that held the loop, the
 * one at fault first, and those that ran before its next poll, each
 * thread once) or busy_loop (its iterations, those with no I/O, the
 * threads that ran most, runs in count).  loop.index MPROF_NO_THREAD: no
 * loop thread ran on the stream yet (the first that does is named). */
typedef struct mprof__loop_finding_s {
  mprof_finding_kind_t kind;
  int64_t start_ns, end_ns;
  mprof__loop_thread_t loop;
  mprof__loop_span_t ran[FINDING_EVIDENCE];
  uint32_t ran_count;
  mprof__loop_span_t waited[FINDING_THREADS + 2];
  uint32_t waited_count;
  uint32_t last_thread; /* of the block: it waited for nothing */
  uint32_t polls, empty;
  mprof__loop_runs_t spinners[3];
  uint32_t spinner_count;
} mprof__loop_finding_t;

/* One loop stream's scan.  hold (NULL: none) takes (up) or drops a
 * reference to a thread's ref while the scan keeps it. */
typedef struct mprof__loop_scan_s {
  void (*hold)(void *ref, int up);
  int64_t blocked_ns, busy_ns;      /* the options' thresholds */
  mprof__loop_thread_t loop;        /* the latest loop thread that ran */
  int64_t loop_end_ns;              /* the loop's latest presence ended (-1) */
  int64_t run_start_ns, run_end_ns; /* callbacks since it handed over (-1) */
  uint32_t run_last;                /* the run's latest thread */
  mprof__loop_span_t ran[FINDING_EVIDENCE];
  uint32_t ran_count;
  /* busy_loop: the busy windows so far (start -1: none), their
   * iterations and those with no I/O; the window judged (-1: none); the
   * iteration's poll (-1: none) and whether it ran an I/O callback */
  int64_t streak_start_ns, streak_end_ns, window_ns, poll_start_ns;
  uint32_t polls, empty, window_polls, window_empty;
  int productive;
  mprof__loop_runs_t *touched; /* the streak's callbacks, first run first */
  uint32_t *slots;             /* a hash of touched by thread (+1; 0: free) */
  size_t touched_count, touched_cap, slot_cap;
  /* the findings made; those from collecting_from on still collect the
   * callbacks that wait before the next poll */
  mprof__loop_finding_t *found;
  size_t found_count, found_cap, collecting_from;
} mprof__loop_scan_t;

/* Where thread index's slot in a scan's touched is looked for: threads
 * made one after another run one after another, so sixteen such share a
 * cache line of slots and the lines of 65536 follow one another (the
 * memory is read in order), and such blocks spread by a hash. */
static inline size_t mprof__loop_touched_hash(uint32_t index, size_t cap) {
  size_t line = (index >> 4) + (uint32_t)((index >> 16) * 2654435761u);
  return (line << 4 | (index & 15)) & (cap - 1);
}

/* Fetch into the cache where the scan will look thread index up when its
 * span closes (a busy window counts the callbacks that ran in it). */
static inline void mprof__loop_scan_prefetch(const mprof__loop_scan_t *scan,
                                             uint32_t index) {
  if (scan->window_ns >= 0 && scan->slot_cap)
    __builtin_prefetch(
        &scan->slots[mprof__loop_touched_hash(index, scan->slot_cap)]);
}

/* Set item's spins_alone and before_poll from its thread's type and
 * first label (NULL: none). */
void mprof__loop_kinds(uint16_t type, const char *label,
                       mprof__loop_item_t *item);

/* Begin a scan with the options' thresholds and the loop thread it names
 * until one runs (MPROF_NO_THREAD: none known). */
void mprof__loop_scan_init(mprof__loop_scan_t *scan,
                           const mprof_analysis_options_t *options,
                           mprof__loop_thread_t loop);

/* The next item of the stream's timeline; the timeline's end.  Each
 * returns 0 or MPROF_ENOMEM. */
int mprof__loop_scan_item(mprof__loop_scan_t *scan,
                          const mprof__loop_item_t *item);
int mprof__loop_scan_end(mprof__loop_scan_t *scan);

/* Free what the scan holds (its findings too). */
void mprof__loop_scan_free(mprof__loop_scan_t *scan);

/* Write the finding judged into f's analysis, its threads as indexes of
 * f's model.  Returns 0 or MPROF_ENOMEM. */
int mprof__loop_finding_write(finder_t *f, const mprof__loop_finding_t *lf);

#endif /* MPROF_FINDINGS_LOOPS_H */
