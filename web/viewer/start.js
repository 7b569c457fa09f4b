/* start.js -- the page's start: the embedded data loaded, the first frame
 * painted, the wasm compiled, the traces opened. */

/* The embedded traces' script (`mprof html` puts data.js after the first
 * frame, or inline after viewer.js in a single file): loaded, or parsed. */
function loadData(src) {
  return new Promise((done, fail) => {
    if (!src) { document.addEventListener('DOMContentLoaded', done, { once: true }); return; }
    const s = document.createElement('script');
    s.src = src;
    s.onload = done;
    s.onerror = () => fail(new Error('cannot load ' + src));
    document.body.append(s);
  });
}

/* Resolves once the frame just painted is on its way to the screen (the
 * next animation frame has begun, and the page has let it be drawn). */
function shown() {
  return new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
}

/* Marks of the page's start (performance.mark, 'mprof:NAME'), read by
 * the bench. */
const mark = (name) => performance.mark('mprof:' + name);

async function start() {
  mark('script');
  attachPage();
  const frame = window.MPROF_FRAME; /* never with a trace in slices */
  const shells = embeddedShells(frame ? [frame.name] : (window.MPROF_DATA.traces || []).map((t) => t.name));
  mark('layout');
  if (frame && paintFirstFrame(frame, shells[0])) await shown();
  if (!window.MPROF_DATA) await loadData(frame.data);
  mark('data');
  const compiled = loadWasm(); /* first: it compiles while the rest runs */
  const data = window.MPROF_DATA.traces || [];
  const sliced = data.map((t, i) => t.slices && !t.index && scriptSlices(i, t.slices, t.inline)); /* first slices load now */
  if (!view.firstFrameNative && !view.firstFrameStandIn) warmUp(shells);
  mark('canvas');
  await compiled;
  mark('wasm');
  view.openedAt = 0; /* from the navigation */
  view.timing = {};
  if (data.length === 1 && data[0].index) { /* a trace too big to hold: read by its index */
    await openBig(slicedSource(0, data[0]), scriptIndex(0), 0);
  } else if (data.some((t) => t.slices)) { /* a big trace: shown from its first slice on */
    await openSources(data.map((t, i) => ({ name: t.name, size: t.size,
      capture: t.capture, slices: () => (t.slices ? sliced[i] : () => Promise.resolve(partsSlice(t.size, t.parts))) })), 0, shells);
  } else if (data.length) {
    const read = performance.now();
    const traces = data.map(loadBase64);
    view.timing.readMs = performance.now() - read;
    showTraces(traces, shells);
  }
  window.mprofViewer.ready = true;
}

start().catch((e) => status('viewer failed: ' + e.message));
