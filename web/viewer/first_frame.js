/* first_frame.js -- before the model exists: the pane shells of embedded
 * traces, and the first frame `mprof html` built natively (or a stand-in
 * mapped from the nearest size) painted in them. */

/* Pane shells for the traces embedded in the page (their names), put on
 * the page before their model exists. */
function embeddedShells(names) {
  const shells = names.map(paneShell);
  if (!shells.length) return shells;
  $('panes').replaceChildren(...shells.map((s) => s.el));
  status('opening ' + names.join(', ') + '…'); /* until the model is built; the layout as when it is */
  return shells;
}

/* Paint the shells' canvases once (blank, and a first text) while the
 * wasm compiles off the main thread: a canvas's first drawing allocates
 * and clears its pixels (20-40 ms for a screenful here) and its first
 * text loads the font: done here, the first frame does not wait for them. */
function warmUp(shells) {
  for (const s of shells) {
    const { ctx, w, h } = sizeCanvas(s);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, w, h);
    ctx.font = FONT;
    ctx.fillText('…', 0, 0);
  }
}

/* The first frame `mprof html` built with the same model and scene code
 * (window.MPROF_FRAME: the fit view's display lists for the panes of a
 * few window sizes, frames [{width, height, prims, data}], data's comment
 * the base64 of the primitives, `prims` characters, then of the texts),
 * painted in shell: the picture the model will draw there if its pane
 * has one of those sizes, else a stand-in mapped from the nearest one
 * (paintStandIn()), before the model exists.  Returns whether it was
 * painted. */
function paintFirstFrame(frame, shell) {
  const w = shell.el.clientWidth, h = shell.el.clientHeight;
  if (!frame.frames.length) return false;
  const exact = frame.frames.find((x) => x.width === w && x.height === h), f = exact || standInFor(frame.frames, w, h);
  const { ctx } = sizeCanvas(shell);
  palette = frame.palette;
  ctx.fillStyle = palette[0];
  ctx.fillRect(0, 0, w, h);
  const data = commentOf(f.data), prims = base64Bytes(data.slice(0, f.prims));
  const u = new Uint32Array(prims.buffer, 0, prims.length >> 2), text = base64Bytes(data.slice(f.prims));
  if (exact) paint(ctx, new Float32Array(u.buffer, 0, u.length), u, text, 0);
  else paintStandIn(ctx, f, u, text, w, h);
  showRange(frame.t0, frame.t1); /* the view it shows (fit, as the model's first frame) */
  firstFrameDrawn(0); /* from the navigation */
  view.firstFrameNative = !!exact;
  view.firstFrameStandIn = !exact;
  return true;
}

/* The embedded frame to map to a pane of w x h built for none: of those
 * at least as tall (all the rows it shows), else of the tallest, the
 * widest not wider than the pane (its labels get room), else the
 * narrowest. */
function standInFor(frames, w, h) {
  const tallest = Math.max(...frames.map((f) => f.height));
  const tall = frames.filter((f) => f.height >= Math.min(h, tallest));
  const narrower = tall.filter((f) => f.width <= w);
  const widest = (a, f) => (f.width > a.width ? f : a), narrowest = (a, f) => (f.width < a.width ? f : a);
  return narrower.length ? narrower.reduce(widest) : tall.reduce(narrowest);
}

/* The name column's width in a display list u (words): where its
 * background ends (0: none). */
function namesWidth(u) {
  const fl = new Float32Array(u.buffer, 0, u.length);
  for (let o = 0; o < u.length; o += PRIM_WORDS) if ((u[o + 9] & 15) === ROLE_NAME && u[o + 4] === PRIM_RECT) return fl[o + 2];
  return 0;
}

/* Paint frame f's primitives u (words) mapped to a pane of w x h, as a
 * stand-in for the model's frame there: x right of the name column
 * (namesWidth(), taken to be as wide in the pane: it is in any pane 480
 * px wide or more) scaled to the pane's time range, the column as it is;
 * the counter strips (from the first counter primitive's top down) moved
 * with the pane's bottom edge, and the bands, ticks and name column that
 * end at their top with it; the rows at their y, less what lies wholly
 * below the pane's rows (as the scene leaves it out).  Texts keep their
 * size: each is drawn at its mapped anchor, cut to its mapped width. */
function paintStandIn(ctx, f, u, text, w, h) {
  const fl = new Float32Array(u.buffer, 0, u.length), count = u.length / PRIM_WORDS;
  let top = f.height;
  for (let o = 0; o < u.length; o += PRIM_WORDS) if ((u[o + 9] & 15) === ROLE_COUNTER) top = Math.min(top, fl[o + 1]);
  const n0 = namesWidth(u), sx = (w - n0) / (f.width - n0), dy = h - f.height;
  const mapX = (x) => (x < n0 ? x : n0 + (x - n0) * sx), out = new Uint32Array(u.length), of = new Float32Array(out.buffer);
  let n = 0;
  for (let i = 0; i < count; i++) {
    const o = i * PRIM_WORDS, role = u[o + 9] & 15, y = [fl[o + 1], fl[o + 3]];
    if (role === ROLE_COUNTER) y.forEach((v, k) => { y[k] = v + dy; });
    else if ((role === ROLE_BAND || role === ROLE_AXIS || role === ROLE_NAME) && u[o + 4] !== PRIM_TEXT) y.forEach((v, k) => { if (v === top) y[k] = v + dy; });
    else if (Math.min(y[0], y[1]) > top + dy) continue;
    out.set(u.subarray(o, o + PRIM_WORDS), n);
    of[n] = mapX(fl[o]);
    of[n + 1] = y[0];
    of[n + 2] = mapX(fl[o + 2]);
    of[n + 3] = y[1];
    n += PRIM_WORDS;
  }
  paint(ctx, of.subarray(0, n), out.subarray(0, n), text, 0);
}
