/* test_viewer.js -- the browser viewer in Debian's Chromium (headless, via
 * playwright-core): what is drawn (pixels at known thread rows), the side
 * panel after a double-click, search highlights, zoom, findings, the
 * compare view, opening a file, the first frame `mprof html` builds (and
 * its stand-in in windows of other sizes), a
 * trace in slices (from file:// and HTTP; no first frame built), labels
 * that are HTML or script, the legend, counter toggles, idle bands, the
 * keys the help lists, a pane drawn again when its size changes, and the
 * desktop viewer's display list for the same trace, size and view.
 *
 *   node test_viewer.js ARTIFACTS NET_CTF [TEST...]   (run by test_viewer.sh;
 *   TEST: run only the tests of these names)
 */
'use strict';
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
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

/* Where thread `name` is drawn in pane `pane`: x of its start, end, middle
 * (clipped to the canvas) and y of its row. */
async function where(page, name, pane = 0) {
  return page.evaluate(([name, pane, AXIS, ROW]) => {
    const v = window.mprofViewer, p = v.panes[pane], t = v.find(pane, name);
    if (!t) return null;
    const w = p.canvas.clientWidth, span = v.view.t1 - v.view.t0;
    const x = (ns) => Math.min(w - 1, Math.max(0, (ns + p.offset - v.view.t0) / span * w));
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

/* --- The tests ---------------------------------------------------------------- */

async function testNet(context) {
  const started = Date.now();
  const page = await open(context, 'net/index.html');
  const loadMs = Date.now() - started;
  check((await text(page, '#status')).includes('1817 threads'), 'net.ctf: 1817 threads in the status line');
  const g = await where(page, 'Gntshr.grant_access');
  check(g, 'net.ctf: the thread Gntshr.grant_access exists');
  const line = await pixel(page, g.xm, g.y);
  check(!near(line, [232, 232, 232]) && !near(line, [180, 180, 180]),
    `net.ctf: something is drawn on Gntshr.grant_access's row (${line})`);
  check((await page.$$('#counters input')).length === 4, 'net.ctf: four counter toggles');
  check(!(await page.evaluate(() => window.mprofViewer.view.firstFrameNative)),
    'net.ctf: no native first frame in a window of another size than it was built for');
  await shot(page, 'net');
  console.log(`net.ctf opened and drawn in ${loadMs} ms`);
  await page.close();
}

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

/* The first frame `mprof html` built natively, painted before the page's
 * model exists (in windows of sizes it was built for), is the picture the
 * model then draws: a copy of the page without data.js shows it alone;
 * the page, and the single file, replace it with the model's. */
async function testFirstFrame(context) {
  for (const size of FRAME_WINDOWS) await firstFrameIn(context, size);
}

async function firstFrameIn(context, size) {
  const at = `first frame, ${size.width}x${size.height}`;
  const model = await open(context, 'net/index.html', size);
  const g = await where(model, 'Gntshr.grant_access');
  const drawn = await canvasPixels(model, g.xm, g.y);
  check(drawn.native, at + ': the page painted the native first frame');
  check((await text(model, '#status')).includes('1817 threads'), at + ': then the model is ready (status)');
  const alone = await open(context, 'net-frame/index.html', size,
    () => window.mprofViewer && window.mprofViewer.view.openToFrameMs !== undefined);
  await alone.waitForFunction(() => document.getElementById('status').textContent.includes('data.js'));
  const first = await canvasPixels(alone, g.xm, g.y);
  await shot(alone, `first-frame-${size.width}x${size.height}`);
  check(first.native && !(await text(alone, '#status')).includes('threads'),
    at + ': drawn without the model (the status says it did not load)');
  check(await text(alone, '#range') === await text(model, '#range'), at + ': the time range of the fit view');
  check(!near(first.at, [232, 232, 232]) && first.at.join() === drawn.at.join(),
    at + `: Gntshr.grant_access's row drawn as the model draws it (${first.at} / ${drawn.at})`);
  check(first.drawn > 100000 && first.drawn === drawn.drawn && first.hash === drawn.hash,
    at + `: the same pixels as the model's frame (${first.drawn} drawn, hash ${first.hash} / ${drawn.drawn}, ${drawn.hash})`);
  const single = await open(context, 'net.html', size);
  const again = await canvasPixels(single, g.xm, g.y);
  check(again.native && again.hash === drawn.hash, at + ': the single file paints it too, then the same frame');
  for (const p of [model, alone, single]) {
    check(p.errors.length === 0, at + ': no page errors: ' + p.errors);
    await p.close();
  }
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
async function testStandIn(context) {
  for (const size of STAND_IN_WINDOWS) await standInIn(context, size);
}

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

async function standInIn(context, size) {
  const at = `stand-in, ${size.width}x${size.height}`;
  const model = await open(context, 'net/index.html', size);
  check(!(await model.evaluate(() => window.mprofViewer.view.firstFrameNative)), at + ': no frame built for this size');
  const list = await displayList(model), pal = await palette(model);
  /* the first twelve rows' first opaque thread lines 8 px long or more
   * (shorter ones, a few antialiased pixels among others, say little) */
  const lines = list.filter((p) => p.role === ROLE_THREAD && p.kind === 0 && p.y0 === p.y1 && p.alpha === 1 && p.x1 - p.x0 >= 8)
    .sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0)
    .filter((p, i, all) => i === 0 || all[i - 1].y0 !== p.y0).slice(0, 12)
    .map((p) => ({ y: Math.round(p.y0) - (p.width >> 1), x0: p.x0, x1: p.x1, rgb: hexRgb(pal[p.colour].rgb) }));
  check(lines.length >= 4 && lines.some((l) => l.x1 - l.x0 > 300),
    at + `: ${lines.length} rows of thread lines in the model's frame, a long one`);
  const alone = await open(context, 'net-frame/index.html', size,
    () => window.mprofViewer && window.mprofViewer.view.openToFrameMs !== undefined);
  await alone.waitForFunction(() => document.getElementById('status').textContent.includes('data.js'));
  await shot(alone, `stand-in-${size.width}x${size.height}`);
  check(await alone.evaluate(() => window.mprofViewer.view.firstFrameStandIn && !window.mprofViewer.view.firstFrameNative),
    at + ': the page painted a stand-in');
  check(await text(alone, '#range') === await text(model, '#range'), at + ': the time range of the fit view');
  const [want, got] = [await canvasRows(model, lines), await canvasRows(alone, lines)];
  check(got.opaque && got.w === want.w && got.h === want.h && got.w === got.paneW && got.h === got.paneH,
    at + `: the whole pane painted (${got.w}x${got.h}, pane ${got.paneW}x${got.paneH}, opaque ${got.opaque})`);
  const seen = lines.filter((l, i) => want.extents[i]); /* not all under running spans in the model's frame */
  check(seen.length === lines.length, at + `: ${seen.length} of the thread lines seen in the model's frame`);
  lines.forEach((l, i) => {
    const [a, b] = [want.extents[i], got.extents[i]];
    check(!a || (b && Math.abs(a[0] - b[0]) <= 2 && Math.abs(a[1] - b[1]) <= 2),
      at + `: the thread line on row y ${l.y} from ${a} (model) / ${b} (stand-in)`);
  });
  const strips = list.filter((p) => p.role === ROLE_COUNTER && p.kind === 0)
    .map((p) => ({ y: Math.round(p.y0) - (p.width >> 1), rgb: hexRgb(pal[p.colour].rgb) }));
  const stripRows = async (page) => (await Promise.all(strips.map((s) => pixelRowOf(page, s.y))))
    .map((row, i) => row.filter((c) => near(c, strips[i].rgb)).length);
  const [stripsWant, stripsGot] = [await stripRows(model), await stripRows(alone)];
  check(strips.length === 4 && stripsGot.every((n, i) => n > got.w * 0.9 && stripsWant[i] > got.w * 0.9),
    at + `: the counter strips' lines at y ${strips.map((s) => s.y)} (${stripsGot} / ${stripsWant} px of their colour)`);
  const g = await where(model, 'Gntshr.grant_access'), r = { x0: 0, y0: Math.round(g.y) - 14, x1: 200, y1: Math.round(g.y) - 1 };
  const [boxWant, boxGot] = [await inkBox(model, r), await inkBox(alone, r)];
  check(boxWant.w > 80 && Math.abs(boxGot.w - boxWant.w) <= 2 && Math.abs(boxGot.h - boxWant.h) <= 1,
    at + `: Gntshr.grant_access's label ${boxGot.w}x${boxGot.h} px as the model's ${boxWant.w}x${boxWant.h} (not stretched)`);
  for (const p of [model, alone]) {
    check(p.errors.length === 0, at + ': no page errors: ' + p.errors);
    await p.close();
  }
}

/* The pane's canvas's pixels on row y, as [r, g, b] per x (with or
 * without a model). */
async function pixelRowOf(page, y) {
  return page.evaluate((y) => {
    const c = document.querySelector('#panes canvas'), d = c.getContext('2d').getImageData(0, y, c.width, 1).data;
    return Array.from({ length: c.width }, (_, x) => [d[4 * x], d[4 * x + 1], d[4 * x + 2]]);
  }, y);
}

async function testStory(context) {
  const page = await open(context, 'story.html');
  await shot(page, 'story');
  /* the stalled job: red to the right end of the trace */
  const job = await where(page, 'stuck job');
  check(job.t.ending === 'never resolved', 'stuck job never resolved');
  const red = await pixel(page, job.x1 - 2, job.y);
  check(near(red, COLOURS.stalled), `stuck job is red at its end (${red})`);
  /* a thread's line is black where it waits */
  const get = await where(page, 'GET /');
  check(get, 'GET / exists');
  /* findings */
  const findings = await text(page, '#findings');
  check(findings.includes('never resolved: stuck job'), 'findings list the stuck job: ' + findings);
  check(findings.includes('lost wake-up: ready'), 'findings list the lost wake-up: ' + findings);
  await page.click('#findings button:has-text("never resolved: stuck job")');
  await redraw(page);
  const details = await text(page, '#details');
  check(details.includes('stuck job') && details.includes('should resolve, never did'),
    'a finding brings its thread into the side panel: ' + details);
  await testSearch(page);
  await testDoubleClick(page);
  await testZoom(page);
  check(page.dialogs.length === 0 && page.errors.length === 0, 'story: no dialogs or errors: ' + page.errors);
  await page.close();
}

async function testSearch(page) {
  await page.keyboard.press('Escape');
  await page.click('#fit');
  await page.fill('#search', 'lookup');
  await redraw(page);
  check((await text(page, '#matches')) === '1 match', 'search "lookup": 1 match');
  const l = await where(page, 'lookup');
  const mark = await pixel(page, l.xm, l.y - 6);
  check(near(mark, COLOURS.match), `the match is marked yellow (${mark})`);
  const other = await where(page, 'GET /');
  check(!near(await pixel(page, other.xm, other.y - 6), COLOURS.match), 'GET / is not marked');
  await shot(page, 'search');
  await page.fill('#search', '');
  await redraw(page);
  check(!near(await pixel(page, l.xm, l.y - 6), COLOURS.match), 'clearing the search clears the mark');
}

async function testDoubleClick(page) {
  const g = await where(page, 'GET /');
  await page.mouse.dblclick(g.canvasLeft + g.xm, g.canvasTop + g.y);
  await redraw(page);
  const details = await text(page, '#details');
  for (const want of ['GET /', 'task', 'creator', 'loop', 'interactions', 'try_read', 'lookup'])
    check(details.includes(want), `side panel after a double-click shows "${want}": ${details}`);
  const hl = await pixel(page, g.xm, g.y - 3);
  check(near(hl, COLOURS.highlight), `GET / is highlighted (${hl})`);
  const l = await where(page, 'lookup'); /* it touched lookup: highlighted too */
  check(near(await pixel(page, l.xm, l.y - 3), COLOURS.highlight), 'what GET / touched is highlighted');
  await shot(page, 'double-click');
}

async function testZoom(page) {
  await page.click('#fit');
  await redraw(page);
  const range = async () => page.evaluate(() => [Number(document.getElementById('range').dataset.t0),
    Number(document.getElementById('range').dataset.t1)]);
  const [a0, a1] = await range();
  await page.click('#zoom-in');
  await redraw(page);
  const [b0, b1] = await range();
  check(Math.abs((a1 - a0) / (b1 - b0) - 1.2) < 0.01, `the + button zooms by 1.2 (${a0}..${a1} -> ${b0}..${b1})`);
  check(Math.abs((a0 + a1) / 2 - (b0 + b1) / 2) < (a1 - a0) * 0.001, 'around the middle');
  /* the wheel zooms around the pointer: the time under it stays */
  const box = await page.evaluate(() => { const r = window.mprofViewer.panes[0].canvas.getBoundingClientRect(); return [r.left, r.top, r.width]; });
  const px = box[2] * 0.25;
  const before = b0 + (b1 - b0) * px / box[2];
  await page.mouse.move(box[0] + px, box[1] + 100);
  for (let i = 0; i < 5; i++) await page.mouse.wheel(0, -100);
  await page.waitForTimeout(100);
  await redraw(page);
  const [c0, c1] = await range();
  check((b1 - b0) / (c1 - c0) > 2, `five wheel steps zoom in (${b1 - b0} -> ${c1 - c0})`);
  const after = c0 + (c1 - c0) * px / box[2];
  check(Math.abs(after - before) < (c1 - c0) * 0.01, `the time under the pointer stays (${before} vs ${after})`);
  /* dragging right by 200 px shows what was 200 px to the left */
  await drag(page, box[0] + 500, box[1] + 200, 200, 0);
  const [d0, d1] = await range();
  const shift = (c0 - d0) / ((c1 - c0) / box[2]);
  check(Math.abs(shift - 200) < 2 && Math.abs((d1 - d0) - (c1 - c0)) < 1, `a 200 px drag pans by 200 px (${shift})`);
  const shown = await text(page, '#range');
  check(/s/.test(shown) && shown.includes('–'), 'the visible range is shown: ' + shown);
  await shot(page, 'zoomed');
}

async function testXss(context, file) {
  const page = await open(context, file, FRAME_WINDOW); /* its labels in the first frame built by mprof html */
  check(await page.evaluate(() => window.mprofViewer.view.firstFrameNative), file + ': the first frame built by mprof html');
  const img = await where(page, '<img src=x onerror=alert(1)>');
  check(img, file + ': the <img> label is a thread name');
  await page.mouse.dblclick(img.canvasLeft + img.xm, img.canvasTop + img.y);
  await redraw(page);
  const details = await text(page, '#details');
  check(details.includes('<img src=x onerror=alert(1)>'), file + ': the label is shown as text: ' + details);
  check(details.includes('</script><script>alert(2)</script>'), file + ': the script label is shown as text');
  check(details.includes('<b>boom</b>'), file + ': the failure reason is shown as text');
  check((await text(page, '#counters')).includes('<i>c</i>'), file + ': the counter name is shown as text');
  await page.fill('#search', 'script');
  await redraw(page);
  check((await text(page, '#matches')) === '1 match', file + ': search finds the script label');
  await page.waitForTimeout(300);
  const dom = await page.evaluate(() => ({
    img: document.querySelectorAll('img').length,
    b: document.querySelectorAll('b, i').length,
    scripts: document.scripts.length,
    ours: [...document.scripts].every((s) => (s.src ? s.src.endsWith('/data.js')
      : /^\s*(window\.MPROF_(FRAME|DATA) = |\/\* viewer\.js)/.test(s.text))),
  }));
  check(dom.img === 0 && dom.b === 0, file + ': no element came from a label ' + JSON.stringify(dom));
  check(dom.scripts === 3 && dom.ours, file + ': only the viewer\'s three scripts (first frame, viewer, data) '
    + JSON.stringify(dom));
  check(page.dialogs.length === 0, file + ': no dialog opened: ' + page.dialogs);
  check(page.errors.length === 0, file + ': no page errors: ' + page.errors);
  await shot(page, file.replace(/\W/g, '_'));
  await page.close();
}

async function testCompare(context) {
  const page = await open(context, 'compare/index.html');
  check((await page.$$('.pane')).length === 2, 'compare: two panes');
  const status = await text(page, '#status');
  check(status.includes('first divergence: arrow 0'), 'compare: the first divergence is named: ' + status);
  const counters = await text(page, '#counters');
  check(counters.includes('<i>c</i>') && counters.includes('queue'), 'compare: both traces\' counters: ' + counters);
  check((await text(page, '#findings')).includes('Nothing found.'), 'compare: xss.ctf has no findings');
  const ranges = await page.evaluate(() => window.mprofViewer.panes.map((p) => p.canvas.clientWidth));
  check(ranges[0] === ranges[1], 'compare: the panes share one time axis');
  await shot(page, 'compare');
  await page.close();
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

const BACKGROUND = [232, 232, 232], COUNTER = [112, 64, 160];

/* Two runs of one program (60 and 20 requests in flight): one time axis
 * (the first divergence at one x, the ticks of both panes at the same x),
 * one vertical scroll, and one scale for the counter both have. */
async function testCompareRuns(context) {
  const page = await open(context, 'compare-runs/index.html');
  check(await page.isVisible('#align'), 'compare: the alignment choice is shown');
  check(await page.inputValue('#align') === 'divergence', 'compare: aligned at the first divergence');
  const offset = await page.evaluate(() => window.mprofViewer.panes[1].offset);
  check(offset !== 0, `compare: the runs diverge at different times (offset ${offset} ns)`);
  /* one scale: 20 in flight is a third of 60, so the narrow run's graph
   * stays below 20 px of its 38 px strip, while the wide run's passes it */
  const level = async (pane) => {
    /* the height the scene was built for (the canvas's pixels, which
     * pixelRow reads), not its CSS box, which a later layout may change */
    const h = await page.evaluate((i) => window.mprofViewer.panes[i].canvas.height, pane);
    return (await pixelRow(page, h - 2 - 20, pane)).filter((c) => near(c, COUNTER)).length;
  };
  check(await level(0) > 0, 'compare: the wide run\'s counter reaches 20 px');
  check(await level(1) === 0, 'compare: the narrow run\'s counter, on the same scale, stays below 20 px');
  /* its toggle turns the graph off in both panes; back on, on the same scale */
  await page.click('#counters input');
  await redraw(page);
  check(await level(0) === 0 && await level(1) === 0, 'compare: the counter\'s toggle hides it in both panes');
  await page.click('#counters input');
  await redraw(page);
  check(await level(0) > 0 && await level(1) === 0, 'compare: shown again, on the one scale');
  /* 2 µs around the divergence, where the runs' offset is many pixels */
  await page.evaluate(() => { const v = window.mprofViewer, t = v.view.divergence.a_time; v.setRange(t - 1000, t + 1000); });
  await redraw(page);
  /* above the tick labels only the dashed divergence line is drawn, below
   * them the ticks too */
  const marks = async (pane) => (await Promise.all([2, 16].map((y) => pixelRow(page, y, pane))))
    .map((row) => row.map((c, x) => (near(c, BACKGROUND) ? -1 : x)).filter((x) => x >= 0).join(',')).join(' / ');
  const [a, b] = [await marks(0), await marks(1)];
  check(a.length > 0 && a === b, `compare: one time axis: the same ticks and divergence in both panes (${a} / ${b})`);
  await page.selectOption('#align', 'starts');
  await redraw(page);
  check((await marks(0)) !== (await marks(1)), 'compare: aligned by their starts, the divergence lines part');
  await page.selectOption('#align', 'wall');
  const wall = await page.evaluate(() => window.mprofViewer.panes[1].offset);
  check(wall > 0, `compare: by the wall clocks the narrow run (recorded second) starts later (${wall} ns)`);
  await page.selectOption('#align', 'divergence');
  await redraw(page);
  /* one scroll: dragging the first pane up by 100 px scrolls both */
  const before = await pixelRow(page, 160, 1);
  const box = await page.evaluate(() => { const r = window.mprofViewer.panes[0].canvas.getBoundingClientRect(); return [r.left, r.top]; });
  await drag(page, box[0] + 300, box[1] + 200, 0, -100);
  const scrolls = await page.evaluate(() => window.mprofViewer.panes.map((p) => p.scroll));
  check(scrolls[0] === 100 && scrolls[1] === 100, 'compare: both panes scrolled by 100 px: ' + scrolls);
  const after = await pixelRow(page, 60, 1);
  check(JSON.stringify(after) === JSON.stringify(before) && before.some((c) => !near(c, BACKGROUND)),
    'compare: the second pane\'s rows moved up by 100 px');
  check(page.errors.length === 0, 'compare: no page errors: ' + page.errors);
  await shot(page, 'compare-runs');
  await page.close();
}

/* trace_gen's trace (two OS threads): the page counts what mprof stats
 * counts and finds what mprof report finds; its tasks failed. */
async function testGenerated(context) {
  const stats = JSON.parse(fs.readFileSync(path.join(out, 'gen.json'), 'utf8'));
  const report = JSON.parse(fs.readFileSync(path.join(out, 'gen-report.json'), 'utf8'));
  const page = await open(context, 'gen.html');
  const status = await text(page, '#status');
  check(status.includes(`gen.ctf: ${stats.threads} threads, ${stats.events} events`),
    `generated: the page counts ${stats.threads} threads and ${stats.events} events: ${status}`);
  const findings = await page.$$eval('#findings button', (b) => b.map((x) => x.textContent));
  const count = (prefix) => findings.filter((f) => f.startsWith(prefix)).length;
  check(count('never resolved:') === report.stalls.length && count('lost wake-up:') === report.lost_wakeups.length,
    `generated: the findings are the report's (${report.stalls.length} stalls, ${report.lost_wakeups.length} lost wake-ups): ${findings}`);
  const task = (await where(page, 'request')).t;
  check(task.ending === 'failed' && task.failure === 'failed', 'generated: a request failed: ' + JSON.stringify(task));
  check(page.errors.length === 0, 'generated: no page errors: ' + page.errors);
  await shot(page, 'generated');
  await page.close();
}

/* `mprof html - -o stdin` of the story: the trace came from standard input. */
async function testStdin(context) {
  const page = await open(context, 'stdin/index.html');
  const status = await text(page, '#status');
  check(status.includes('stdin.ctf: 9 threads'), 'the trace read from stdin is shown: ' + status);
  check(fs.readFileSync(path.join(out, 'stdin', 'stdin.ctf')).equals(fs.readFileSync(path.join(out, 'story.ctf'))),
    'the directory holds the trace read from stdin');
  await page.close();
}

async function testOpenFile(context) {
  const page = await open(context, 'net/index.html');
  await page.setInputFiles('#file', path.join(out, 'xss.ctf'));
  await page.waitForFunction(() => /xss\.ctf: \d+ threads/.test(document.getElementById('status').textContent));
  const status = await text(page, '#status');
  check(/xss\.ctf: 3 threads/.test(status), 'a chosen file replaces the trace: ' + status);
  /* a file dropped on the page */
  const bytes = [...fs.readFileSync(path.join(out, 'story.ctf'))];
  const drop = await page.evaluateHandle((bytes) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], 'dropped.ctf'));
    return dt;
  }, bytes);
  await page.dispatchEvent('#panes', 'drop', { dataTransfer: drop });
  await page.waitForFunction(() => /dropped\.ctf: \d+ threads/.test(document.getElementById('status').textContent));
  check((await text(page, '#status')).includes('dropped.ctf: 9 threads'), 'a dropped file opens');
  /* ? shows the shortcuts, Esc hides them */
  check(await page.isHidden('#help'), 'the help starts hidden');
  await page.keyboard.press('?');
  check(await page.isVisible('#help'), '? shows the help');
  check((await text(page, '#help')).includes('zoom around the pointer'), 'the help lists the wheel');
  await page.keyboard.press('Escape');
  check(await page.isHidden('#help'), 'Esc hides the help');
  await page.close();
}

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

/* A trace of 13 MB read in slices: its first part is drawn (with "loading
 * N %") while the rest is read, and the input on it kept; then the whole
 * trace, where a thread of its end is drawn. */
async function testProgressive(context) {
  const page = await open(context, 'phases.html'); /* the whole trace, for reference */
  const whole = await page.evaluate(() => window.mprofViewer.panes[0].summary);
  const [early, loop, late] = await Promise.all(['early phase', 'loop', 'late phase'].map(async (n) => (await where(page, n)).t));
  await slices(page, true);
  await page.setInputFiles('#file', path.join(out, 'phases.ctf'));
  await page.waitForFunction(() => window.mprofViewer.view.openToFrameMs !== undefined);
  await redraw(page);
  const preview = await page.evaluate(() => window.mprofViewer.panes[0].summary);
  const indicator = await text(page, '#loading');
  const share = Number((/^loading (\d+) %$/.exec(indicator) || [])[1]);
  check(await page.isVisible('#loading') && share > 0 && share < 100, 'loading: the indicator says how much: ' + indicator);
  check((await text(page, '#status')).includes(`phases.ctf: ${preview.threads} threads, ${preview.events} events so far`),
    'loading: the status line counts the part read');
  check(preview.threads > 0 && preview.threads < whole.threads / 2 && preview.duration < late.start,
    `loading: the preview holds the first part only (${preview.threads} of ${whole.threads} threads)`);
  /* its labels are at the end of the file: threads go by type and id */
  const first = await where(page, `task#${early.id}`), line = await where(page, `task#${loop.id}`);
  check(first && first.t.start === early.start, 'loading: the early phase is in the preview');
  check(await drawnOn(page, line) > (line.x1 - line.x0) / 2, 'loading: the first loop is drawn along its row');
  check(!(await where(page, `task#${late.id}`)), 'loading: the late phase is not in the preview');
  await shot(page, 'preview');
  /* input during the load: zoom in on the preview, kept after it */
  const box = await page.evaluate(() => { const r = window.mprofViewer.panes[0].canvas.getBoundingClientRect(); return [r.left, r.top]; });
  await page.mouse.move(box[0] + 200, box[1] + 100);
  for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -100);
  await page.waitForTimeout(100);
  const zoomed = await range(page);
  await page.evaluate(() => window.releaseLoad());
  await page.waitForFunction(() => window.mprofViewer.view.openToCompleteMs !== undefined, null, { timeout: 60000 });
  await redraw(page);
  check(await page.isHidden('#loading'), 'loaded: the indicator is gone');
  check((await text(page, '#status')).includes(`phases.ctf: ${whole.threads} threads, ${whole.events} events`),
    'loaded: the status line counts the whole trace');
  const kept = await range(page);
  check(Math.abs(kept[0] - zoomed[0]) < 1 && Math.abs(kept[1] - zoomed[1]) < 1, `loaded: the zoom is kept (${zoomed} / ${kept})`);
  await page.click('#fit');
  await redraw(page);
  const end = await where(page, 'late phase');
  check(end && await drawnOn(page, end) > (end.x1 - end.x0) / 2, 'loaded: the late phase is drawn along its row');
  await page.waitForFunction(() => window.mprofViewer.view.analysed);
  await shot(page, 'loaded');
  /* another file opened during a load replaces it; the first load stops */
  await slices(page, true);
  await page.setInputFiles('#file', path.join(out, 'phases.ctf'));
  await page.waitForFunction(() => window.mprofViewer.view.openToFrameMs !== undefined && window.mprofViewer.panes[0].preview);
  await page.evaluate(() => Object.assign(window.mprofViewer.reading, { gate: null, slice: 32 << 20 }));
  await page.setInputFiles('#file', path.join(out, 'xss.ctf'));
  await page.waitForFunction(() => window.mprofViewer.view.openToCompleteMs !== undefined);
  await page.evaluate(() => window.releaseLoad()); /* the first load could read all the rest at once now */
  await page.waitForTimeout(1000);
  check((await text(page, '#status')).includes('xss.ctf: 3 threads') && await page.isHidden('#loading'),
    'a file opened during a load replaces it: ' + await text(page, '#status'));
  check(await page.evaluate(() => window.mprofViewer.panes.length) === 1, 'the stopped load left no pane');
  check(page.errors.length === 0, 'progressive: no page errors: ' + page.errors);
  await page.close();
}

/* A trace cut in the middle of a packet, another packet's magic broken:
 * read in slices, the page counts what mprof stats counts. */
async function testDamaged(context) {
  const stats = JSON.parse(fs.readFileSync(path.join(out, 'damaged.json'), 'utf8'));
  const told = fs.readFileSync(path.join(out, 'damaged.txt'), 'utf8');
  check(told.includes('bad packet magic') && told.includes('truncated'), 'damaged: mprof stats finds the damage: ' + told);
  const page = await open(context, 'net/index.html');
  await slices(page, false);
  await page.setInputFiles('#file', path.join(out, 'damaged.ctf'));
  await page.waitForFunction(() => window.mprofViewer.view.openToCompleteMs !== undefined, null, { timeout: 60000 });
  await redraw(page);
  check(await page.evaluate(() => window.mprofViewer.view.timing.previewMs > 0), 'damaged: a preview was shown');
  const status = await text(page, '#status');
  check(status.includes(`damaged.ctf: ${stats.threads} threads, ${stats.events} events`) && stats.events > 0,
    `damaged: the good packets are read (${stats.threads} threads, ${stats.events} events): ${status}`);
  check((await pixelRow(page, AXIS + ROW / 2, 0)).some((c) => !near(c, BACKGROUND)), 'damaged: its first row is drawn');
  check(page.errors.length === 0, 'damaged: no page errors: ' + page.errors);
  await shot(page, 'damaged');
  await page.close();
}

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

/* The 13 MB trace as `mprof html` writes a big one, in slices (scripts in
 * data/, 128 KiB each here), opened from file://: its first slice is drawn
 * while the rest loads, then the whole trace counts what mprof stats
 * counts; its single files, without slices and with them inline, count it
 * too. */
async function testSlicedPage(context) {
  const stats = JSON.parse(fs.readFileSync(path.join(out, 'phases.json'), 'utf8'));
  const slices = fs.readdirSync(path.join(out, 'phases-dir', 'data')).length;
  check(slices > 10, `sliced: mprof html wrote the trace in slices (${slices})`);
  const files = fs.readdirSync(path.join(out, 'phases-dir')).sort().join(' ');
  check(files === 'data data.js index.html phases.ctf',
    'sliced: the directory holds index.html (the style and viewer.js inline), data.js, the trace and data/: ' + files);
  let names;
  for (const file of ['phases.html', 'phases-sliced.html']) {
    const single = await open(context, file);
    check((await text(single, '#status')).includes(`phases.ctf: ${stats.threads} threads, ${stats.events} events`)
      && await single.isHidden('#loading'), `sliced: ${file} counts what mprof stats counts: ` + await text(single, '#status'));
    check(single.errors.length === 0, `sliced: ${file}: no page errors: ` + single.errors);
    if (file === 'phases-sliced.html') {
      check(await single.evaluate(() => window.MPROF_FRAME === undefined && !window.mprofViewer.view.firstFrameNative),
        `sliced: ${file}: no first frame built by mprof html`);
    }
    names = names || await Promise.all(['early phase', 'loop', 'late phase'].map(async (n) => (await where(single, n)).t));
    await single.close();
  }
  const [early, loop, late] = names;
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await holdAfterPreview(page);
  await page.goto('file://' + path.resolve(out, 'phases-dir/index.html'), { waitUntil: 'commit' });
  await page.waitForFunction(() => window.mprofViewer && window.mprofViewer.view.openToFrameMs !== undefined, null, { timeout: 30000 });
  await redraw(page);
  const preview = await page.evaluate(() => window.mprofViewer.panes[0].summary);
  const share = Number((/^loading (\d+) %$/.exec(await text(page, '#loading')) || [])[1]); /* the first of > 10 slices */
  check(await page.isVisible('#loading') && share >= 0 && share < 10, 'sliced: the indicator says how much: ' + share);
  check((await text(page, '#status')).includes(`phases.ctf: ${preview.threads} threads, ${preview.events} events so far`),
    'sliced: the status line counts the first slice: ' + await text(page, '#status'));
  check(preview.threads > 0 && preview.threads < stats.threads / 2 && preview.duration < late.start,
    `sliced: the preview holds the first slice only (${preview.threads} of ${stats.threads} threads)`);
  const first = await where(page, `task#${early.id}`), line = await where(page, `task#${loop.id}`);
  check(first && first.t.start === early.start, 'sliced: the early phase is in the preview');
  check(await drawnOn(page, line) > (line.x1 - line.x0) / 2, 'sliced: the first loop is drawn along its row');
  check(await page.evaluate(() => window.mprofViewer.panes.length) === 1 && await page.locator('.pane').count() === 1,
    'sliced: one pane on the page');
  await shot(page, 'sliced-preview');
  await page.evaluate(() => window.releaseLoad());
  await page.waitForFunction(() => window.mprofViewer.view.openToCompleteMs !== undefined && window.mprofViewer.view.analysed,
    null, { timeout: 60000 });
  await redraw(page);
  const whole = await page.evaluate(() => window.mprofViewer.panes[0].summary);
  check(whole.threads === stats.threads && whole.events === stats.events,
    `sliced: the whole trace counts what mprof stats counts (${whole.threads} / ${stats.threads} threads)`);
  check((await text(page, '#status')).includes(`phases.ctf: ${stats.threads} threads, ${stats.events} events`)
    && !(await text(page, '#status')).includes('so far') && await page.isHidden('#loading'), 'sliced: loaded: ' + await text(page, '#status'));
  const end = await where(page, 'late phase');
  check(end && await drawnOn(page, end) > (end.x1 - end.x0) / 2, 'sliced: the late phase is drawn along its row');
  check(await page.locator('.pane').count() === 1, 'sliced: one pane on the page once loaded');
  check(await page.evaluate(() => window.MPROF_FRAME === undefined && !window.mprofViewer.view.firstFrameNative),
    'sliced: no first frame built by mprof html (a trace in slices has none)');
  check(page.errors.length === 0, 'sliced: no page errors: ' + page.errors);
  await shot(page, 'sliced-loaded');
  await page.close();
}

/* The sliced page from a static HTTP server (Node's http, files from the
 * artifacts): every slice's script is asked for once, and the whole trace
 * counts what mprof stats counts. */
async function testSlicedHttp(context) {
  const stats = JSON.parse(fs.readFileSync(path.join(out, 'phases.json'), 'utf8'));
  const slices = fs.readdirSync(path.join(out, 'phases-dir', 'data')).length;
  const asked = [];
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
  const root = path.resolve(out);
  const server = http.createServer((req, res) => {
    const file = path.join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    asked.push(req.url);
    if (!file.startsWith(root + path.sep) || !fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((ready) => server.listen(0, '127.0.0.1', ready));
  try {
    const page = await context.newPage();
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(e.message));
    await page.goto(`http://127.0.0.1:${server.address().port}/phases-dir/index.html`, { waitUntil: 'commit' });
    await page.waitForFunction(() => window.mprofViewer && window.mprofViewer.view.openToCompleteMs !== undefined, null, { timeout: 60000 });
    const whole = await page.evaluate(() => window.mprofViewer.panes[0].summary);
    check(whole.threads === stats.threads && whole.events === stats.events,
      `http: the whole trace counts what mprof stats counts (${whole.threads} / ${stats.threads} threads)`);
    const sliceAsks = asked.filter((u) => u.startsWith('/phases-dir/data/'));
    check(sliceAsks.length === slices && new Set(sliceAsks).size === slices, `http: each of ${slices} slices asked for once: ${sliceAsks.length}`);
    check(await page.evaluate(() => window.mprofViewer.view.timing.previewMs > 0), 'http: a preview was shown');
    check(page.errors.length === 0, 'http: no page errors: ' + page.errors);
    await page.close();
  } finally {
    server.close();
  }
}

/* --- The legend, counter toggles, idle bands, keys ------------------------------------- */

const hexRgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const ROLE_BAND = 0, ROLE_AXIS = 1, ROLE_ARROW = 5, COUNTER_STRIP = 40;

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

/* web_trace idle: every arrow kind drawn in the colour of its legend
 * entry, which shows the kind's palette name and colour. */
async function testLegend(context) {
  const page = await open(context, 'idle/index.html');
  const pal = await palette(page);
  const legend = await page.$$eval('#legend li', (lis) => lis.map((li) => ({ name: li.textContent,
    rgb: getComputedStyle(li.querySelector('.swatch')).backgroundColor.match(/\d+/g).slice(0, 3).map(Number) })));
  const kinds = pal.filter((c) => c.arrow);
  check(kinds.length === 7 && ['read', 'resolve', 'signal', 'try_read'].every((k) => kinds.some((c) => c.arrow === k)),
    'legend: the palette names the arrow kinds: ' + kinds.map((c) => c.arrow));
  for (const c of kinds) {
    const entry = legend.find((e) => e.name === c.name);
    check(entry && entry.rgb.join() === hexRgb(c.rgb).join(),
      `legend: the ${c.arrow} arrow's entry "${c.name}" has a swatch of ${c.rgb} (${entry && entry.rgb})`);
  }
  await page.keyboard.press('0');
  await redraw(page);
  const arrows = (await displayList(page)).filter((p) => p.role === ROLE_ARROW);
  const drawn = new Map();
  for (const a of arrows) {
    const kind = await page.evaluate((i) => window.mprofViewer.arrowKind(0, i), a.thread);
    check(pal[a.colour].arrow === kind, `legend: a ${kind} arrow is drawn in the ${kind} colour (${pal[a.colour].name})`);
    if (!drawn.has(kind) || a.alpha > drawn.get(kind).alpha) drawn.set(kind, a);
  }
  /* arrows over 100 px long fade; a slow run stretches them */
  check(drawn.size === kinds.length && [...drawn.values()].every((a) => a.alpha > 0.9),
    'legend: the trace draws every arrow kind, unfaded: ' + [...drawn].map(([k, a]) => `${k} ${a.alpha.toFixed(2)}`));
  for (const [kind, a] of drawn) {
    const swatch = legend.find((e) => e.name === pal[a.colour].name).rgb;
    const seen = await covered(page, a, swatch, hexRgb(pal[0].rgb));
    check(seen.cover > 0.6, `legend: the ${kind} arrow is painted in its swatch's colour ${swatch} (${seen.c}, ${seen.cover})`);
  }
  await shot(page, 'legend');
  check(page.errors.length === 0, 'legend: no page errors: ' + page.errors);
  await page.close();
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

/* Per-metric toggles: turning a counter off removes its graph, the
 * other's stays as it was (queue#1 and queue#2 share one scale, which
 * stays shared: queue#1 does not grow when queue#2 is gone). */
async function testCounters(context) {
  const page = await open(context, 'idle/index.html');
  const all = await counterPixels(page);
  const { 'queue#1': q1, 'queue#2': q2 } = all.strips;
  check(q1 > 0 && q2 > q1 && all.total === q1 + q2, `counters: both graphs drawn in their strips (${JSON.stringify(all)})`);
  await toggleCounter(page, 'queue#2');
  const one = await counterPixels(page);
  check(one.strips['queue#1'] === q1 && one.total === q1 && !('queue#2' in one.strips),
    `counters: queue#2 off: its graph is gone, queue#1's stays on the shared scale (${JSON.stringify(one)})`);
  await toggleCounter(page, 'queue#2');
  await toggleCounter(page, 'queue#1');
  const two = await counterPixels(page);
  check(two.strips['queue#2'] === q2 && two.total === q2,
    `counters: queue#1 off: its graph is gone, queue#2's stays (${JSON.stringify(two)})`);
  await toggleCounter(page, 'queue#1');
  const again = await counterPixels(page);
  check(JSON.stringify(again) === JSON.stringify(all), `counters: both on again as before (${JSON.stringify(again)})`);
  check(page.errors.length === 0, 'counters: no page errors: ' + page.errors);
  await page.close();
}

/* A pane that changes size while the window does not (the page's own
 * layout: here the panes' box is made shorter, then restored) is drawn
 * again at its new size within a few frames, not left stretched. */
async function testPaneResize(context) {
  const page = await open(context, 'net/index.html');
  const size = () => page.evaluate(() => {
    const p = window.mprofViewer.panes[0], dpr = window.devicePixelRatio || 1;
    return { canvas: p.canvas.height, box: Math.round(p.el.clientHeight * dpr) };
  });
  const before = await size();
  check(before.canvas === before.box, `pane resize: drawn at its box's height at first (${JSON.stringify(before)})`);
  for (const height of ['300px', '']) {
    await page.evaluate((h) => { document.getElementById('panes').style.maxHeight = h; }, height);
    await page.waitForFunction(() => {
      const p = window.mprofViewer.panes[0], dpr = window.devicePixelRatio || 1;
      return p.canvas.height === Math.round(p.el.clientHeight * dpr);
    }, null, { timeout: 5000 }).catch(() => null);
    const now = await size();
    check(now.canvas === now.box && (height === '' ? now.box === before.box : now.box < before.box),
      `pane resize: drawn again at the new height (max-height '${height}': ${JSON.stringify(now)}, at first ${JSON.stringify(before)})`);
  }
  check(page.errors.length === 0, 'pane resize: no page errors: ' + page.errors);
  await page.close();
}

/* Both viewers draw one layout from one view state: the browser's display
 * list of the story against the one the desktop viewer paints for the
 * same pane size and view (its fit, then a range scrolled by a row), as
 * `view_probe prims` prints it from the desktop viewer's own set-up:
 * primitive by primitive, texts included. */
async function testSameLayout(context) {
  const page = await open(context, 'story.html');
  const probe = path.join(out, '..', '..', 'view', 'view_probe');
  const views = [
    ['fit', () => {}],
    ['range', () => { const v = window.mprofViewer, d = v.panes[0].summary.duration; v.setRange(d * 0.1, d * 0.6); v.scrollTo(16); }],
  ];
  for (const [name, set] of views) {
    await page.evaluate(set);
    await redraw(page);
    const state = await page.evaluate(() => {
      const v = window.mprofViewer, p = v.panes[0];
      return { w: p.canvas.clientWidth, h: p.canvas.clientHeight, t0: v.view.t0, t1: v.view.t1, scroll: p.scroll };
    });
    const browser = await displayList(page);
    const args = ['prims', path.join(out, 'story.ctf'), state.w, state.h, name === 'fit' ? 0 : state.t0,
      name === 'fit' ? -1 : state.t1, state.scroll].map(String);
    const desktop = execFileSync(probe, args, { encoding: 'utf8' }).split('\n').filter((l) => l).map((l) => {
      const f = l.split(' ');
      return { kind: +f[0], colour: +f[1], role: +f[2], thread: +f[3], x0: f[4], y0: f[5], x1: f[6], y1: f[7],
        alpha: f[8], width: f[9], text: f.slice(10).join(' ') };
    });
    const at = `same layout (${name}, ${state.w}x${state.h})`;
    check(browser.length > 20 && browser.length === desktop.length,
      `${at}: ${browser.length} primitives in the browser, ${desktop.length} in the desktop viewer`);
    browser.forEach((b, i) => {
      const d = desktop[i], same = ['kind', 'colour', 'role', 'thread', 'text'].every((k) => b[k] === d[k])
        && ['x0', 'y0', 'x1', 'y1', 'alpha', 'width'].every((k) => Math.fround(parseFloat(d[k])) === b[k]);
      check(same, `${at}: primitive ${i}: browser ${JSON.stringify(b)}, desktop ${JSON.stringify(d)}`);
    });
  }
  check(page.errors.length === 0, 'same layout: no page errors: ' + page.errors);
  await page.close();
}

/* The idle hiatus (from "before idle"'s end to "after idle"'s start) is a
 * band of the idle colour over the rows, at its x range and nowhere
 * else. */
async function testIdleBand(context) {
  const page = await open(context, 'idle/index.html');
  const pal = await palette(page);
  const bands = (await displayList(page)).filter((p) => p.role === ROLE_BAND);
  check(bands.length === 1 && pal[bands[0].colour].name === 'idle', 'idle: one idle band: ' + JSON.stringify(bands));
  const [idle, bg] = [hexRgb(pal[bands[0].colour].rgb), hexRgb(pal[0].rgb)];
  const band = idle.map((v, i) => Math.round(v * bands[0].alpha + bg[i] * (1 - bands[0].alpha)));
  const before = await where(page, 'before idle'), after = await where(page, 'after idle');
  const h = await page.evaluate(() => window.mprofViewer.panes[0].canvas.height);
  const row = await pixelRow(page, h - 2 * COUNTER_STRIP - 4, 0); /* below the threads' rows */
  const close = (a, b) => a.every((v, i) => Math.abs(v - b[i]) <= 2);
  const ticks = (await displayList(page)).filter((p) => p.role === ROLE_AXIS && p.x0 === p.x1).map((p) => p.x0);
  const off = (x) => ticks.every((t) => Math.abs(x - t) > 1.5); /* the ticks' lines cross the rows */
  const inside = row.filter((c, x) => off(x) && x > before.x1 + 1 && x < after.x0 - 1);
  const outside = row.filter((c, x) => off(x) && (x < before.x1 - 1 || x > after.x0 + 1));
  check(after.x0 - before.x1 > 200 && inside.every((c) => close(c, band)),
    `idle: the band's colour ${band} from ${before.x1.toFixed(0)} to ${after.x0.toFixed(0)} px `
    + `(${inside.filter((c) => !close(c, band)).length} pixels not)`);
  check(outside.length > 50 && outside.every((c) => close(c, bg)),
    `idle: the background outside it (${outside.filter((c) => !close(c, bg)).length} of ${outside.length} pixels not)`);
  check(page.errors.length === 0, 'idle: no page errors: ' + page.errors);
  await page.close();
}

/* The keys the `?` help lists (its <kbd>s) are exactly those the page
 * takes (a keydown whose default it prevents), each does what the help
 * says, and keys with Ctrl, Alt or Meta stay the browser's. */
async function testKeys(context) {
  const page = await open(context, 'net/index.html');
  const glyphs = { '←': 'ArrowLeft', '→': 'ArrowRight', '↑': 'ArrowUp', '↓': 'ArrowDown', Esc: 'Escape' };
  const help = await page.$$eval('#help kbd', (ks) => ks.map((k) => ({ key: k.textContent, search: k.classList.contains('in-search') })));
  const listed = help.filter((k) => !k.search).map((k) => glyphs[k.key] || k.key).sort();
  /* the file picker is caught from now on (asked for at the key press, the
   * page's picker could open before Playwright catches it) */
  const chooser = new Promise((chosen) => page.once('filechooser', chosen));
  await page.keyboard.press('0');
  await redraw(page);
  const state = () => page.evaluate(() => { const v = window.mprofViewer; return { t0: v.view.t0, t1: v.view.t1,
    scroll: v.panes[0].scroll, w: v.panes[0].canvas.clientWidth, selected: v.panes[0].selected,
    focus: document.activeElement.id, help: !document.getElementById('help').hidden,
    details: document.getElementById('details').textContent }; });
  const fitted = await state();
  const press = async (key) => { await page.keyboard.press(key); await redraw(page); return state(); };
  const span = (s) => s.t1 - s.t0, mid = (s) => (s.t0 + s.t1) / 2;
  const same = (a, b) => Math.abs(a - b) <= Math.abs(b) * 1e-9 + 1e-3;
  for (const [key, factor] of [['+', 1.2], ['=', 1.2], ['-', 1 / 1.2]]) {
    const a = await state(), b = await press(key);
    check(same(span(a) / span(b), factor) && same(mid(a), mid(b)), `keys: ${key} zooms by ${factor.toFixed(3)} around the middle`);
  }
  for (const [key, px] of [['ArrowLeft', -1], ['ArrowRight', 1]]) {
    const a = await state(), b = await press(key);
    check(same(b.t0 - a.t0, px * span(a) / 8) && same(span(a), span(b)), `keys: ${key} pans by an eighth of the view`);
  }
  for (const [key, dy] of [['ArrowDown', 64], ['ArrowUp', -64]]) {
    const a = await state(), b = await press(key);
    check(b.scroll - a.scroll === dy && same(b.t0, a.t0), `keys: ${key} scrolls the rows by ${dy} px (${a.scroll} -> ${b.scroll})`);
  }
  const fit = await press('0');
  check(same(fit.t0, fitted.t0) && same(fit.t1, fitted.t1) && fit.scroll === 0, 'keys: 0 fits the trace again');
  check((await press('/')).focus === 'search', 'keys: / puts the focus in the search box');
  await page.keyboard.type('Gntshr');
  check((await press('Escape')).focus !== 'search', 'keys: Esc in the search box leaves it');
  const first = await press('n');
  check(first.selected >= 0 && first.details.includes('Gntshr'), 'keys: n selects the first match: ' + first.details.slice(0, 80));
  const second = await press('n');
  check(second.selected > first.selected && second.details.includes('Gntshr'), 'keys: n again, the next match');
  await page.focus('#search');
  const third = await press('Enter');
  check(third.selected > second.selected && third.focus === 'search', 'keys: Enter in the search box, the next match');
  await page.evaluate(() => document.activeElement.blur());
  const shown = await press('?');
  check(shown.help, 'keys: ? shows the help');
  const cleared = await press('Escape');
  check(!cleared.help && cleared.selected === -1 && cleared.details === 'Double-click a thread.', 'keys: Esc closes the help, clears the highlight');
  check((await press('?')).help && !(await press('?')).help, 'keys: ? again hides the help');
  await page.keyboard.press('o');
  const picker = await Promise.race([chooser, page.waitForTimeout(10000)]);
  check(picker && picker.isMultiple(), 'keys: o opens the file picker (several files)');
  /* last: a picker asked for by a key event not from the user (the
   * sweep's 'o') stops the next one from opening */
  const candidates = [...Array(94)].map((_, i) => String.fromCharCode(33 + i)).concat([' ', 'Enter', 'Tab',
    'Backspace', 'Delete', 'Home', 'End', 'PageUp', 'PageDown', 'F1', ...Object.values(glyphs)]);
  const taken = await page.evaluate((keys) => {
    const takes = (key, mods) => {
      const e = new KeyboardEvent('keydown', { key, cancelable: true, bubbles: true, ...mods });
      document.body.dispatchEvent(e);
      return e.defaultPrevented;
    };
    const plain = keys.filter((k) => takes(k, {}));
    const modified = keys.filter((k) => ['ctrlKey', 'altKey', 'metaKey'].some((m) => takes(k, { [m]: true })));
    return { plain: plain.sort(), modified };
  }, candidates);
  check(taken.plain.join(' ') === listed.join(' '), `keys: the help lists exactly the keys the page takes `
    + `(listed: ${listed.join(' ')}; taken: ${taken.plain.join(' ')})`);
  check(taken.modified.length === 0, 'keys: with Ctrl, Alt or Meta they stay the browser\'s: ' + taken.modified.join(' '));
  check(page.errors.length === 0, 'keys: no page errors: ' + page.errors);
  await page.close();
}

(async () => {
  const { context, profile } = await launch();
  let failed = false;
  for (const [name, run] of [['net.ctf', testNet], ['first frame', testFirstFrame], ['stand-in', testStandIn], ['story', testStory],
    ['xss (directory)', (c) => testXss(c, 'xss/index.html')],
    ['xss (single file)', (c) => testXss(c, 'xss.html')],
    ['generated', testGenerated], ['compare', testCompare], ['compare runs', testCompareRuns],
    ['stdin', testStdin], ['open, drop, help', testOpenFile], ['progressive load', testProgressive],
    ['damaged file', testDamaged], ['sliced page', testSlicedPage], ['sliced page over http', testSlicedHttp],
    ['legend', testLegend], ['counter toggles', testCounters], ['idle band', testIdleBand], ['keys', testKeys],
    ['pane resize', testPaneResize], ['same layout', testSameLayout]]) {
    if (only.length && !only.includes(name)) continue;
    try {
      await run(context);
      console.log('ok', name);
    } catch (e) {
      failed = true;
      console.log('not ok', name, e.message);
    }
  }
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
  process.exit(failed ? 1 : 0);
})();
