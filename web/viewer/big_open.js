/* big_open.js -- a trace bigger than the page should hold (reading.bigFrom
 * bytes or more), opened by its index (web/wasm/big.c): only its head,
 * its index and, later, the packets of the window shown are read, each
 * with one File.slice() (or from the slices `mprof html` wrote).  The
 * index is the trace's .mpidx when one comes with it (picked or dropped
 * with the trace, or written by `mprof html`) and is good and of this
 * trace; else it is built here, a stretch of reading.slice bytes of the
 * trace's packets at a time.  A window's model is built from an image of
 * the packets the index names for it (big_view.js). */

/* The big trace open, or null: {handle (mprof_web_big_t), source, name,
 * size, headSize, packetSize, summary, rows, indexFrom ('file' or
 * 'built'), indexRejected (why the .mpidx given was not believed),
 * reads ([[start, end], ...]: every slice read), t0, t1 (the range
 * shown), mode ('density' or 'window'), window ({t0, t1, packets,
 * bytes} of the model shown), failed (the window last planned that could
 * not be read or modelled: windowKey()), timing (of that window's load,
 * ms: planMs, readMs, modelMs, drawMs), shell}. */
let big = null;

/* A file read with File.slice(), each read counted in big.reads. */
function fileSource(file) {
  return { name: file.name, size: file.size,
    read: (start, end) => file.slice(start, end).arrayBuffer().then((b) => new Uint8Array(b)) };
}

/* Trace `trace` of the page (`mprof html`'s slices, data/T-K.js, slice K
 * starting at byte starts[K]) read as a file: a read loads the scripts of
 * the slices it touches (scriptSlice()), the last few kept decoded. */
function slicedSource(trace, t) {
  const decoded = new Map(); /* K -> promise of [[offset, bytes], ...] */
  const slice = (k) => {
    if (!decoded.has(k)) {
      if (decoded.size >= 4) decoded.delete(decoded.keys().next().value);
      decoded.set(k, scriptSlice(trace, k));
    }
    return decoded.get(k);
  };
  const sliceOf = (at) => {
    let k = 0;
    while (k + 1 < t.starts.length && t.starts[k + 1] <= at) k++;
    return k;
  };
  return { name: t.name, size: t.size, read: async (start, end) => {
    const out = new Uint8Array(end - start); /* the bytes between parts are zeros */
    for (let k = sliceOf(start); k < t.starts.length && (t.starts[k] < end || k === sliceOf(start)); k++) {
      for (const [offset, bytes] of await slice(k)) {
        const a = Math.max(start, offset), z = Math.min(end, offset + bytes.length);
        if (a < z) out.set(bytes.subarray(a - offset, z - offset), a - start);
      }
    }
    return out;
  } };
}

/* The index `mprof html` wrote for trace `trace` (data/T-index.js, which
 * calls mprofIndex(T, function () {/\*base64*\/})). */
function scriptIndex(trace) {
  return { mtimeMs: -1, read: () => new Promise((done, failed) => {
    window.mprofIndex = (t, fn) => {
      if (document.currentScript) document.currentScript.remove();
      if (t === trace) done(base64Bytes(commentOf(fn)));
    };
    const script = document.createElement('script');
    script.src = `data/${trace}-index.js`;
    script.onerror = () => failed(new Error(`cannot load ${script.src}`));
    document.head.append(script);
  }) };
}

/* bytes copied into WebAssembly memory for fn(ptr, length). */
function withBytes(bytes, fn) {
  const ptr = wasm.mprof_web_alloc(bytes.length);
  if (!ptr) throw new Error('out of memory');
  wasmBytes(ptr, bytes.length).set(bytes);
  try { return fn(ptr, bytes.length); } finally { wasm.mprof_web_free(ptr); }
}

/* The reads of big traces started and settled, of any trace: a test
 * waits until each read it let go has settled (test_hooks.js). */
const bigReadCount = { started: 0, settled: 0 };

/* Read [start, end) of the big trace b, noted in b.reads. */
async function bigRead(b, start, end) {
  b.reads.push([start, end]);
  bigReadCount.started++;
  try {
    const bytes = await b.source.read(start, end);
    stillOpen(b);
    if (bytes.length !== end - start) throw new Error(`${b.name}: changed while read`);
    return bytes;
  } finally {
    bigReadCount.settled++;
  }
}

/* Throws unless b is still the big trace open: a file opened while b
 * was read closed it, and its handle is freed. */
function stillOpen(b) {
  if (big !== b) throw new Error('another file was opened');
}

function closeBig() {
  if (!big) return;
  if (tl) wasm.mprof_timeline_show(tl, 0, 0);
  wasm.mprof_web_big_close(big.handle);
  big = null;
}

/* The trace's head: its header's packets_offset bytes. */
async function bigHead(source) {
  const header = await source.read(0, Math.min(64, source.size));
  const magic = new TextDecoder().decode(header.subarray(0, 8));
  if (header.length < 64 || magic !== 'MPROFCTF') throw new Error('not an mprof trace');
  const headSize = Number(new DataView(header.buffer, header.byteOffset).getBigUint64(56, true));
  if (headSize < 64 || headSize > Math.min(source.size, 64 << 20)) throw new Error('bad header');
  return source.read(0, headSize);
}

/* Open source ({name, size, read(start, end)}) by its index: the index
 * file's bytes index (or null) if good, else one built here; then its
 * first frame, from the index alone.  Times count from openedAt. */
async function openBig(source, index, openedAt) {
  const load = ++view.loads;
  Object.assign(view, { openedAt, openToFrameMs: undefined, openToCompleteMs: undefined, timing: {} });
  closePanes();
  closeBig();
  status(`opening ${source.name}…`);
  try {
    const head = await bigHead(source);
    const handle = withBytes(head, (ptr, n) => wasm.mprof_web_big_new(ptr, n, source.size));
    if (!handle) throw new Error('not an mprof trace');
    if (load !== view.loads) { wasm.mprof_web_big_close(handle); return; }
    const b = { handle, source, name: source.name, size: source.size, headSize: head.length,
      packetSize: wasm.mprof_web_big_packet_size(handle), reads: [[0, 64], [0, head.length]],
      indexFrom: null, indexRejected: null, mode: 'density', window: null, busy: false, failed: null };
    big = b;
    if (index) await useIndexFile(b, index);
    if (!b.indexFrom) await buildIndex(b);
  } catch (e) {
    if (load !== view.loads) return;
    loading(1);
    closeBig();
    status(`cannot read ${source.name}: ${e.message}`);
    return;
  }
  if (load !== view.loads) return;
  view.timing.readMs = performance.now() - openedAt;
  loading(1);
  big.summary = json(wasm.mprof_web_big_summary(big.handle));
  big.rows = Array.from({ length: big.summary.rows }, (_, i) => wasm.mprof_web_big_row(big.handle, i));
  big.process = cString(wasm.mprof_web_big_process(big.handle));
  showDensity(0, Math.max(1, big.summary.duration));
  showBig(big.t0, big.t1); /* its model, if the whole fits the budget */
}

/* The index file given ({name, read(), mtimeMs}), if it is good and of
 * this trace; why not in big.indexRejected. */
async function useIndexFile(b, index) {
  const bytes = await index.read();
  stillOpen(b);
  const why = withBytes(bytes, (ptr, n) => cString(wasm.mprof_web_big_use_index(b.handle, ptr, n, index.mtimeMs)));
  if (why) b.indexRejected = why; else b.indexFrom = 'file';
}

/* Index the trace here: its whole slots, reading.slice bytes of them at
 * a time, each stretch indexed from an image of it. */
async function buildIndex(b) {
  const slots = Math.floor((b.size - b.headSize) / b.packetSize);
  const per = Math.max(1, Math.floor(reading.slice / b.packetSize));
  for (let first = 0; first < slots; first += per) {
    const n = Math.min(per, slots - first), at = b.headSize + first * b.packetSize;
    loading(at / b.size);
    $('loading').textContent = `indexing ${Math.floor(at / b.size * 100)} %`;
    const bytes = await bigRead(b, at, at + n * b.packetSize);
    const image = wasm.mprof_web_big_image(b.handle, n);
    if (!image) throw new Error('out of memory');
    wasmBytes(image + b.headSize, bytes.length).set(bytes);
    const err = wasm.mprof_web_big_index_image(b.handle, image, n, at);
    if (err) throw new Error(cString(wasm.mprof_web_strerror(err)));
  }
  b.indexFrom = 'built';
}

/* Of files picked or dropped: a trace and its index (.mpidx), if the
 * trace is big; else null. */
function bigFiles(files) {
  const index = files.find((f) => f.name.endsWith('.mpidx'));
  const traces = files.filter((f) => f !== index);
  if (traces.length !== 1 || traces[0].size < reading.bigFrom) return null;
  return { trace: traces[0], index: index && { name: index.name, mtimeMs: traces[0].lastModified,
    read: () => index.arrayBuffer().then((b) => new Uint8Array(b)) } };
}
