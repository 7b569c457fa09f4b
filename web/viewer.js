/* viewer.js -- the mprof browser viewer's JavaScript: loads the model
 * (mprof.wasm), turns input into calls on the view state it holds
 * (src/scene/timeline.h), and paints the display list it builds (the
 * scene) on canvases.  It decides nothing about what is drawn, or where.
 *
 * A classic script, not a module: pages opened from file:// may not load
 * modules or fetch files, so `mprof html` hands over the wasm and the
 * traces as base64 in window.MPROF_DATA (a big trace in slices, scripts
 * that call mprofSlice(): scriptSlices()), and for one trace not in slices
 * the first frame it built, window.MPROF_FRAME (paintFirstFrame()).
 * Strings from traces reach the page only through textContent and the
 * canvas only through fillText. */
'use strict';

(function () {
  const PRIM_WORDS = 10; /* mprof_prim_t: x0 y0 x1 y1 kind colour alpha width thread role_text */
  const PRIM_RECT = 1, PRIM_TEXT = 2;
  const ROLE_BAND = 0, ROLE_AXIS = 1, ROLE_COUNTER = 8; /* mprof_prim_role_t */
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
  const reading = { slice: 32 << 20, preview: 4 << 20, gate: null, scriptsAhead: 3 };
  const $ = (id) => document.getElementById(id);
  /* The range shown, on the first trace's time axis (the view state's). */
  Object.defineProperties(view, {
    t0: { get: () => (tl ? wasm.mprof_timeline_t0(tl) : 0) },
    t1: { get: () => (tl ? wasm.mprof_timeline_t1(tl) : 1) },
  });

  /* --- The WebAssembly side ------------------------------------------------ */

  function base64Bytes(text) {
    if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
    const raw = atob(text);
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  }

  /* The model reads only memory; the few WASI calls that shared code links
   * (closing or writing files) are never made, and answer ENOSYS. */
  const ENOSYS = 52;
  const wasi = new Proxy({}, { get: () => () => ENOSYS });

  /* The text of the comment in function fn's source (`mprof html` puts
   * long base64 there: a script parses a comment faster than a string). */
  function commentOf(fn) {
    const source = fn.toString();
    return source.slice(source.indexOf('/*') + 2, source.lastIndexOf('*/'));
  }

  async function loadWasm() {
    const bytes = base64Bytes(window.MPROF_DATA.wasm);
    const { instance } = await WebAssembly.instantiate(bytes, { wasi_snapshot_preview1: wasi });
    wasm = instance.exports;
    if (wasm._initialize) wasm._initialize();
    tl = wasm.mprof_timeline_new();
    if (!tl) throw new Error('out of memory');
  }

  function cString(ptr) {
    const mem = new Uint8Array(wasm.memory.buffer);
    let end = ptr;
    while (mem[end]) end++;
    return new TextDecoder('utf-8').decode(mem.subarray(ptr, end));
  }

  const json = (ptr) => JSON.parse(cString(ptr));

  /* Call fn with text as a NUL-terminated C string. */
  function withCString(text, fn) {
    const bytes = new TextEncoder().encode(text);
    const ptr = wasm.mprof_web_alloc(bytes.length + 1);
    const mem = new Uint8Array(wasm.memory.buffer, ptr, bytes.length + 1);
    mem.set(bytes);
    mem[bytes.length] = 0;
    try { return fn(ptr); } finally { wasm.mprof_web_free(ptr); }
  }

  /* A trace's bytes are written straight into WebAssembly memory (no copy
   * kept on the JS side); mprof_web_open() frees them once the model is
   * built.  A loaded trace: {name, ptr, size}. */
  function wasmBytes(ptr, size) { return new Uint8Array(wasm.memory.buffer, ptr, size); }

  /* A trace's bytes, read into WebAssembly memory a slice at a time from
   * next() (fileSlices(), scriptSlices()): the next slice is asked for while
   * this one is copied.  After each slice, onSlice(ptr, bytes in so far), if
   * given, is awaited.  Stops (throws) once another load has begun.  The
   * memory the heap grows by is zero already, so a slice zeroes the bytes it
   * leaves out (runs of zeros) only below the heap's old end. */
  async function loadSlices(name, size, next, load, onSlice) {
    const heapEnd = wasm.memory.buffer.byteLength;
    const ptr = wasm.mprof_web_alloc(size);
    if (!ptr) throw new Error(`${name}: out of memory`);
    const used = Math.max(0, heapEnd - ptr); /* bytes that may hold old data */
    try {
      let slice = next();
      for (let at = 0; at < size;) {
        const s = await slice;
        if (load !== view.loads) throw new Error('another file was opened');
        if (s.end <= at || s.end > size) throw new Error(`${name}: changed while read`);
        if (s.end < size) slice = next();
        s.put(wasmBytes(ptr, size), at, used);
        at = s.end;
        if (onSlice) await onSlice(ptr, at);
        if (load !== view.loads) throw new Error('another file was opened');
      }
    } catch (e) { wasm.mprof_web_free(ptr); throw e; }
    return { name, ptr, size };
  }

  /* A file's slices for loadSlices(): `first` bytes, then `reading.slice`
   * at a time (a slice's ArrayBuffer, two at most, is all the JS side
   * holds). */
  function fileSlices(file, first) {
    let at = 0;
    return () => {
      const start = at;
      at = Math.min(file.size, at + (start ? reading.slice : first));
      const end = at;
      return file.slice(start, end).arrayBuffer().then((b) => ({
        end: start + b.byteLength === end ? end : -1,
        put: (target) => target.set(new Uint8Array(b), start),
      }));
    };
  }

  /* Decode parts [[offset, base64], ...] into target, zeroing the bytes
   * from `at` to each part below `used`; returns where the last part ends.
   * Uint8Array.prototype.setFromBase64 where the browser has it. */
  function putParts(target, parts, at, used) {
    for (const [offset, text] of parts) {
      target.fill(0, at, Math.min(offset, used));
      const part = target.subarray(offset);
      if (part.setFromBase64) {
        at = offset + part.setFromBase64(text).written;
      } else {
        const bytes = base64Bytes(text);
        part.set(bytes);
        at = offset + bytes.length;
      }
    }
    return at;
  }

  /* The slices of a big trace that `mprof html` wrote as scripts
   * (data/T-K.js: slice K of trace T), in order, for loadSlices(): each
   * script calls mprofSlice(T, K, end, [[offset, bytes], ...], function ()
   * {/\*the parts' base64*\/}), whose comment (parsed much faster than a
   * string) is read back with toString.  The first slice's script is added
   * to the page at once, alone (the first frame waits for it); from the
   * second on, `reading.scriptsAhead` more load while one is used (the
   * browser loads several at once faster than one after the other).  In a
   * single file (inline) they are all there. */
  const slicesIn = new Map(); /* 'T K' -> {promise, arrived, failed} */
  function sliceBox(key) {
    if (!slicesIn.has(key)) {
      const box = {};
      box.promise = new Promise((arrived, failed) => Object.assign(box, { arrived, failed }));
      slicesIn.set(key, box);
    }
    return slicesIn.get(key);
  }
  window.mprofSlice = (trace, index, end, spans, fn) => {
    if (document.currentScript) document.currentScript.remove(); /* its text is fn's source now */
    sliceBox(`${trace} ${index}`).arrived({ end, spans, fn });
  };

  function scriptSlices(trace, count, inline) {
    let index = 0, asked = inline ? count : 1;
    if (!inline) addSliceScript(trace, 0); /* now: it loads while the page starts */
    return () => {
      const key = `${trace} ${index}`, box = sliceBox(key);
      for (; index && asked <= Math.min(count - 1, index + reading.scriptsAhead); asked++) addSliceScript(trace, asked);
      index++;
      return box.promise.then(({ end, spans, fn }) => {
        slicesIn.delete(key);
        const source = commentOf(fn);
        let at = 0;
        const parts = spans.map(([offset, bytes]) => {
          const text = source.slice(at, at + Math.ceil(bytes / 3) * 4);
          at += text.length;
          return [offset, text];
        });
        return partsSlice(end, parts);
      });
    };
  }

  /* The script of slice `index` of a trace, added to the page. */
  function addSliceScript(trace, index) {
    const box = sliceBox(`${trace} ${index}`), script = document.createElement('script');
    script.src = `data/${trace}-${index}.js`;
    script.onerror = () => box.failed(new Error(`cannot load ${script.src}`));
    document.head.append(script);
  }

  /* A slice for loadSlices(): parts (putParts()) up to byte `end`, the
   * bytes after the last part zeros. */
  function partsSlice(end, parts) {
    return { end, put: (target, from, used) => target.fill(0, putParts(target, parts, from, used), Math.min(end, used)) };
  }

  /* A trace embedded in the page: {name, size, parts: [[offset, base64],
   * ...]}, the bytes between its parts zeros (`mprof html` leaves out long
   * runs of them), decoded into WebAssembly memory.  The memory the heap
   * grew by for it is zero already (memory.grow zeroes, malloc writes its
   * headers outside the block), so only what lies below the heap's old
   * end is zeroed: pages not written are never touched (a fresh page's
   * first touch costs; most of net.ctf is zeros the reader never reads). */
  function loadBase64(t) {
    const heapEnd = wasm.memory.buffer.byteLength;
    const ptr = wasm.mprof_web_alloc(t.size);
    if (!ptr) throw new Error(`${t.name}: out of memory`);
    const target = wasmBytes(ptr, t.size);
    const used = Math.max(0, heapEnd - ptr); /* bytes that may hold old data */
    partsSlice(t.size, t.parts).put(target, 0, used);
    return { name: t.name, ptr, size: t.size };
  }

  /* Open a loaded trace: the handle, or an exception saying why not. */
  function openTrace(t) {
    const handle = wasm.mprof_web_open(t.ptr, t.size);
    if (!handle) throw new Error(cString(wasm.mprof_web_strerror(wasm.mprof_web_last_error())));
    return handle;
  }

  /* --- Panes ------------------------------------------------------------------ */

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
    wasm.mprof_timeline_show(tl, 0, 0); /* before their models go */
    for (const p of panes) {
      paneResized.unobserve(p.el);
      wasm.mprof_web_close(p.handle);
    }
    panes.length = 0;
    $('panes').replaceChildren(...keep.map((s) => s.el));
  }

  /* Show these loaded traces: one, or two to compare.  A preview of the
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
        try { opened.push(makePane(openTrace(t), t.name, shells[i])); } catch (e) {
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

  /* --- A file shown while it loads ---------------------------------------------- */

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

  /* --- Drawing ------------------------------------------------------------------ */

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

  /* --- View changes ---------------------------------------------------------------- */

  /* --- Compare: one time axis, one scroll, one scale per counter ------------- */

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
    wasm.mprof_timeline_set_range(tl, t0, t1);
    requestDraw();
  }

  function fit() {
    wasm.mprof_timeline_fit(tl);
    requestDraw();
  }

  /* Zoom in by factor around x (CSS px) of pane p. */
  function zoom(p, factor, x) {
    measure(p);
    wasm.mprof_timeline_zoom(tl, panes.indexOf(p), 1 / factor, x);
    requestDraw();
  }

  function pan(p, dxPx, dyPx) {
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

  /* --- Input -------------------------------------------------------------------------- */

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
    const p = panes[0], w = p ? p.el.clientWidth : 1, row = p ? p.summary.row_px : 0;
    const actions = {
      '+': () => zoom(p, ZOOM_STEP, w / 2), '=': () => zoom(p, ZOOM_STEP, w / 2),
      '-': () => zoom(p, 1 / ZOOM_STEP, w / 2), '0': fit,
      ArrowLeft: () => pan(p, w / 8, 0),
      ArrowRight: () => pan(p, -w / 8, 0),
      ArrowUp: () => pan(p, 0, row * 4),
      ArrowDown: () => pan(p, 0, -row * 4),
      '/': () => $('search').focus(), n: nextMatch, o: () => $('file').click(),
      '?': () => { $('help').hidden = !$('help').hidden; },
      Escape: () => { $('help').hidden = true; for (const p of panes) select(p, -1); },
    };
    const action = actions[e.key];
    if (!action || !panes.length && e.key !== '?' && e.key !== 'o') return;
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

  /* Open one or two files (compare). */
  function openFiles(files) {
    const list = [...files].slice(0, 2);
    if (!list.length) return;
    openSources(list.map((f) => ({ name: f.name, size: f.size,
      slices: (preview) => fileSlices(f, preview ? reading.preview : reading.slice) })), performance.now());
  }

  /* Open one or two traces (compare) read a slice at a time: sources
   * [{name, size, slices(preview)}], slices() giving loadSlices() its
   * next(), the first slice small if preview.  One trace is shown while it
   * loads (previewSlice()), in shells[0] if given (embeddedShells()).  The
   * times count from openedAt. */
  async function openSources(sources, openedAt, shells = []) {
    const load = ++view.loads;
    Object.assign(view, { openedAt, openToFrameMs: undefined, openToCompleteMs: undefined,
      timing: {}, previewTried: false, previewFit: null });
    status('opening ' + sources.map((f) => f.name).join(', ') + '…');
    closePanes(shells); /* their memory first */
    const preview = sources.length === 1 && reading.preview > 0;
    const onSlice = preview ? (ptr, have) => previewSlice(sources[0].name, sources[0].size, ptr, have, shells[0]) : null;
    const traces = [];
    try {
      for (const f of sources) traces.push(await loadSlices(f.name, f.size, f.slices(preview), load, onSlice));
    } catch (e) {
      for (const t of traces) wasm.mprof_web_free(t.ptr);
      if (load === view.loads) {
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

  function attachPage() {
    $('open').addEventListener('click', () => $('file').click());
    $('file').addEventListener('change', () => {
      openFiles($('file').files);
      $('file').value = ''; /* the same file chosen again opens again */
    });
    $('zoom-in').addEventListener('click', () => panes[0] && zoom(panes[0], ZOOM_STEP, panes[0].el.clientWidth / 2));
    $('zoom-out').addEventListener('click', () => panes[0] && zoom(panes[0], 1 / ZOOM_STEP, panes[0].el.clientWidth / 2));
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

  /* --- Side panel (text only: textContent) ------------------------------------------- */

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function link(text, p, thread) {
    const b = el('button', text);
    b.type = 'button';
    b.addEventListener('click', () => reveal(p, thread));
    return b;
  }

  function formatNs(ns) {
    const a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
    if (a >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
    if (a >= 1e3) return (ns / 1e3).toFixed(3) + ' µs';
    return Math.round(ns) + ' ns';
  }

  function describeFinding(f) {
    if (f.kind === 'never resolved') return `should resolve, never did${f.last ? ' (last became ' + f.last.name + ')' : ''}`;
    if (f.kind === 'lost wake-up') return `lost wake-up: ${f.condition ? f.condition.name : '?'} signalled before ${f.waiter ? f.waiter.name : '?'} waited`;
    return `in wait chain #${f.chain + 1} (${f.length} threads)`;
  }

  function showDetails(p, thread) {
    const box = $('details');
    const t = p && thread >= 0 ? json(wasm.mprof_web_thread(p.handle, thread)) : null;
    if (!t) { box.replaceChildren(el('span', 'Double-click a thread.')); return; }
    const dl = el('dl');
    const add = (k, v) => { dl.append(el('dt', k)); const dd = el('dd'); dd.append(v); dl.append(dd); };
    add('label', t.name);
    add('type', `${t.type} (id ${t.id})`);
    add('creator', t.creator ? link(t.creator.name, p, t.creator.index) : 'none (before the trace)');
    add('times', `${formatNs(t.start)} – ${formatNs(t.end)} (${formatNs(t.end - t.start)}), ${t.ending}`);
    if (t.failure) add('failure', t.failure);
    if (t.becomes) add('became', link(t.becomes.name, p, t.becomes.index));
    if (t.time) add('time', `running ${formatNs(t.time.running)}, waiting ${formatNs(t.time.waiting)}`);
    if (t.labels.length > 1) add('labels', el('span', t.labels.map((l) => l.text).join(' · ')));
    const acts = el('div');
    for (const i of t.interactions) {
      const text = `${formatNs(i.time)} ${i.kind} ${i.dir} ${i.other ? i.other.name : 'root'}`;
      acts.append(i.other ? link(text, p, i.other.index) : el('div', text));
    }
    add(`interactions (${t.interactions.length})`, acts);
    const finds = el('div');
    for (const f of t.findings) finds.append(el('div', describeFinding(f)));
    add('findings', t.findings.length ? finds : 'none');
    box.replaceChildren(dl);
  }

  function fillFindings() {
    const box = $('findings');
    box.replaceChildren();
    panes.forEach((p) => {
      const f = json(wasm.mprof_web_findings(p.handle));
      if (panes.length > 1) box.append(el('h3', p.name));
      if (!f) { box.append(el('span', 'analysis failed: out of memory')); return; }
      const before = box.childElementCount;
      for (const s of f.stalls) if (s.thread) box.append(link(`never resolved: ${s.thread.name}`, p, s.last ? s.last.index : s.thread.index));
      for (const l of f.lost_wakeups) if (l.waiter) box.append(link(`lost wake-up: ${l.condition ? l.condition.name : '?'} → ${l.waiter.name}`, p, l.waiter.index));
      f.chains.slice(0, 5).forEach((c) => {
        const first = c.threads.find((t) => t);
        if (first) box.append(link(`wait chain (${c.threads.length}): ${c.threads.filter((t) => t).map((t) => t.name).join(' → ')}`, p, first.index));
      });
      if (box.childElementCount === before) box.append(el('div', 'Nothing found.'));
    });
    view.analysed = true;
  }

  /* One toggle per counter name, for every pane that has it. */
  function fillCounters() {
    const box = $('counters');
    box.replaceChildren();
    const names = [...new Set(panes.flatMap((p) => p.summary.counters))];
    for (const name of names) {
      const label = el('label');
      const check = el('input');
      check.type = 'checkbox';
      check.checked = true;
      check.addEventListener('change', () => {
        for (const p of panes) {
          const i = p.summary.counters.indexOf(name);
          if (i >= 0) wasm.mprof_timeline_show_counter(tl, panes.indexOf(p), i, check.checked ? 1 : 0);
        }
        requestDraw();
      });
      label.append(check, el('span', name));
      box.append(label, el('br'));
    }
    if (!names.length) box.append(el('span', 'none'));
  }

  function fillLegend(entries) {
    const skip = new Set(['background', 'label', 'time axis']);
    const box = $('legend');
    box.replaceChildren();
    for (const c of entries) {
      if (skip.has(c.name)) continue;
      const sw = el('span', undefined, 'swatch');
      sw.style.background = c.rgb;
      const li = el('li');
      li.append(sw, el('span', c.name));
      box.append(li);
    }
  }

  function status(text) { $('status').textContent = text; }

  /* --- Start --------------------------------------------------------------------------- */

  /* For tests and benchmarks: where a thread is drawn, and frame times. */
  window.mprofViewer = {
    view,
    panes,
    ready: false,
    search: (q) => { $('search').value = q; onSearch(); },
    find(paneIndex, name) {
      const n = withCString(name, (ptr) => wasm.mprof_timeline_search(tl, ptr));
      const i = n ? wasm.mprof_timeline_next_match(tl, paneIndex, -1) : -1;
      withCString($('search').value, (ptr) => wasm.mprof_timeline_search(tl, ptr));
      return i >= 0 ? json(wasm.mprof_web_thread(panes[paneIndex].handle, i)) : null;
    },
    /* pane i's display list as last drawn (texts included), and an
     * arrow's kind */
    displayList(i) {
      const p = panes[i], ptr = wasm.mprof_timeline_prims(tl, i), buffer = wasm.memory.buffer, n = Math.max(0, p.prims);
      const f = new Float32Array(buffer, ptr, n * PRIM_WORDS), u = new Uint32Array(buffer, ptr, n * PRIM_WORDS);
      const texts = wasm.mprof_timeline_text(tl, i), mem = new Uint8Array(buffer);
      return Array.from({ length: n }, (_, k) => {
        const o = k * PRIM_WORDS;
        return { x0: f[o], y0: f[o + 1], x1: f[o + 2], y1: f[o + 3], kind: u[o + 4], colour: u[o + 5],
          alpha: f[o + 6], width: f[o + 7], thread: u[o + 8], role: u[o + 9] & 15,
          text: u[o + 4] === PRIM_TEXT ? textAt(mem, texts + (u[o + 9] >>> 4)) : '' };
      });
    },
    arrowKind: (i, arrow) => cString(wasm.mprof_web_arrow_kind(panes[i].handle, arrow)),
    setRange, scrollTo, redraw: drawAll, reading,
    wasmMemoryBytes: () => wasm.memory.buffer.byteLength,
  };

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
   * text loads the font, so the first frame no longer waits for them. */
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

  /* Paint frame f's primitives u (words) mapped to a pane of w x h, as a
   * stand-in for the model's frame there: x scaled to the pane's width
   * (the same time range); the counter strips (from the first counter
   * primitive's top down) moved with the pane's bottom edge, and the bands
   * and ticks that end at their top with it; the rows at their y, less
   * what lies wholly below the pane's rows (as the scene leaves it out).
   * Texts keep their size: each is drawn at its mapped anchor, cut to its
   * mapped width. */
  function paintStandIn(ctx, f, u, text, w, h) {
    const fl = new Float32Array(u.buffer, 0, u.length), count = u.length / PRIM_WORDS;
    let top = f.height;
    for (let o = 0; o < u.length; o += PRIM_WORDS) if ((u[o + 9] & 15) === ROLE_COUNTER) top = Math.min(top, fl[o + 1]);
    const sx = w / f.width, dy = h - f.height, out = new Uint32Array(u.length), of = new Float32Array(out.buffer);
    let n = 0;
    for (let i = 0; i < count; i++) {
      const o = i * PRIM_WORDS, role = u[o + 9] & 15, y = [fl[o + 1], fl[o + 3]];
      if (role === ROLE_COUNTER) y.forEach((v, k) => { y[k] = v + dy; });
      else if (role === ROLE_BAND || role === ROLE_AXIS) y.forEach((v, k) => { if (v === top) y[k] = v + dy; });
      else if (Math.min(y[0], y[1]) > top + dy) continue;
      out.set(u.subarray(o, o + PRIM_WORDS), n);
      of[n] = fl[o] * sx;
      of[n + 1] = y[0];
      of[n + 2] = fl[o + 2] * sx;
      of[n + 3] = y[1];
      n += PRIM_WORDS;
    }
    paint(ctx, of.subarray(0, n), out.subarray(0, n), text, 0);
  }

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
    const sliced = data.map((t, i) => t.slices && scriptSlices(i, t.slices, t.inline)); /* first slices load now */
    if (!view.firstFrameNative && !view.firstFrameStandIn) warmUp(shells);
    mark('canvas');
    await compiled;
    mark('wasm');
    view.openedAt = 0; /* from the navigation */
    view.timing = {};
    if (data.some((t) => t.slices)) { /* a big trace: shown from its first slice on */
      await openSources(data.map((t, i) => ({ name: t.name, size: t.size,
        slices: () => (t.slices ? sliced[i] : () => Promise.resolve(partsSlice(t.size, t.parts))) })), 0, shells);
    } else if (data.length) {
      const read = performance.now();
      const traces = data.map(loadBase64);
      view.timing.readMs = performance.now() - read;
      showTraces(traces, shells);
    }
    window.mprofViewer.ready = true;
  }

  start().catch((e) => status('viewer failed: ' + e.message));
})();
