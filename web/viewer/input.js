/* input.js -- mouse, keys, the search box, the toolbar, and files opened
 * or dropped: input turned into view changes. */

function attachInput(p) {
  const c = p.canvas;
  let drag = null;
  c.addEventListener('mousedown', (e) => { drag = { x: e.clientX, y: e.clientY }; c.style.cursor = 'grabbing'; });
  window.addEventListener('mousemove', (e) => {
    if (!drag) return;
    pan(p, e.clientX - drag.x, e.clientY - drag.y);
    drag = { x: e.clientX, y: e.clientY };
  });
  window.addEventListener('mouseup', () => { drag = null; c.style.cursor = ''; });
  c.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = c.getBoundingClientRect();
    zoom(p, e.deltaY < 0 ? ZOOM_STEP : 1 / ZOOM_STEP, e.clientX - r.left);
  }, { passive: false });
  c.addEventListener('dblclick', (e) => {
    const r = c.getBoundingClientRect();
    measure(p);
    select(p, wasm.mprof_timeline_hit(tl, panes.indexOf(p), e.clientX - r.left, e.clientY - r.top));
  });
}

/* The keys the help (index.html) lists; with Ctrl, Alt or Meta they are
 * the browser's (its zoom, back, ...). */
function onKey(e) {
  if (e.ctrlKey || e.altKey || e.metaKey) return;
  if (e.target instanceof HTMLInputElement) {
    if (e.key === 'Escape') e.target.blur();
    if (e.key === 'Enter') nextMatch();
    return;
  }
  const p = panes[0], row = p ? p.summary.row_px : 0;
  const actions = {
    '+': () => zoomMiddle(ZOOM_STEP), '=': () => zoomMiddle(ZOOM_STEP),
    '-': () => zoomMiddle(1 / ZOOM_STEP), '0': fit,
    ArrowLeft: () => shiftRange(-1 / 8),
    ArrowRight: () => shiftRange(1 / 8),
    ArrowUp: () => pan(p, 0, row * 4),
    ArrowDown: () => pan(p, 0, -row * 4),
    '/': () => $('search').focus(), n: nextMatch, o: () => $('file').click(),
    '?': () => { $('help').hidden = !$('help').hidden; },
    Escape: () => { $('help').hidden = true; for (const p of panes) select(p, -1); },
  };
  const action = actions[e.key];
  if (!action || !panes.length && !big && e.key !== '?' && e.key !== 'o') return;
  e.preventDefault();
  action();
}

function onSearch() {
  const q = $('search').value;
  const total = withCString(q, (ptr) => wasm.mprof_timeline_search(tl, ptr));
  $('matches').textContent = q ? `${total} match${total === 1 ? '' : 'es'}` : '';
  requestDraw();
}

function nextMatch() {
  const p = panes[0];
  if (!p) return;
  const next = wasm.mprof_timeline_next_match(tl, 0, p.selected);
  if (next >= 0) reveal(p, next);
}

/* Open one or two files (compare), or a big trace by its index
 * (big_open.js), given with it or not. */
function openFiles(files) {
  const given = bigFiles([...files]);
  if (given) { openBig(fileSource(given.trace), given.index, performance.now()); return; }
  const list = [...files].filter((f) => !f.name.endsWith('.mpidx')).slice(0, 2);
  if (!list.length) return;
  openSources(list.map((f) => ({ name: f.name, size: f.size, file: f,
    slices: (preview) => fileSlices(f, preview ? reading.preview : reading.slice) })), performance.now());
}

/* Open one or two traces (compare) read a slice at a time: sources
 * [{name, size, slices(preview), capture (panes.js), file (if picked)}],
 * slices() giving loadSlices() its next(), the first slice small if
 * preview.  One trace is shown while it loads (previewSlice()), in
 * shells[0] if given (embeddedShells()); a picked one whose whole model
 * the preview says would be over the page's budget is opened by its index
 * instead (overBudget()).  The times count from openedAt. */
async function openSources(sources, openedAt, shells = []) {
  const load = ++view.loads;
  Object.assign(view, { openedAt, openToFrameMs: undefined, openToCompleteMs: undefined,
    timing: {}, previewTried: false, previewFit: null });
  status('opening ' + sources.map((f) => f.name).join(', ') + '…');
  closeBig();
  closePanes(shells); /* their memory first */
  const preview = sources.length === 1 && reading.preview > 0;
  const onSlice = preview ? async (ptr, have) => {
    await previewSlice(sources[0].name, sources[0].size, ptr, have, shells[0]);
    if (sources[0].file && have <= reading.preview && panes[0] && panes[0].preview
      && overBudget(sources[0].size, eventsEstimate(ptr, sources[0].size, have, panes[0].summary.events))) {
      throw Object.assign(new Error('over the budget'), { byIndex: true });
    }
  } : null;
  const traces = [];
  try {
    for (const f of sources) traces.push({ ...await loadSlices(f.name, f.size, f.slices(preview), load, onSlice), capture: f.capture });
  } catch (e) {
    for (const t of traces) wasm.mprof_web_free(t.ptr);
    if (load === view.loads && e.byIndex) {
      closePanes(); /* its preview */
      openBig(fileSource(sources[0].file), null, openedAt);
    } else if (load === view.loads) {
      loading(1);
      closePanes(); /* a preview of it */
      status('cannot read ' + sources.map((f) => f.name).join(', ') + ': ' + e.message);
    }
    return;
  }
  view.timing.readMs = performance.now() - view.openedAt;
  if (panes.length) { /* a preview: say what comes before the page stops to build the model */
    $('loading').textContent = 'loading 100 %: building the model…';
    await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  }
  if (load !== view.loads) { for (const t of traces) wasm.mprof_web_free(t.ptr); return; }
  loading(1);
  showTraces(traces, panes.length ? [] : shells); /* a preview took the shell */
}

/* Whether the whole model of a file of `size` bytes, about `events`
 * events, would put the page over its budget: the file's bytes, and
 * reading.modelBytesPerEvent an event (a dense trace_gen trace of 256 MiB,
 * 27 M events, took 6.8 times its size; bench_web's 10 M events in a
 * file of 488 MB, 1.8 times). */
function overBudget(size, events) {
  return size + events * reading.modelBytesPerEvent > reading.wholeBudget;
}

/* The events of a trace file of `size` bytes whose first `have` bytes, in
 * WebAssembly memory at ptr, hold `events`: as many for each packet ever
 * written (its slot state not 0: docs/FORMAT.md) as those written in its
 * first bytes have; a file whose slot states those bytes do not hold, as
 * many per byte. */
function eventsEstimate(ptr, size, have, events) {
  const v = new DataView(wasm.memory.buffer, ptr, have), perByte = events / have * size;
  if (have < 64) return perByte;
  const packetSize = v.getUint32(24, true), count = v.getUint32(28, true);
  const slots = Number(v.getBigUint64(48, true)), packets = Number(v.getBigUint64(56, true));
  if (!packetSize || slots + 8 * count > have) return perByte;
  let written = 0, writtenIn = 0;
  for (let i = 0; i < count; i++) {
    if (v.getBigUint64(slots + 8 * i, true) === 0n) continue;
    written++;
    if (packets + (i + 1) * packetSize <= have) writtenIn++;
  }
  return writtenIn ? events * written / writtenIn : perByte;
}

function attachPage() {
  $('open').addEventListener('click', () => $('file').click());
  $('file').addEventListener('change', () => {
    openFiles($('file').files);
    $('file').value = ''; /* the same file chosen again opens again */
  });
  $('zoom-in').addEventListener('click', () => (panes[0] || big) && zoomMiddle(ZOOM_STEP));
  $('zoom-out').addEventListener('click', () => (panes[0] || big) && zoomMiddle(1 / ZOOM_STEP));
  $('fit').addEventListener('click', fit);
  $('align').addEventListener('change', () => { view.align = $('align').value; align(); });
  $('help-button').addEventListener('click', () => { $('help').hidden = !$('help').hidden; });
  $('search').addEventListener('input', onSearch);
  window.addEventListener('keydown', onKey);
  window.addEventListener('resize', requestDraw);
  window.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dragging'); });
  window.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    document.body.classList.remove('dragging');
    openFiles(e.dataTransfer.files);
  });
}
