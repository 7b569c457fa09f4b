/* viewer_page.js -- what test_viewer.js's tests share: the browser (headless
 * Chromium through playwright-core), a page of the viewer opened and
 * ready, where a thread is drawn, pixels of its canvases, its display
 * list and palette, and how a load is held.  The command line
 * (ARTIFACTS NET_CTF [TEST...]) is read here. */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const [out, netCtf, ...only] = process.argv.slice(2); /* only: these tests (their names), if any */

const AXIS = 20, ROW = 16;

const COLOURS = { thread: [0, 0, 0], stalled: [255, 0, 0], match: [255, 238, 0], highlight: [0, 192, 255] };

function check(cond, what) {
  if (!cond) throw new Error('FAIL: ' + what);
}

async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'mprof-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1200, height: 700 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return { context, profile };
}

/* Windows `mprof html` builds a trace's first frame for (of six:
 * cli/html_frame.c). */
const FRAME_WINDOWS = [{ width: 1600, height: 900 }, { width: 1280, height: 720 }, { width: 1920, height: 1080 }];

const FRAME_WINDOW = FRAME_WINDOWS[0];

/* A page of the viewer, its dialogs and errors recorded, in a window of
 * the context's size or of viewport's, once ready(). */
async function open(context, file, viewport = null,
  ready = () => window.mprofViewer && window.mprofViewer.ready && window.mprofViewer.view.analysed) {
  const page = await context.newPage();
  page.dialogs = [];
  page.errors = [];
  page.on('dialog', (d) => { page.dialogs.push(d.message()); d.dismiss(); });
  page.on('pageerror', (e) => page.errors.push(e.message));
  if (viewport) await page.setViewportSize(viewport);
  await page.goto('file://' + path.resolve(out, file));
  await page.waitForFunction(ready, null, { timeout: 30000 });
  await redraw(page);
  return page;
}

const redraw = (page) => page.evaluate(() => window.mprofViewer.redraw());

/* The name column's width in a pane w px wide (scene.h: 120 px, a
 * quarter of a pane narrower than 480). */
const namesPx = (w) => (w >= 480 ? 120 : Math.floor(w / 4));

/* Where thread `name` is drawn in pane `pane`: x of its start, end, middle
 * (clipped to the time range, right of the name column) and y of its
 * row. */
async function where(page, name, pane = 0) {
  return page.evaluate(([name, pane, AXIS, ROW]) => {
    const v = window.mprofViewer, p = v.panes[pane], t = v.find(pane, name);
    if (!t) return null;
    const w = p.canvas.clientWidth, span = v.view.t1 - v.view.t0, n = w >= 480 ? 120 : Math.floor(w / 4); /* namesPx */
    const x = (ns) => Math.min(w - 1, Math.max(n, n + (ns + p.offset - v.view.t0) / span * (w - n)));
    return { t, x0: x(t.start), x1: x(t.end), xm: (x(t.start) + x(t.end)) / 2,
      y: AXIS + t.row * ROW + ROW / 2 - p.scroll, w, canvasTop: p.canvas.getBoundingClientRect().top,
      canvasLeft: p.canvas.getBoundingClientRect().left };
  }, [name, pane, AXIS, ROW]);
}

async function pixel(page, x, y, pane = 0) {
  return page.evaluate(([x, y, pane]) => {
    const c = window.mprofViewer.panes[pane].canvas;
    return Array.from(c.getContext('2d').getImageData(Math.round(x), Math.round(y), 1, 1).data.slice(0, 3));
  }, [x, y, pane]);
}

/* Drag the mouse from (x, y) by (dx, dy), in two halves, and redraw. */
async function drag(page, x, y, dx, dy) {
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx / 2, y + dy / 2, { steps: 4 });
  await page.mouse.move(x + dx, y + dy, { steps: 4 });
  await page.mouse.up();
  await redraw(page);
}

const near = (a, b) => a.every((v, i) => Math.abs(v - b[i]) <= 24);

async function shot(page, name) {
  await page.screenshot({ path: path.join(out, name + '.png') });
}

const text = (page, sel) => page.textContent(sel);

/* The canvas's pixels in a page: a hash of them, how many differ from the
 * background, and the pixel at (x, y). */
async function canvasPixels(page, x, y) {
  return page.evaluate(([x, y]) => {
    const c = document.querySelector('#panes canvas'), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let hash = 2166136261, drawn = 0;
    for (let i = 0; i < d.length; i++) hash = Math.imul(hash ^ d[i], 16777619) >>> 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] !== 232 || d[i + 1] !== 232 || d[i + 2] !== 232) drawn++;
    const at = (Math.round(y) * c.width + Math.round(x)) * 4;
    return { hash, drawn, at: Array.from(d.slice(at, at + 3)), native: !!window.mprofViewer.view.firstFrameNative };
  }, [x, y]);
}

/* In windows of sizes `mprof html` built no frame for, the page paints a
 * stand-in mapped from the nearest frame built (both scaled down here:
 * a stretched text would show) until the model's frame replaces it.  The
 * stand-in alone (the page without data.js) against the model's frame:
 * net.ctf's first threads' lines on the same pixel rows, their ends
 * within 2 px; the counter strips' lines at the same rows; the whole
 * pane painted; Gntshr.grant_access's label as wide and tall as the
 * model's (not stretched). */
const STAND_IN_WINDOWS = [{ width: 1111, height: 777 }, { width: 1700, height: 1000 }];

const ROLE_THREAD = 3, ROLE_COUNTER = 8;

/* The pane's canvas on a page with or without a model: its size, whether
 * every pixel is opaque, and the x extent of the pixels of colour rgb on
 * each of rows [{y, x0, x1, rgb}] between x0 and x1 (and 10 px more each
 * side), null where there are none. */
async function canvasRows(page, rows) {
  return page.evaluate((rows) => {
    const c = document.querySelector('#panes canvas'), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let opaque = true;
    for (let i = 3; i < d.length; i += 4) if (d[i] !== 255) { opaque = false; break; }
    const drawn = (x, r) => { const i = (r.y * c.width + x) * 4; return r.rgb.every((v, k) => Math.abs(d[i + k] - v) <= 40); };
    const extents = rows.map((r) => {
      let lo = null, hi = null;
      for (let x = Math.max(0, Math.floor(r.x0) - 10); x <= Math.min(c.width - 1, Math.ceil(r.x1) + 10); x++) {
        if (drawn(x, r)) { if (lo === null) lo = x; hi = x; }
      }
      return lo === null ? null : [lo, hi];
    });
    return { w: c.width, h: c.height, paneW: c.parentElement.clientWidth, paneH: c.parentElement.clientHeight, opaque,
      extents };
  }, rows);
}

/* The dark pixels' bounding box of the region r ({x0, y0, x1, y1}) of the
 * pane's canvas. */
async function inkBox(page, r) {
  return page.evaluate((r) => {
    const c = document.querySelector('#panes canvas'), d = c.getContext('2d').getImageData(r.x0, r.y0, r.x1 - r.x0, r.y1 - r.y0).data;
    let x0 = Infinity, y0 = Infinity, x1 = -1, y1 = -1;
    for (let y = 0; y < r.y1 - r.y0; y++) {
      for (let x = 0; x < r.x1 - r.x0; x++) {
        const i = (y * (r.x1 - r.x0) + x) * 4;
        if (d[i] < 100 && d[i + 1] < 100 && d[i + 2] < 100) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
      }
    }
    return { w: x1 - x0 + 1, h: y1 - y0 + 1 };
  }, r);
}

/* The pane's canvas's pixels on row y, as [r, g, b] per x (with or
 * without a model). */
async function pixelRowOf(page, y) {
  return page.evaluate((y) => {
    const c = document.querySelector('#panes canvas'), d = c.getContext('2d').getImageData(0, y, c.width, 1).data;
    return Array.from({ length: c.width }, (_, x) => [d[4 * x], d[4 * x + 1], d[4 * x + 2]]);
  }, y);
}

/* Pane `pane`'s pixels on row y, as [r, g, b] per x. */
async function pixelRow(page, y, pane) {
  return page.evaluate(([y, pane]) => {
    const c = window.mprofViewer.panes[pane].canvas;
    const d = c.getContext('2d').getImageData(0, Math.round(y), c.width, 1).data;
    const row = [];
    for (let x = 0; x < c.width; x++) row.push([d[4 * x], d[4 * x + 1], d[4 * x + 2]]);
    return row;
  }, [y, pane]);
}

const BACKGROUND = [232, 232, 232], COUNTER = [136, 14, 79];

/* Read files chosen next in 256 KiB slices, the preview after the first;
 * with hold, the load waits after its preview until releaseLoad(). */
async function slices(page, hold) {
  await page.evaluate((hold) => {
    const r = window.mprofViewer.reading;
    r.slice = r.preview = 256 << 10;
    r.gate = hold ? new Promise((go) => { window.releaseLoad = go; }) : null;
  }, hold);
}

/* How many pixels of thread w's row (see where()), from its start to its
 * end, are not the background. */
async function drawnOn(page, w) {
  const row = await pixelRow(page, w.y, 0);
  return row.slice(Math.floor(w.x0), Math.ceil(w.x1) + 1).filter((c) => c.join() !== BACKGROUND.join()).length;
}

const range = (page) => page.evaluate(() => [window.mprofViewer.view.t0, window.mprofViewer.view.t1]);

/* Hold the load of the page opened next after its preview, until
 * releaseLoad(): the gate is set as viewer.js makes window.mprofViewer. */
async function holdAfterPreview(page) {
  await page.addInitScript(() => {
    Object.defineProperty(window, 'mprofViewer', { configurable: true,
      set(v) {
        Object.defineProperty(window, 'mprofViewer', { value: v, writable: true, configurable: true });
        v.reading.gate = new Promise((go) => { window.releaseLoad = go; });
      } });
  });
}

const hexRgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

const ROLE_BAND = 0, ROLE_AXIS = 1, ROLE_MARK = 2, ROLE_ARROW = 5, ROLE_NAME = 10, COUNTER_STRIP = 40;

/* The palette the page's model draws with (its summary: the wasm's
 * mprof_scene_palette), and the display list of pane 0 as last drawn. */
const palette = (page) => page.evaluate(() => window.mprofViewer.panes[0].summary.palette);

const displayList = (page) => page.evaluate(() => window.mprofViewer.displayList(0));

/* Of the pixels within a pixel of line a's middle half, the one most
 * covered by colour rgb over the background bg (a slanted line is
 * antialiased: px = bg + cover * (rgb - bg), to 8 levels): its colour and
 * cover (0 if none is). */
async function covered(page, a, rgb, bg) {
  return page.evaluate(([a, rgb, bg]) => {
    const d = window.mprofViewer.panes[0].canvas.getContext('2d');
    let best = { c: null, cover: 0 };
    const dc = rgb.map((v, j) => v - bg[j]), norm = dc.reduce((n, v) => n + v * v, 0);
    for (let k = 0; k <= 8; k++) {
      const x = Math.round(a.x0 + (a.x1 - a.x0) * (0.25 + k / 16)), y = Math.round(a.y0 + (a.y1 - a.y0) * (0.25 + k / 16));
      const px = d.getImageData(x - 1, y - 1, 3, 3).data;
      for (let i = 0; i < px.length; i += 4) {
        const c = [px[i], px[i + 1], px[i + 2]];
        const cover = c.reduce((n, v, j) => n + (v - bg[j]) * dc[j], 0) / norm;
        const off = Math.max(...c.map((v, j) => Math.abs(v - bg[j] - cover * dc[j])));
        if (off <= 8 && cover > best.cover) best = { c, cover };
      }
    }
    return best;
  }, [a, rgb, bg]);
}

/* The counter colour's pixels of pane 0, in the strip of each counter
 * shown (stacked at the bottom in the summary's order) and in all. */
async function counterPixels(page) {
  return page.evaluate(([STRIP]) => {
    const p = window.mprofViewer.panes[0], c = p.canvas;
    const rgb = p.summary.palette.find((e) => e.name === 'counter').rgb;
    const want = [1, 3, 5].map((i) => parseInt(rgb.slice(i, i + 2), 16));
    const checked = new Map([...document.querySelectorAll('#counters label')]
      .map((l) => [l.querySelector('span').textContent, l.querySelector('input').checked]));
    const shown = p.summary.counters.filter((n) => checked.get(n));
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const count = (y0, y1) => {
      let n = 0;
      for (let i = y0 * c.width * 4; i < y1 * c.width * 4; i += 4) if (d[i] === want[0] && d[i + 1] === want[1] && d[i + 2] === want[2]) n++;
      return n;
    };
    const strips = {};
    shown.forEach((name, k) => { const top = c.height - (shown.length - k) * STRIP; strips[name] = count(top, top + STRIP); });
    return { strips, total: count(0, c.height) };
  }, [COUNTER_STRIP]);
}

async function toggleCounter(page, name) {
  await page.click(`#counters label:has(span:text-is("${name}")) input`);
  await redraw(page);
}

module.exports = {
  out, netCtf, only, AXIS, ROW, COLOURS, check, launch, FRAME_WINDOWS, FRAME_WINDOW, open, redraw,
  where, pixel, drag, near, shot, text, canvasPixels, STAND_IN_WINDOWS, ROLE_THREAD, ROLE_COUNTER,
  canvasRows, inkBox, pixelRowOf, pixelRow, BACKGROUND, COUNTER, slices, drawnOn, range,
  holdAfterPreview, hexRgb, ROLE_BAND, ROLE_AXIS, ROLE_MARK, ROLE_ARROW, ROLE_NAME, COUNTER_STRIP, palette, displayList,
  namesPx,
  covered, counterPixels, toggleCounter
};
