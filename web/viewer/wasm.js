/* wasm.js -- the WebAssembly side: the module instantiated from the
 * page's base64, and C strings and JSON answers across its memory. */

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
