/* test_viewer_load.js -- test_viewer.js's tests of getting a trace into the
 * page: net.ctf opened, the first frame `mprof html` builds and its
 * stand-in, standard input, a file picked or dropped, a file shown while
 * it loads, a damaged file, and a big trace in slices from file:// and
 * HTTP. */
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const {
  out, AXIS, ROW, check, FRAME_WINDOWS, open, redraw, where, pixel, near, shot, text,
  canvasPixels, STAND_IN_WINDOWS, ROLE_THREAD, ROLE_COUNTER, canvasRows, inkBox, pixelRowOf,
  pixelRow, BACKGROUND, slices, drawnOn, range, holdAfterPreview, hexRgb, palette, displayList
} = require('./viewer_page');

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

async function testStandIn(context) {
  for (const size of STAND_IN_WINDOWS) await standInIn(context, size);
}

async function standInIn(context, size) {
  const at = `stand-in, ${size.width}x${size.height}`;
  const model = await open(context, 'net/index.html', size);
  check(!(await model.evaluate(() => window.mprofViewer.view.firstFrameNative)), at + ': no frame built for this size');
  const list = await displayList(model), pal = await palette(model);
  /* the first twelve rows' first opaque thread lines 8 px long or more
   * (shorter ones, a few antialiased pixels among others, say little);
   * where other threads come within 10 px of a line's start (the threads
   * of a pixel or less that crowd a trace's start, summed up per pixel
   * column, which the stand-in's columns are not), its end alone */
  const threads = list.filter((p) => p.role === ROLE_THREAD && p.kind === 0 && p.y0 === p.y1);
  const crowded = (l) => threads.some((p) => p !== l && p.y0 === l.y0 && p.x0 < l.x0 && p.x1 > l.x0 - 10);
  const lines = threads.filter((p) => p.alpha === 1 && p.x1 - p.x0 >= 8)
    .sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0)
    .filter((p, i, all) => i === 0 || all[i - 1].y0 !== p.y0).slice(0, 12)
    .map((p) => ({ y: Math.round(p.y0) - (p.width >> 1), x0: p.x0, x1: p.x1, rgb: hexRgb(pal[p.colour].rgb),
      crowded: crowded(p) }));
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
    check(!a || (b && (l.crowded || Math.abs(a[0] - b[0]) <= 2) && Math.abs(a[1] - b[1]) <= 2),
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

module.exports = {
  testNet, testFirstFrame, testStandIn, testStdin, testOpenFile, testProgressive, testDamaged,
  testSlicedPage, testSlicedHttp
};
