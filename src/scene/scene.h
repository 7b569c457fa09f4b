/* scene.h -- the drawing rules shared by every viewer: a model and a
 * viewport in, a display list of primitives in pixel coordinates out.
 *
 * The browser viewer (this code compiled to WebAssembly) and the desktop
 * viewer only paint the list and handle input; what is drawn where, in
 * which colour, and when a label fits, is decided here once.  What is
 * shown (range, scroll, selection, search, compare) is the view state of
 * timeline.h, which builds each pane's scene.  The list is
 * built from the model's level-of-detail queries, so its length is bounded
 * by the viewport's pixels whatever the trace size.  No OS calls.
 *
 * Layout of the viewport, top to bottom: the time axis
 * (MPROF_SCENE_AXIS_PX), the thread rows (scrolled by scroll_px), then one
 * graph strip (MPROF_SCENE_COUNTER_PX) per shown counter.  Left to right:
 * the name column (names_px wide: each row's thread, each strip's
 * counter, by name; it stays while the time pans), then the time range.
 * Not installed: the viewers and `mprof html` build it from src/scene/.
 */
#ifndef MPROF_SCENE_H
#define MPROF_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "mprof/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pixel sizes of the fixed parts of the layout. */
#define MPROF_SCENE_AXIS_PX 20
#define MPROF_SCENE_COUNTER_PX 40
/* The one row height of both viewers: 16 px holds a 10-11 px label over
 * its line, and shows a quarter more rows of a big trace than 20 would. */
#define MPROF_SCENE_ROW_PX 16
/* A thread's label is drawn only when its visible line is this wide. */
#define MPROF_SCENE_LABEL_MIN_PX 16
/* Hit tests reach this far from a line, in pixels. */
#define MPROF_SCENE_HIT_PX 8
/* The name column's width (a pane narrower than four times this gets a
 * quarter of its width): 20 characters of a 10-11 px font. */
#define MPROF_SCENE_NAMES_PX 120

/* The one palette: every primitive names one of these; legends list them
 * (mprof_scene_legend()).  The arrow colours follow mprof_arrow_kind_t:
 * MPROF_COLOUR_ARROW + kind.  Each colour a legend shows looks unlike the
 * others, and each drawn as a line or span has a contrast ratio of at
 * least 3:1 (WCAG 2) against the background (test_scene_screen.c checks
 * both). */
typedef enum mprof_colour_e {
  MPROF_COLOUR_BACKGROUND = 0,
  MPROF_COLOUR_THREAD,  /* a thread's line */
  MPROF_COLOUR_RUNNING, /* where it runs */
  MPROF_COLOUR_ARROW,   /* = create; then read, read_failed, ... */
  MPROF_COLOUR_FAILED = MPROF_COLOUR_ARROW + MPROF_ARROW_KIND_COUNT,
  MPROF_COLOUR_STALLED,    /* should_resolve, never resolved */
  MPROF_COLOUR_IDLE,       /* idle band */
  MPROF_COLOUR_GC,         /* GC band */
  MPROF_COLOUR_TEXT,       /* labels */
  MPROF_COLOUR_AXIS,       /* ticks and their times */
  MPROF_COLOUR_HIGHLIGHT,  /* double-clicked thread and what it touched */
  MPROF_COLOUR_MATCH,      /* search matches */
  MPROF_COLOUR_COUNTER,    /* counter graphs */
  MPROF_COLOUR_DIVERGENCE, /* compare: where the two traces first differ */
  MPROF_COLOUR_NAMES,      /* the name column's background */
  MPROF_COLOUR_COUNT
} mprof_colour_t;

typedef struct mprof_swatch_s {
  const char *name; /* for legends: "read", "running", ... */
  uint32_t rgb;     /* 0xRRGGBB */
} mprof_swatch_t;

/* The palette, indexed by mprof_colour_t. */
extern const mprof_swatch_t mprof_scene_palette[MPROF_COLOUR_COUNT];

typedef enum mprof_prim_kind_e {
  MPROF_PRIM_LINE = 0, /* (x0,y0) to (x1,y1), `width` px wide */
  MPROF_PRIM_RECT,     /* filled, corners (x0,y0) and (x1,y1) */
  MPROF_PRIM_TEXT      /* text at baseline-left (x0,y0), at most x1-x0 wide */
} mprof_prim_kind_t;

/* What a primitive shows (for painters that treat some apart). */
typedef enum mprof_prim_role_e {
  MPROF_ROLE_BAND = 0,
  MPROF_ROLE_AXIS,
  MPROF_ROLE_MARK,
  MPROF_ROLE_THREAD,
  MPROF_ROLE_RUNNING,
  MPROF_ROLE_ARROW,
  MPROF_ROLE_LABEL,
  MPROF_ROLE_FAILURE,
  MPROF_ROLE_COUNTER,
  MPROF_ROLE_DIVERGENCE,
  MPROF_ROLE_NAME, /* the name column: its background, a row's name */
  MPROF_ROLE_EDGE  /* "‹ 2 s more": the trace goes on past this edge */
} mprof_prim_role_t;

/* One primitive: ten 32-bit words, so a painter in another language reads
 * the list as one typed array. */
typedef struct mprof_prim_s {
  float x0, y0, x1, y1;
  uint32_t kind;      /* mprof_prim_kind_t */
  uint32_t colour;    /* mprof_colour_t */
  float alpha;        /* 0..1 */
  float width;        /* line width in px */
  uint32_t thread;    /* thread index (lines, labels), arrow index
                         (arrows), counter index, or MPROF_NO_THREAD */
  uint32_t role_text; /* role (mprof_prim_role_t) in the low 4 bits;
                         text: offset in mprof_scene_text() << 4 */
} mprof_prim_t;

#define MPROF_PRIM_ROLE(p) ((p)->role_text & 15u)
#define MPROF_PRIM_TEXT_OFFSET(p) ((p)->role_text >> 4)

typedef struct mprof_viewport_s {
  int64_t t0_ns, t1_ns; /* the time range shown, t0 < t1 */
  uint32_t width_px, height_px;
  uint32_t scroll_px;     /* rows area scrolled down by this much */
  uint32_t row_height_px; /* > 0 */
  uint32_t names_px;      /* the name column's width (0: none); the time
                             range fills the rest */
} mprof_viewport_t;

typedef struct mprof_scene_options_s {
  const uint8_t *highlighted;    /* per thread: nonzero = highlighted (others
                                    fade); NULL for none */
  const uint8_t *matches;        /* per thread: search match; NULL for none */
  const uint8_t *counters_shown; /* per counter: nonzero = graph it; NULL for
                                    none */
  const int64_t *divergence_ns;  /* compare: the time of the first
                                    divergence (mprof_scene_diverge()),
                                    marked by a dashed line over everything;
                                    NULL for none */
} mprof_scene_options_t;

typedef struct mprof_scene_s mprof_scene_t;

/* A new, empty scene (its buffers grow on first build).  Returns 0 or
 * MPROF_ENOMEM. */
int mprof_scene_new(mprof_scene_t **out);

void mprof_scene_free(mprof_scene_t *scene);

/* Build the display list of `model` (finished) in `viewport`; options may
 * be NULL.  Replaces the previous list.  Returns 0, MPROF_EINVAL (empty
 * viewport) or MPROF_ENOMEM. */
int mprof_scene_build(mprof_scene_t *scene, const mprof_model_t *model,
                      const mprof_viewport_t *viewport,
                      const mprof_scene_options_t *options);

/* Compare: set how the following builds of `scene` draw a trace shown
 * with another one.  axis_offset_ns is added to the trace's times in the
 * axis labels, so that both traces' ticks fall at the same x with the same
 * times (the caller shifts the viewport by the same; 0: its own times).
 * counter_lo and counter_hi give each counter's graph its value range,
 * replacing the trace's own scale (one scale for both traces, see
 * mprof_scene_widen_scale()); NULL: the trace's own.  The arrays are read
 * at each build: keep them alive. */
void mprof_scene_compare(mprof_scene_t *scene, int64_t axis_offset_ns,
                         const int64_t *counter_lo, const int64_t *counter_hi);

/* The display list of the last build, in painting order; *count gets its
 * length.  Lines along a row and rectangles of one look that follow one
 * another less than half a pixel apart are merged into the first (whose
 * `thread` they keep), so a dense row costs a few primitives. */
const mprof_prim_t *mprof_scene_prims(const mprof_scene_t *scene,
                                      size_t *count);

/* The texts of the last build (NUL-terminated, at the prims' offsets). */
const char *mprof_scene_text(const mprof_scene_t *scene);

/* Widen [*lo, *hi] to the values of every counter of `model` that shares
 * a scale with a counter called `name`: the same name up to a '#' (as
 * mirage-trace-viewer did: tx_window#445 and tx_window#446).  A counter's
 * own scale is [0, 0] widened by its own trace; compared traces widen it
 * by both. */
void mprof_scene_widen_scale(const mprof_model_t *model, const char *name,
                             int64_t *lo, int64_t *hi);

/* x of time t in the viewport: names_px at t0_ns, width_px at t1_ns (may
 * be outside them). */
double mprof_scene_x(const mprof_viewport_t *viewport, int64_t t_ns);

/* Time at x in the viewport (x left of names_px: before t0_ns). */
int64_t mprof_scene_time(const mprof_viewport_t *viewport, double x);

/* y of the middle of row `row` in the viewport. */
double mprof_scene_row_y(const mprof_viewport_t *viewport, uint32_t row);

/* The thread the name column names in row `row`: the first one whose
 * line reaches into the viewport's time range, or MPROF_NO_THREAD. */
uint32_t mprof_scene_row_thread(const mprof_model_t *model,
                                const mprof_viewport_t *viewport, uint32_t row);

/* The thread drawn nearest to pixel (x, y), within MPROF_SCENE_HIT_PX
 * along its row; in the name column, the row's name's
 * (mprof_scene_row_thread()); or MPROF_NO_THREAD. */
uint32_t mprof_scene_hit(const mprof_model_t *model,
                         const mprof_viewport_t *viewport, double x, double y);

/* Everything `thread` touched: sets marks[i] = 1 for the thread, its
 * creator, what it became, what became it, and every thread an arrow joins
 * it to.  marks has one byte per thread (it is not cleared first).  Returns
 * how many threads it marked that were not marked yet. */
size_t mprof_scene_touched(const mprof_model_t *model, uint32_t thread,
                           uint8_t *marks);

/* The busy part of model's trace, from its first activity to its last,
 * in *start_ns and *end_ns: what fit shows.  Activity is a thread running,
 * an arrow, a label or a counter sample; a thread's line alone is not
 * (a server's listening promise lasts the whole trace).  A lead of
 * activity is left out when it holds at most 1 % of the activity and is
 * followed by a gap with none that lasts longer than the busy part after
 * it (a program's start-up, then seconds asleep, then the burst worth
 * seeing); a tail likewise.  With no activity, or a single instant of it:
 * the whole trace, [0, duration_ns].  O(activity), with a histogram of
 * MPROF_SCENE_BUSY_BINS bins over the trace (the gaps are measured in
 * bins, the ends found exactly). */
#define MPROF_SCENE_BUSY_BINS 4096
void mprof_scene_busy(const mprof_model_t *model, int64_t *start_ns,
                      int64_t *end_ns);

/* The legend of model: the colours its display lists show, in palette
 * order, into out (MPROF_COLOUR_COUNT entries are always enough):
 * "thread" and the endings its threads have (failed, never resolved),
 * "running" if a thread runs, the arrow kinds it holds, the band kinds,
 * "counter" if it has counters.  Never the background, texts, the axis,
 * marks of a selection or search, or the divergence (a compare's, see
 * mprof_timeline_legend()).  Returns how many. */
size_t mprof_scene_legend(const mprof_model_t *model, mprof_colour_t *out);

/* Where two traces (a good run and a bad run) first differ. */
typedef struct mprof_divergence_s {
  size_t index;                 /* arrows equal before this one */
  int64_t a_time_ns, b_time_ns; /* its time in each (the end if none) */
  uint32_t a_thread, b_thread;  /* its target in each, or MPROF_NO_THREAD */
} mprof_divergence_t;

/* Compare two models' arrows in time order, each as (kind, type of both
 * ends, first label of both ends): ids differ between runs, so they are
 * left out.  The first arrow that differs, or the first one only one trace
 * has, is the divergence.  Returns 1 and fills *out, or 0 if the two
 * sequences are the same. */
int mprof_scene_diverge(const mprof_model_t *a, const mprof_model_t *b,
                        mprof_divergence_t *out);

#ifdef __cplusplus
}
#endif

#endif /* MPROF_SCENE_H */
