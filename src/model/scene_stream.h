/* scene_stream.h -- the picture of a whole trace too big to model, made in
 * one streaming pass over its events (docs/index.md, "Drawing a trace too
 * big to model"): per row and pixel column, what the scene would draw
 * there, in memory bounded by the picture and by the threads alive at a
 * time, not by the trace.
 *
 * The time axis is fixed before the pass ([t0_ns, t1_ns) over `columns`
 * pixel columns: the trace's span, which its index knows), and rows are
 * given online: a thread gets a row when it is created, the first one
 * free at that time from the row below its creator (its creator's own if
 * that ended already), as layout.c does, and a row is free again once its
 * thread has ended.  Rows from `rows - 1` down fold into the last one.
 *
 * Every part of the summary merges across neighbouring columns (cells
 * and bands by OR, arrows by keeping the earliest MPROF_CELLS_ARROWS), so
 * that the same pass can write it at several power-of-two bin widths: the
 * level-of-detail pyramid of the viewers.
 */
#ifndef MPROF_SCENE_STREAM_H
#define MPROF_SCENE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "mprof/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a cell holds: a thread's line (and in which colour) and running,
 * in its low bits; in its high nibble whether a failed or stalled
 * thread's line ends there (MPROF_CELL_ENDS()). */
enum {
  MPROF_CELL_LINE = 1,    /* a thread's line */
  MPROF_CELL_FAILED = 2,  /* ...of a thread that failed */
  MPROF_CELL_STALLED = 4, /* ...of a should_resolve one that never resolved */
  MPROF_CELL_RUNNING = 8, /* a thread of the row runs */
  MPROF_CELL_LOOK = 15    /* the bits above */
};

/* A failed or stalled thread's line that ends in a cell is marked there
 * only if it starts in another column, which at half the columns may no
 * longer hold: so the high nibble says for how many halvings it still
 * holds (the bit length of the start and end columns' XOR, at most 15),
 * the most of the lines ending there; nonzero: an end is drawn. */
#define MPROF_CELL_END_SHIFT 4
#define MPROF_CELL_ENDS(cell) ((unsigned)(cell) >> MPROF_CELL_END_SHIFT)

/* What the trace holds, for the legend (mprof_cells_t.seen): these bits,
 * and bit MPROF_SEEN_ARROW + kind for each arrow kind. */
enum {
  MPROF_SEEN_THREAD = 1,
  MPROF_SEEN_FAILED = 2,
  MPROF_SEEN_STALLED = 4,
  MPROF_SEEN_RUNNING = 8,
  MPROF_SEEN_IDLE = 16,
  MPROF_SEEN_ARROW_SHIFT = 5
};

/* Arrows kept per pixel column: the earliest ones whose event falls in
 * it (the scene draws one per pixel; a few show more of a busy one). */
#define MPROF_CELLS_ARROWS 2
/* Bytes of a row's name kept (its first thread's first label). */
#define MPROF_CELLS_NAME 64

/* An arrow kept: its ends as mprof_model_arrow_ends() places them, its
 * rows as shown (folded). */
typedef struct mprof_cell_arrow_s {
  int64_t from_ns, to_ns;
  uint32_t from_row, to_row;
  uint32_t kind; /* mprof_arrow_kind_t; MPROF_ARROW_KIND_COUNT: none */
} mprof_cell_arrow_t;

/* A thread's line this many columns wide or more carries its name (the
 * scene's MPROF_SCENE_LABEL_MIN_PX). */
#define MPROF_CELLS_LABEL_COLUMNS 16

/* A thread's name on its line, over columns [first, last] of a row. */
typedef struct mprof_cell_label_s {
  uint32_t row, first, last;
  char text[MPROF_CELLS_NAME];
} mprof_cell_label_t;

/* Counters graphed at most (the picture holds a few strips). */
#define MPROF_CELLS_COUNTERS 256

/* A counter: its values' range per pixel column, as
 * mprof_model_counter_range() gives a model's. */
typedef struct mprof_cell_counter_s {
  char name[MPROF_CELLS_NAME];
  uint32_t id;                  /* in the trace */
  uint32_t last_column;         /* of its latest sample; UINT32_MAX: none yet */
  int64_t value;                /* its latest value */
  int64_t min_value, max_value; /* of all its values, and 0 */
  int64_t *min, *max;           /* [column] */
} mprof_cell_counter_t;

typedef struct mprof_cells_s {
  int64_t t0_ns, t1_ns; /* the time range, over `columns` */
  uint32_t columns, rows;
  uint8_t *cells;             /* [row * columns + column]: MPROF_CELL_* */
  uint8_t *idle;              /* [column]: 1 where a loop is idle */
  mprof_cell_arrow_t *arrows; /* [column * MPROF_CELLS_ARROWS + k] */
  char *names;                /* [row * MPROF_CELLS_NAME]: NUL-terminated */
  uint32_t row_count;         /* rows the layout gave: past `rows`, folded */
  uint32_t seen;              /* MPROF_SEEN_* */
  uint64_t events;            /* events the pass read */
  mprof_cell_counter_t *counters; /* by name, once mprof_cells_end()ed */
  size_t counter_count, counter_cap;
  mprof_cell_label_t *labels; /* by row and column, once ended */
  size_t label_count, label_cap;
  uint32_t counter_limit; /* counters graphed at most (MPROF_CELLS_COUNTERS) */
} mprof_cells_t;

/* An empty summary of [t0_ns, t1_ns) (t0 < t1) in columns x rows (both at
 * least 1).  Returns 0, MPROF_EINVAL or MPROF_ENOMEM. */
int mprof_cells_new(int64_t t0_ns, int64_t t1_ns, uint32_t columns,
                    uint32_t rows, mprof_cells_t **out);
void mprof_cells_free(mprof_cells_t *cells);

/* The pixel column of time t (held within the columns). */
uint32_t mprof_cells_column(const mprof_cells_t *cells, int64_t t_ns);

/* The row shown for layout row `row` (the last one holds those past it). */
uint32_t mprof_cells_row(const mprof_cells_t *cells, uint32_t row);

/* OR bits into layout row `row`'s cells of the columns of [from, to]. */
void mprof_cells_mark(mprof_cells_t *cells, uint32_t row, int64_t from_ns,
                      int64_t to_ns, uint8_t bits);

/* A thread's line in layout row `row` over [start, end] in the look
 * `bits` says (MPROF_CELL_LINE, and FAILED or STALLED): its cells marked,
 * and the end column of a failed or stalled one wider than a pixel
 * marked as its end (MPROF_CELL_ENDS()) (the scene marks the end of a thread it
 * draws alone, not of one in a pixel shared with others). */
void mprof_cells_line(mprof_cells_t *cells, uint32_t row, int64_t start_ns,
                      int64_t end_ns, uint8_t bits);

/* A thread's line in layout row `row` over [start, end] is named text
 * (length bytes, cut to fit) if the row is shown (not past `rows`) and
 * the line at least MPROF_CELLS_LABEL_COLUMNS wide: the threads of a row
 * do not overlap, so a row holds few.  Returns 0 or MPROF_ENOMEM. */
int mprof_cells_label(mprof_cells_t *cells, uint32_t row, int64_t start_ns,
                      int64_t end_ns, const char *text, size_t length);

/* A loop idle over [from, to). */
void mprof_cells_idle(mprof_cells_t *cells, int64_t from_ns, int64_t to_ns);

/* An arrow of `kind` at time at_ns, between layout rows, its ends at
 * from_ns and to_ns: kept if its column has room. */
void mprof_cells_arrow(mprof_cells_t *cells, uint32_t kind, uint32_t from_row,
                       uint32_t to_row, int64_t from_ns, int64_t to_ns,
                       int64_t at_ns);

/* Name layout row `row` (shown rows only, the first name given stays
 * unless replace): text, length bytes (cut to fit). */
void mprof_cells_name(mprof_cells_t *cells, uint32_t row, const char *text,
                      size_t length, int replace);

/* The index of the counter with trace id `id` in *index, made if it is
 * new (named "", no samples).  Returns 0, MPROF_EINVAL (a new one past
 * counter_limit: not graphed) or MPROF_ENOMEM. */
int mprof_cells_counter(mprof_cells_t *cells, uint32_t id, uint32_t *index);

/* Counter `index` takes value at t (in time order). */
void mprof_cells_sample(mprof_cells_t *cells, uint32_t index, int64_t t_ns,
                        int64_t value);

/* Once every event is in: each counter's last value carried to the end,
 * the counters ordered by name (as a model orders them), the labels by
 * row and column. */
void mprof_cells_end(mprof_cells_t *cells);

/* The same summary at half the columns (cells->columns even, and
 * mprof_cells_end()ed): each column the merge of two, as a pass making it
 * at that width would have made it, exactly.  Returns 0, MPROF_EINVAL (an
 * odd number of columns) or MPROF_ENOMEM. */
int mprof_cells_halve(const mprof_cells_t *cells, mprof_cells_t **out);

/* A thread's name when it has no label: "TYPE#ID", "preexisting#ID" for a
 * thread from before the trace (flags), as mprof_model_thread_name(). */
void mprof_cells_default_name(uint16_t type, uint8_t flags, uint64_t id,
                              char *buf, size_t size);

/* Fill cells (made for trace's whole span, from time 0 at its first
 * event) from every event of trace, in one pass in time order (the
 * model's merge), applied with the model's rules (events.c).  progress
 * (NULL: none) hears, with progress_context, how many of the trace's
 * packets are read.  Returns 0, MPROF_EINVAL (a legacy trace) or
 * MPROF_ENOMEM. */
int mprof_cells_stream(const mprof_trace_t *trace, mprof_cells_t *cells,
                       mprof_progress_fn progress, void *progress_context);

#ifdef __cplusplus
}
#endif

#endif /* MPROF_SCENE_STREAM_H */
