/* panes.js -- the panes of the traces shown (one, or two compared): made,
 * put on the page, closed; a file shown while it loads (its preview), and
 * the status line describing them. */

/* A pane's elements: {el, canvas}. */
function paneShell(name) {
  const el = document.createElement('div');
  el.className = 'pane';
  const canvas = document.createElement('canvas');
  const title = document.createElement('span');
  title.className = 'pane-title';
  title.textContent = name;
  el.append(canvas, title);
  return { el, canvas };
}

/* The pane of an opened trace, in shell (paneShell()) if given: its
 * scroll, selected thread and offset (where its time 0 is on the shared
 * axis) are the view state's. */
function makePane(handle, name, shell) {
  const { el, canvas } = shell || paneShell(name);
  const summary = json(wasm.mprof_web_summary(handle));
  const p = { handle, name, el, canvas, summary, prims: 0 };
  const index = () => panes.indexOf(p);
  return Object.defineProperties(p, {
    scroll: { get: () => wasm.mprof_timeline_scroll(tl, index()) },
    selected: { get: () => wasm.mprof_timeline_selected(tl, index()) },
    offset: { get: () => wasm.mprof_timeline_offset(tl, index()) },
  });
}

/* Close the panes; the shells in keep (if any) stay on the page. */
function closePanes(keep = []) {
  if (tl) wasm.mprof_timeline_show(tl, 0, 0); /* before their models go */
  for (const p of panes) {
    paneResized.unobserve(p.el);
    wasm.mprof_web_close(p.handle);
  }
  panes.length = 0;
  $('panes').replaceChildren(...keep.map((s) => s.el));
}

/* Show these loaded traces: one, or two to compare, each with what fired
 * it if it is a capture of `mprof watch` (t.capture: {kind, summary,
 * finding}, from `mprof html`; the findings panel opens on it).  A preview of the
 * file being read, if shown, is closed first (its memory before the
 * model's), and the view on it kept if the user moved it.  shells: the
 * traces' pane shells already on the page, if any (embeddedShells()). */
function showTraces(traces, shells = []) {
  const kept = previewView();
  closePanes(shells);
  const opened = [];
  const modelStart = performance.now();
  try {
    traces.forEach((t, i) => {
      try { opened.push(Object.assign(makePane(openTrace(t), t.name, shells[i]), { capture: t.capture })); } catch (e) {
        for (const rest of traces.slice(i + 1)) wasm.mprof_web_free(rest.ptr);
        throw e;
      }
    });
  } catch (e) {
    for (const p of opened) wasm.mprof_web_close(p.handle);
    closePanes();
    status('cannot open ' + traces.map((t) => t.name).join(', ') + ': ' + e.message);
    return;
  }
  view.timing.modelMs = performance.now() - modelStart;
  mark('model');
  showPanes(opened);
  if (panes.length === 2) view.divergence = json(wasm.mprof_web_diverge(panes[0].handle, panes[1].handle));
  compare();
  $('findings').replaceChildren(el('span', 'analysing…'));
  requestAnimationFrame(() => setTimeout(fillFindings, 0)); /* after the first frame */
  status(describe());
  if (kept) keepView(kept); else fit();
  if ($('search').value) onSearch();
  drawNow();
}

/* A pane's size can change with the window's unchanged (a side panel or
 * bar appears, the page's own layout): each is drawn again then, at its
 * new size, not left stretched. */
const paneResized = new ResizeObserver(requestDraw);

/* Put opened panes on the page, with their legend and counters, and
 * show their models in the view state. */
function showPanes(opened) {
  for (const p of opened) {
    panes.push(p);
    paneResized.observe(p.el);
    if (p.el.parentNode !== $('panes')) $('panes').append(p.el);
    attachInput(p);
  }
  const model = (i) => (panes[i] ? wasm.mprof_web_model(panes[i].handle) : 0);
  if (wasm.mprof_timeline_show(tl, model(0), model(1))) status('out of memory');
  view.divergence = null;
  view.analysed = false;
  palette = panes[0].summary.palette.map((c) => c.rgb);
  fillLegend(panes[0].summary.palette);
  fillCounters();
  showDetails(null, -1);
}


/* After each slice of a single file: the first time, the model of the
 * bytes in so far is shown (the reader takes them as a trace cut
 * short), in shell if given; every time, the share read. */
async function previewSlice(name, size, ptr, have, shell) {
  loading(have / size);
  if (!view.previewTried && have < size) {
    view.previewTried = true;
    const handle = wasm.mprof_web_open_prefix(ptr, have);
    if (!handle) return; /* e.g. a legacy trace: its prefix may not read */
    const p = makePane(handle, name, shell);
    p.preview = true;
    view.timing.previewMs = performance.now() - view.openedAt;
    showPanes([p]);
    $('findings').replaceChildren(el('span', 'after loading'));
    fit();
    view.previewFit = { t0: view.t0, t1: view.t1, scroll: 0 };
    status(describe());
    drawNow();
  }
  if (panes.length && reading.gate) await reading.gate;
}

/* The indicator of a load: "loading N %", hidden at 1. */
function loading(share) {
  $('loading').hidden = share >= 1;
  $('loading').textContent = `loading ${Math.floor(share * 100)} %`;
}

/* The preview's viewport if the user moved it since it was shown, else
 * null; times are kept with the preview's wall-clock start. */
function previewView() {
  const p = panes[0], f = view.previewFit;
  if (!p || !p.preview || !f || (f.t0 === view.t0 && f.t1 === view.t1 && f.scroll === p.scroll)) return null;
  return { t0: view.t0, t1: view.t1, scroll: p.scroll, wall: p.summary.wall_start };
}

/* The kept viewport on the new trace's time axis (shifted by the
 * difference of the wall-clock starts, when both have one). */
function keepView(kept) {
  const wall = panes[0].summary.wall_start;
  const shift = kept.wall !== '0' && wall !== '0' ? Number(BigInt(wall) - BigInt(kept.wall)) : 0;
  setRange(kept.t0 - shift, kept.t1 - shift);
  scrollTo(kept.scroll);
}

function describe() {
  const s = panes.map((p) => `${p.name}: ${p.summary.threads} threads, ${p.summary.events} events${p.preview ? ' so far' : ''}`);
  if (panes.length === 2) {
    const d = view.divergence;
    s.push(d ? `first divergence: arrow ${d.index}, at ${formatNs(d.a_time)} / ${formatNs(d.b_time)}` : 'no divergence');
  }
  return s.join(' · ');
}
