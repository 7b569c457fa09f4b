/* load.js -- a trace's bytes into WebAssembly memory: from a file a
 * slice at a time, from the scripts `mprof html` wrote a big trace into,
 * or from base64 embedded in the page; and opening them. */

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
      return partsSlice(end, sliceParts(spans, fn));
    });
  };
}

/* A slice script's parts, [[offset, base64], ...]: its spans' base64, in a
 * row in fn's comment. */
function sliceParts(spans, fn) {
  const source = commentOf(fn);
  let at = 0;
  return spans.map(([offset, bytes]) => {
    const text = source.slice(at, at + Math.ceil(bytes / 3) * 4);
    at += text.length;
    return [offset, text];
  });
}

/* Slice `index` of a trace as [[offset, bytes], ...], its script loaded
 * now (a big trace read by its index: big_open.js). */
function scriptSlice(trace, index) {
  const key = `${trace} ${index}`, box = sliceBox(key);
  addSliceScript(trace, index);
  return box.promise.then(({ spans, fn }) => {
    slicesIn.delete(key);
    return sliceParts(spans, fn).map(([offset, text]) => [offset, base64Bytes(text)]);
  });
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
 * ...], capture (if it is one, panes.js)}, the bytes between its parts zeros (`mprof html` leaves out long
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
  return { name: t.name, ptr, size: t.size, capture: t.capture };
}

/* Open a loaded trace: the handle, or an exception saying why not. */
function openTrace(t) {
  const handle = wasm.mprof_web_open(t.ptr, t.size);
  if (!handle) throw new Error(cString(wasm.mprof_web_strerror(wasm.mprof_web_last_error())));
  return handle;
}
