/* view.js -- changes of the view: each a call on the view state
 * (src/scene/timeline.h) and a frame requested. */

/* Put the second trace on the first one's time axis: its time t is
 * drawn at t + offset, and its axis labels say the first trace's times.
 * view.align: 'starts' (both from their first event), 'wall' (by the
 * traces' wall clocks) or 'divergence' (the first divergence at one x). */
function align() {
  wasm.mprof_timeline_align(tl, ALIGN[view.align]);
  requestDraw();
}

/* A new pair of traces (the view state gives them one scale per
 * counter): aligned at the first divergence if there is one. */
function compare() {
  $('align').hidden = panes.length !== 2;
  if (panes.length !== 2) return;
  view.align = $('align').value = view.divergence ? 'divergence' : 'starts';
  align();
}

/* Every pane scrolled to the same rows (each as far as it has rows). */
function scrollTo(px) {
  wasm.mprof_timeline_scroll_to(tl, px);
  requestDraw();
}

function setRange(t0, t1) {
  if (big) return bigViewChange('setRange', t0, t1);
  wasm.mprof_timeline_set_range(tl, t0, t1);
  requestDraw();
}

function fit() {
  if (big) return bigViewChange('fit');
  wasm.mprof_timeline_fit(tl);
  requestDraw();
}

/* Zoom in by factor around x (CSS px) of pane p. */
function zoom(p, factor, x) {
  if (big) return bigViewChange('zoom', p, factor, x);
  measure(p);
  wasm.mprof_timeline_zoom(tl, panes.indexOf(p), 1 / factor, x);
  requestDraw();
}

/* Zoom in by factor around the middle of the time range. */
function zoomMiddle(factor) {
  if (big) return bigViewChange('zoomMiddle', factor);
  wasm.mprof_timeline_zoom_middle(tl, 1 / factor);
  requestDraw();
}

/* Move the time range by share of its span (> 0: later). */
function shiftRange(share) {
  if (big) return bigViewChange('shiftRange', share);
  wasm.mprof_timeline_shift(tl, share);
  requestDraw();
}

function pan(p, dxPx, dyPx) {
  if (big) return bigViewChange('pan', p, dxPx, dyPx);
  measure(p);
  wasm.mprof_timeline_pan(tl, panes.indexOf(p), dxPx, dyPx);
  requestDraw();
}

/* Bring thread (its details) into view in pane p, highlighted. */
function reveal(p, thread) {
  measure(p);
  wasm.mprof_timeline_reveal(tl, panes.indexOf(p), thread);
  showDetails(p, thread);
  requestDraw();
}

function select(p, thread) {
  wasm.mprof_timeline_select(tl, panes.indexOf(p), thread);
  showDetails(p, thread);
  requestDraw();
}

/* Finding f of pane p (its index in the analysis' list): its range, its
 * thread at fault selected (its details) and its evidence highlighted. */
function showFinding(p, f) {
  measure(p);
  wasm.mprof_timeline_show_finding(tl, panes.indexOf(p), wasm.mprof_web_analysis(p.handle), f.index);
  showDetails(p, f.thread ? f.thread.index : -1);
  requestDraw();
}
