/* draw.js -- each pane's display list, built by the view state, painted
 * on its canvas; frame times. */

function requestDraw() {
  if (view.drawPending) return;
  view.drawPending = requestAnimationFrame(() => { view.drawPending = 0; drawAll(); });
}

/* Draw now, not at the next animation frame (the first frame of traces
 * just opened). */
function drawNow() {
  cancelAnimationFrame(view.drawPending);
  view.drawPending = 0;
  drawAll();
}

function drawAll() {
  if (big && big.mode === 'density') { drawDensity(); return; }
  const start = performance.now();
  for (const p of panes) drawPane(p);
  view.lastFrameMs = performance.now() - start;
  view.frames++;
  if (view.openedAt !== undefined && panes.length) { /* the first frames of traces just opened */
    const sinceOpen = performance.now() - view.openedAt;
    if (view.openToFrameMs === undefined) firstFrameDrawn(view.openedAt); /* of a preview, or complete */
    if (!panes[0].preview) {
      view.timing.frameMs = view.lastFrameMs;
      view.openToCompleteMs = sinceOpen;
      view.openedAt = undefined;
    }
  }
  if (tl) showRange(view.t0, view.t1); /* else the first frame's, from mprof html */
}

/* The first frame of traces opened at openedAt is drawn: ms to now, and
 * to the next animation frame (when the browser begins to put it on
 * screen, once the page lets it). */
function firstFrameDrawn(openedAt) {
  mark('frame');
  view.openToFrameMs = performance.now() - openedAt;
  requestAnimationFrame(() => { view.openToShownMs = performance.now() - openedAt; });
}

function showRange(t0, t1) {
  $('range').textContent = `${formatNs(t0)} – ${formatNs(t1)}`;
  $('range').dataset.t0 = String(t0);
  $('range').dataset.t1 = String(t1);
}

function sizeCanvas(p) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, p.el.clientWidth), h = Math.max(1, p.el.clientHeight);
  if (p.canvas.width !== Math.round(w * dpr) || p.canvas.height !== Math.round(h * dpr)) {
    p.canvas.width = Math.round(w * dpr);
    p.canvas.height = Math.round(h * dpr);
  }
  const ctx = p.canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { ctx, w, h };
}

/* Tell the view state pane p's size, as its canvas has it now. */
function measure(p) {
  wasm.mprof_timeline_resize(tl, panes.indexOf(p), Math.max(1, p.el.clientWidth), Math.max(1, p.el.clientHeight));
}

function drawPane(p) {
  const { ctx, w, h } = sizeCanvas(p);
  const built = performance.now(), i = panes.indexOf(p);
  wasm.mprof_timeline_resize(tl, i, w, h);
  const count = wasm.mprof_timeline_build(tl, i);
  view.lastBuildMs = performance.now() - built;
  view.lastPrims = p.prims = count;
  ctx.globalAlpha = 1;
  ctx.fillStyle = palette[0];
  ctx.fillRect(0, 0, w, h);
  if (count < 0) return;
  const ptr = wasm.mprof_timeline_prims(tl, i), buffer = wasm.memory.buffer;
  paint(ctx, new Float32Array(buffer, ptr, count * PRIM_WORDS), new Uint32Array(buffer, ptr, count * PRIM_WORDS),
    new Uint8Array(buffer), wasm.mprof_timeline_text(tl, i));
}

/* Paint the display list.  Rectangles and the lines along an axis
 * (nearly all of them: thread lines, creations, ticks) are filled as
 * rectangles on the pixel grid, which the canvas blits; slanted lines
 * (arrows) are stroked as one path per run of one style. */
function paint(ctx, f, u, mem, textPtr) {
  const count = u.length / PRIM_WORDS;
  ctx.font = FONT;
  ctx.textBaseline = 'alphabetic';
  let colour = -1, alpha = -1, width = -1, open = false;
  for (let i = 0; i < count; i++) {
    const o = i * PRIM_WORDS, kind = u[o + 4];
    if (u[o + 5] !== colour || f[o + 6] !== alpha || f[o + 7] !== width) {
      if (open) { ctx.stroke(); open = false; }
      if (u[o + 5] !== colour) ctx.fillStyle = ctx.strokeStyle = palette[colour = u[o + 5]];
      if (f[o + 6] !== alpha) ctx.globalAlpha = alpha = f[o + 6];
      if (f[o + 7] !== width) ctx.lineWidth = width = f[o + 7];
    }
    const x0 = f[o], y0 = f[o + 1], x1 = f[o + 2], y1 = f[o + 3];
    if (kind === PRIM_RECT) {
      ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
    } else if (kind === PRIM_TEXT) {
      fitText(ctx, textAt(mem, textPtr + (u[o + 9] >>> 4)), x0, y0, x1 - x0);
    } else if (y0 === y1) {
      const y = Math.round(y0) - (width >> 1);
      ctx.fillRect(Math.min(x0, x1), y, Math.abs(x1 - x0), width);
    } else if (x0 === x1) {
      const x = Math.round(x0) - (width >> 1);
      ctx.fillRect(x, Math.min(y0, y1), width, Math.abs(y1 - y0));
    } else {
      if (!open) { ctx.beginPath(); open = true; }
      ctx.moveTo(x0, y0);
      ctx.lineTo(x1, y1);
    }
  }
  if (open) ctx.stroke();
  ctx.globalAlpha = 1;
}

function textAt(mem, ptr) {
  let end = ptr;
  while (mem[end]) end++;
  return new TextDecoder('utf-8').decode(mem.subarray(ptr, end));
}

/* fillText, cut with an ellipsis to maxWidth. */
function fitText(ctx, text, x, y, maxWidth) {
  if (maxWidth <= 4) return;
  if (ctx.measureText(text).width <= maxWidth) { ctx.fillText(text, x, y); return; }
  let lo = 0, hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(text.slice(0, mid) + '…').width <= maxWidth) lo = mid; else hi = mid - 1;
  }
  if (lo > 0) ctx.fillText(text.slice(0, lo) + '…', x, y);
}
