/* big_view.js -- what a big trace (big_open.js) shows: from its index
 * alone, the events per stream over the range shown (the density: one
 * row per ring stream, one column per pixel); and once the packets the
 * index names for the range fit reading.windowBudget bytes, the model of
 * those packets, drawn as any trace is (its threads, rows, arrows), its
 * time axis the whole trace's.  The range is the page's (big.t0, big.t1);
 * the model's window is a little wider than the range it was built for,
 * so that a pan stays in it; a range that leaves it asks for another
 * window, or the density. */

const DENSITY = { names: 120, axis: 22, row: 18, colour: '#3465a4' };

/* Show [t0, t1] of the big trace: in the window's model while it holds
 * the range; else, if the range's packets fit the budget, in the model
 * shown so far (or the density) until they are read and modelled; else
 * in the density.  A window that could not be read is not asked for
 * again until the range asks for another. */
function showBig(t0, t1) {
  Object.assign(big, { t0, t1: t0 + Math.max(t1 - t0, MIN_SPAN_NS) });
  const inWindow = big.mode === 'window';
  if (inWindow && covers(big.window, big)) { followRange(); return; }
  const plan = windowPlan(big);
  if (!plan && inWindow) { showDensity(big.t0, big.t1); return; }
  if (inWindow) followRange(); else requestDraw();
  if (plan && windowKey(plan) !== big.failed) {
    big.failed = null;
    loadWindow(plan);
  }
}

const windowKey = (plan) => `${plan.t0}:${plan.t1}:${plan.named}`;

const MIN_SPAN_NS = 10;
const covers = (w, range) => w && w.t0 <= range.t0 && range.t1 <= w.t1;

function followRange() {
  wasm.mprof_timeline_set_range(tl, big.t0, big.t1);
  requestDraw();
}

/* The density of [t0, t1] in a pane of its own. */
function showDensity(t0, t1) {
  closePanes();
  const shell = paneShell(big.name);
  $('panes').replaceChildren(shell.el);
  Object.assign(big, { mode: 'density', window: null, shell, t0, t1 });
  attachDensityInput(shell);
  status(`${big.name}: ${big.summary.events} events in ${big.summary.packets} packets, `
    + `${big.rows.length} streams, drawn from its index (zoom in for threads)`);
  drawNow();
}

/* The density's pane drawn (drawAll()). */
function drawDensity() {
  const { ctx, w, h } = sizeCanvas(big.shell);
  const columns = Math.max(1, Math.floor(w - DENSITY.names)), rows = big.rows.length;
  const ptr = wasm.mprof_web_big_density(big.handle, big.t0, big.t1, columns);
  const counts = new Float32Array(wasm.memory.buffer, ptr, rows * columns);
  const max = counts.reduce((m, c) => Math.max(m, c), 0);
  ctx.globalAlpha = 1;
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, w, h);
  ctx.fillStyle = DENSITY.colour;
  for (let r = 0; r < rows; r++) {
    const y = DENSITY.axis + r * DENSITY.row;
    for (let c = 0; c < columns; c++) {
      const n = counts[r * columns + c];
      if (n <= 0) continue;
      ctx.globalAlpha = 0.2 + 0.8 * Math.log1p(n) / Math.log1p(max);
      ctx.fillRect(DENSITY.names + c, y + 2, 1, DENSITY.row - 4);
    }
  }
  ctx.globalAlpha = 1;
  drawDensityFrame(ctx, w, h);
  big.lastDensity = { columns, rows: big.rows.map(rowName), counts: Array.from(counts), t0: big.t0, t1: big.t1 };
  if (view.openedAt !== undefined) { /* the first frame of the trace opened */
    firstFrameDrawn(view.openedAt);
    view.openToCompleteMs = view.openToFrameMs;
    view.openedAt = undefined;
  }
  showRange(big.t0, big.t1);
}

/* A density row's name: its OS-thread stream as `mprof dump` and the
 * Chrome export name it (`stream N`, first: a cut name keeps it), then
 * the process that wrote the trace where its metadata says one.  The
 * trace holds no OS thread's name.  Drawn with fillText only. */
const rowName = (stream) => (big.process ? `stream ${stream} (${big.process})` : `stream ${stream}`);

/* The stream names and the time axis. */
function drawDensityFrame(ctx, w, h) {
  ctx.font = FONT;
  ctx.fillStyle = '#f4f4f4';
  ctx.fillRect(0, 0, DENSITY.names, h);
  ctx.fillStyle = '#202020';
  big.rows.forEach((r, i) => fitText(ctx, rowName(r), 4, DENSITY.axis + i * DENSITY.row + 13, DENSITY.names - 8));
  const span = big.t1 - big.t0, width = w - DENSITY.names, step = Math.pow(10, Math.floor(Math.log10(span / 5)));
  for (let t = Math.ceil(big.t0 / step) * step; t <= big.t1; t += step) {
    const x = DENSITY.names + (t - big.t0) / span * width;
    ctx.fillRect(x, DENSITY.axis - 6, 1, 6);
    fitText(ctx, formatNs(t), x + 2, DENSITY.axis - 8, 80);
  }
}

/* The packets [t0, t1] needs, with the names packets or not: {count,
 * bytes (their slots: what is read, and held twice, as the parts read
 * and as the image modelled), offsets}. */
function windowPackets(t0, t1, names) {
  const count = wasm.mprof_web_big_window(big.handle, t0, t1, names ? 1 : 0);
  const offsets = Array.from(new Float64Array(wasm.memory.buffer, wasm.mprof_web_big_window_offsets(big.handle), count));
  return { count, bytes: count * big.packetSize, offsets };
}

/* The window to model for big's range: the range widened by
 * reading.windowMargin of it each side if its packets fit the budget,
 * else the range if they do; with the names packets (labels) if they fit
 * too, else without (threads named by type and id): {t0, t1, named,
 * packets, bytes, offsets, ms (to find them)}, or null if none fits. */
function windowPlan(b) {
  const margin = (b.t1 - b.t0) * reading.windowMargin;
  const wide = [Math.max(0, Math.floor(b.t0 - margin)), Math.ceil(b.t1 + margin)];
  const tries = [[...wide, true], [Math.floor(b.t0), Math.ceil(b.t1), true], [...wide, false],
    [Math.floor(b.t0), Math.ceil(b.t1), false]];
  const started = performance.now();
  for (const [t0, t1, named] of tries) {
    const p = windowPackets(t0, t1, named);
    if (p.bytes <= reading.windowBudget) {
      return { t0, t1, named, packets: p.count, bytes: p.bytes, offsets: p.offsets, ms: performance.now() - started };
    }
  }
  return null;
}

/* Read a window's packets and show their model.  One window is read at
 * a time; the range may have moved on when it is in, and is looked at
 * again then.  A window that cannot be read (the file changed, an index
 * that names packets past its end, no memory for its model) is
 * remembered as failed, so that the range is looked at again only when
 * it moved meanwhile. */
async function loadWindow(plan) {
  const b = big;
  if (b.busy) { b.pending = true; return; }
  b.busy = true;
  let shown = false;
  try {
    const timing = { planMs: plan.ms, started: performance.now() };
    const handle = await readWindow(b, plan.offsets, timing);
    showWindow(handle, plan);
    shown = true;
    timing.drawMs = performance.now() - timing.modelled;
    b.timing = timing;
  } catch (e) {
    b.failed = windowKey(plan);
    if (big === b) {
      status(`${b.name}: cannot read the packets of ${formatNs(plan.t0)} – ${formatNs(plan.t1)}: ${e.message}`
        + ' (not read again until the range changes)');
    }
  } finally {
    b.busy = false;
  }
  if (big === b && (b.pending || (shown && !covers(b.window, b)))) {
    b.pending = false;
    showBig(b.t0, b.t1);
  }
}

/* The model of the packets at offsets, read a run of adjacent ones at a
 * time into an image. */
async function readWindow(b, offsets, timing) {
  const sorted = [...offsets].sort((x, y) => x - y), parts = [];
  for (let i = 0; i < sorted.length;) {
    let j = i + 1;
    while (j < sorted.length && sorted[j] === sorted[j - 1] + b.packetSize) j++;
    parts.push(await bigRead(b, sorted[i], sorted[j - 1] + b.packetSize));
    i = j;
  }
  timing.readMs = performance.now() - timing.started;
  const image = wasm.mprof_web_big_image(b.handle, sorted.length);
  if (!image) throw new Error('out of memory');
  let at = image + b.headSize;
  for (const part of parts) {
    wasmBytes(at, part.length).set(part);
    at += part.length;
  }
  const handle = wasm.mprof_web_big_open_window(b.handle, image, sorted.length);
  if (!handle) throw new Error(cString(wasm.mprof_web_strerror(wasm.mprof_web_last_error())));
  timing.modelled = performance.now();
  timing.modelMs = timing.modelled - timing.started - timing.readMs;
  return handle;
}

/* The window's model shown in a pane, at the range shown. */
function showWindow(handle, w) {
  closePanes();
  const p = makePane(handle, big.name);
  Object.assign(big, { mode: 'window', window: { t0: w.t0, t1: w.t1, named: w.named, packets: w.packets, bytes: w.bytes } });
  showPanes([p]);
  status(`${big.name}: ${formatNs(w.t0)} – ${formatNs(w.t1)}: ${p.summary.threads} threads, `
    + `${p.summary.events} events from ${w.packets} packets (${Math.round(w.bytes / 1024)} KiB)`
    + (w.named ? '' : '; its labels, in more names packets than the budget holds, left out'));
  $('findings').replaceChildren(el('span', 'of the whole trace: mprof report'));
  wasm.mprof_timeline_set_range(tl, big.t0, big.t1);
  drawNow();
}

/* Input on the density's pane: drag pans, the wheel zooms. */
function attachDensityInput(shell) {
  const c = shell.canvas;
  let drag = null;
  c.addEventListener('mousedown', (e) => { drag = e.clientX; });
  window.addEventListener('mouseup', () => { drag = null; });
  window.addEventListener('mousemove', (e) => {
    if (drag === null || !big || big.shell !== shell) return;
    bigPan(e.clientX - drag);
    drag = e.clientX;
  });
  c.addEventListener('wheel', (e) => {
    e.preventDefault();
    bigZoom(e.deltaY < 0 ? ZOOM_STEP : 1 / ZOOM_STEP, e.clientX - c.getBoundingClientRect().left);
  }, { passive: false });
}

/* The time at x (CSS px) of the density's pane, and its ns per px. */
function densityScale(x) {
  const width = Math.max(1, big.shell.el.clientWidth - DENSITY.names), perPx = (big.t1 - big.t0) / width;
  return { at: big.t0 + (x - DENSITY.names) * perPx, perPx };
}

function bigZoom(factor, x) {
  const { at } = densityScale(x), share = (at - big.t0) / (big.t1 - big.t0), span = (big.t1 - big.t0) / factor;
  showBig(at - share * span, at - share * span + span);
}

function bigPan(dx) {
  const { perPx } = densityScale(0);
  showBig(big.t0 - dx * perPx, big.t1 - dx * perPx);
}

/* The view's changes (view.js) while a big trace is open: the range is
 * the page's; in a window, rows scroll in it and the range follows it. */
function bigViewChange(what, ...args) {
  const span = big.t1 - big.t0, mid = (big.t0 + big.t1) / 2;
  const inWindow = big.mode === 'window';
  const changes = {
    fit: () => showBig(0, Math.max(1, big.summary.duration)),
    setRange: (t0, t1) => showBig(t0, t1),
    zoomMiddle: (f) => showBig(mid - span / 2 / f, mid + span / 2 / f),
    shiftRange: (share) => showBig(big.t0 + span * share, big.t1 + span * share),
    zoom: (p, f, x) => (inWindow ? followTimeline(() => wasm.mprof_timeline_zoom(tl, 0, 1 / f, x)) : bigZoom(f, x)),
    pan: (p, dx, dy) => (inWindow ? followTimeline(() => wasm.mprof_timeline_pan(tl, 0, dx, dy)) : bigPan(dx)),
  };
  changes[what](...args);
}

/* A change made by the view state (measured on the window's pane), then
 * shown as the page's range. */
function followTimeline(change) {
  measure(panes[0]);
  change();
  showBig(view.t0, view.t1);
}
