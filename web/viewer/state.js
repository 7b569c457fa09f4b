/* state.js -- the browser viewer's constants and shared state: the
 * WebAssembly instance, the view state it holds (mprof_timeline_t), the
 * panes, the page's timings and how files are read.
 *
 * The viewer loads the model (mprof.wasm), turns input into calls on the
 * view state (src/scene/timeline.h), and paints the display list it builds
 * (the scene) on canvases: it decides nothing about what is drawn, or
 * where.  Its files (web/viewer/, in the order web/CMakeLists.txt lists
 * them) are joined by web/join.cmake into viewer.js, one classic script
 * whose one function holds them all: what one declares the others see.
 * A classic script, not a module: pages opened from file:// may not load
 * modules or fetch files, so `mprof html` hands over the wasm and the
 * traces as base64 in window.MPROF_DATA (a big trace in slices, scripts
 * that call mprofSlice(): scriptSlices()), and for one trace not in slices
 * the first frame it built, window.MPROF_FRAME (paintFirstFrame()).
 * Strings from traces reach the page only through textContent and the
 * canvas only through fillText. */

const PRIM_WORDS = 10; /* mprof_prim_t: x0 y0 x1 y1 kind colour alpha width thread role_text */
const PRIM_RECT = 1, PRIM_TEXT = 2;
const ROLE_BAND = 0, ROLE_AXIS = 1, ROLE_COUNTER = 8, ROLE_NAME = 10; /* mprof_prim_role_t */
const ALIGN = { starts: 0, wall: 1, divergence: 2 }; /* mprof_align_t */
const ZOOM_STEP = 1.2;
const FONT = '11px sans-serif';

let wasm = null;       /* the instance's exports */
let tl = 0;            /* the view state (mprof_timeline_t) */
let palette = [];      /* '#rrggbb' by mprof_colour_t */
const panes = [];      /* one per open trace (two: compare) */
const view = { lastFrameMs: 0, frames: 0, analysed: false, divergence: null,
  drawPending: 0, /* the requested animation frame's id */
  timing: {}, /* the last open's readMs, previewMs, modelMs, frameMs */
  loads: 0 }; /* files opened so far: a load that is no longer the last one stops */
/* How files are read: a slice at a time, and once the first `preview`
 * bytes of a single file are in (0: never), the model of that prefix is
 * shown while the rest is read.  `gate`, if set, is a promise each slice
 * after the preview waits for (tests hold a load there).  Embedded slices
 * (scriptSlices()): `scriptsAhead` scripts load ahead. */
const reading = { slice: 32 << 20, preview: 4 << 20, gate: null, scriptsAhead: 3,
  /* A file of `bigFrom` bytes or more (its whole model would take more
   * than 1.5 GiB unless its events are sparse) is read by its index
   * (big_open.js), and a window of it
   * modelled once its packets' slots are at most `windowBudget` bytes
   * (what is read, held twice: as read and as the image modelled; the
   * model takes about four times their content), widened by `windowMargin`
   * of the range on each side when that fits too (a pan that stays in it
   * needs no other model).  A smaller file is read by its index too when
   * its preview says that the file and its whole model, about
   * `modelBytesPerEvent` an event, would be over `wholeBudget` bytes. */
  bigFrom: 512 << 20, windowBudget: 64 << 20, windowMargin: 0.1, modelBytesPerEvent: 64, wholeBudget: 1.5 * 2 ** 30 };
/* The page's address may set these numbers: index.html?windowBudget=N
 * (tests, and a user who wants more or less in a window). */
for (const [key, value] of new URLSearchParams(location.search)) {
  if (typeof reading[key] === 'number' && Number.isFinite(Number(value))) reading[key] = Number(value);
}
const $ = (id) => document.getElementById(id);
/* The range shown, on the first trace's time axis (the view state's). */
Object.defineProperties(view, {
  t0: { get: () => (tl ? wasm.mprof_timeline_t0(tl) : 0) },
  t1: { get: () => (tl ? wasm.mprof_timeline_t1(tl) : 1) },
});
