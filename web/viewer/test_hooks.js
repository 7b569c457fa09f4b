/* test_hooks.js -- window.mprofViewer, for tests and benchmarks: the view
 * and panes, where a thread is, the selected thread, a pane's display
 * list, frame times. */

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
  selected: (i) => wasm.mprof_timeline_selected(tl, i),
  thread: (i, t) => json(wasm.mprof_web_thread(panes[i].handle, t)),
  arrowKind: (i, arrow) => cString(wasm.mprof_web_arrow_kind(panes[i].handle, arrow)),
  setRange, scrollTo, redraw: drawAll, reading,
  wasmMemoryBytes: () => wasm.memory.buffer.byteLength,
  /* the big trace open by its index (big_open.js), or null */
  big: () => big && { mode: big.mode, indexFrom: big.indexFrom, indexRejected: big.indexRejected, reads: big.reads,
    headSize: big.headSize, packetSize: big.packetSize, summary: big.summary, window: big.window, busy: big.busy,
    t0: big.t0, t1: big.t1, density: big.lastDensity, timing: big.timing },
  /* where the big trace open reads from ({read(start, end)}: a test may
   * hold or cut its reads), or null */
  bigSource: () => big && big.source,
  /* the big traces' reads started and settled so far ({started,
   * settled}): equal once none is pending */
  bigReadCount: () => ({ ...bigReadCount }),
  /* an image of the big trace open of `slots` slots made and freed: its
   * address, 0 if none was made */
  bigImage(slots) {
    const at = wasm.mprof_web_big_image(big.handle, slots);
    if (at) wasm.mprof_web_free(at);
    return at;
  },
  /* from now on, the name of each call of the module's functions `names`
   * pushed on `calls` (returned) */
  spyWasm(names) {
    const calls = [], exports = wasm;
    wasm = { ...exports };
    for (const name of names) wasm[name] = (...args) => { calls.push(name); return exports[name](...args); };
    return calls;
  },
};
