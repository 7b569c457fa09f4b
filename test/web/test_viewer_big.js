/* test_viewer_big.js -- a big trace read by its index (web/viewer/big_open.js,
 * big_view.js, web/wasm/big.c), forced on a trace of 13 MB (streams.ctf:
 * "first N" tasks on one OS thread, 100 ms idle, then "second N" tasks on
 * another) by the page's own settings: reading.bigFrom 0, and a window
 * budget that the whole trace's packets exceed.  The oracles are `mprof
 * dump` (when each stream has events, when each task lives) and `mprof
 * view --png --range` over its budget (how many packets the native index
 * names for a window).  MPROF: the mprof command. */
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { check, open, out } = require('./viewer_page');

const TRACE = path.join(out, 'streams.ctf');
const BUDGET = 1000000; /* bytes of packets a window may read: the whole trace has ~1.6 MB */

/* `mprof dump`'s events: per stream their times (ns; not the names
 * streams' strings), and per task its name and life. */
function dumped() {
  const streams = {}, tasks = new Map();
  for (const line of fs.readFileSync(path.join(out, 'streams.txt'), 'utf8').split('\n')) {
    const [t, stream, kind] = line.split(' '), ns = Number(t);
    if (!kind || kind === 'string') continue;
    (streams[stream] || (streams[stream] = [])).push(ns);
    const id = /(?:child|target)=(\d+)/.exec(line);
    if (!id) continue;
    const task = tasks.get(id[1]) || { start: ns, end: Infinity };
    tasks.set(id[1], task);
    if (kind === 'label') task.name = /text="(.*)"/.exec(line)[1];
    if (kind === 'resolve') task.end = ns;
  }
  return { streams, tasks: [...tasks.values()].filter((t) => t.name) };
}

/* A page with the big trace opened from files (the trace, and an index
 * if given), once its first frame is drawn. */
async function openBig(context, files) {
  const page = await open(context, 'net/index.html');
  await page.evaluate((budget) => Object.assign(window.mprofViewer.reading, { bigFrom: 0, windowBudget: budget }), BUDGET);
  await page.setInputFiles('#file', files);
  await page.waitForFunction(() => window.mprofViewer.big() && window.mprofViewer.big().density, null, { timeout: 30000 });
  return page;
}

const bigState = (page) => page.evaluate(() => window.mprofViewer.big());

/* `mprof stats --json` of trace NAME.ctf (NAME-stats.json). */
const stats = (name) => JSON.parse(fs.readFileSync(path.join(out, `${name}-stats.json`), 'utf8'));

/* The first frame, from the index alone: a row per stream, named; in
 * each row, events in a column where dump has events of that stream, and
 * none where it has none, within two columns (the bins are up to a column
 * wide and round to the clock). */
function checkDensity(b, streams) {
  const d = b.density, perColumn = (d.t1 - d.t0) / d.columns;
  const program = stats('streams').program;
  check(JSON.stringify(d.rows) === JSON.stringify([`stream 0 (${program})`, `stream 1 (${program})`]),
    `a row per ring stream, named by its number and the program mprof stats names: ${d.rows}`);
  d.rows.forEach((row, r) => {
    const dump = new Array(d.columns).fill(0);
    for (const ns of streams[row.split(' ')[1]]) dump[Math.min(d.columns - 1, Math.floor((ns - d.t0) / perColumn))]++;
    const near = (a, c) => a.slice(Math.max(0, c - 2), c + 3).some((n) => n > 0);
    const page = d.counts.slice(r * d.columns, (r + 1) * d.columns);
    for (let c = 0; c < d.columns; c++) {
      if (page[c] > 0) check(near(dump, c), `${row}: events drawn at column ${c}, where it has none`);
      if (dump[c] > 0) check(near(page, c), `${row}: no events drawn at column ${c}, where it has ${dump[c]}`);
    }
    check(page.filter((n) => n > 0).length > 10, `${row}: events in more than 10 columns`);
  });
  const total = d.counts.reduce((a, n) => a + n, 0);
  check(Math.abs(total - 140000) < 1400, 'the ring streams\' 140000 events, within the last bin\'s cut: ' + total);
}

/* The trace alone: its index is built here from one slice of its slots,
 * the first frame drawn from it (and the window budget keeps the model
 * out). */
async function testBigDensity(context) {
  const page = await openBig(context, [TRACE]);
  const b = await bigState(page), { streams } = dumped();
  check(b.mode === 'density' && b.indexFrom === 'built', 'an index built in the page, a density shown: ' + b.mode);
  const slots = Math.floor((fs.statSync(TRACE).size - b.headSize) / b.packetSize);
  check(JSON.stringify(b.reads.slice(2)) === JSON.stringify([[b.headSize, b.headSize + slots * b.packetSize]]),
    'the header, the head, then the slots once: ' + JSON.stringify(b.reads));
  check(b.summary.events === 180000 && b.summary.packets === 28, 'the index counts the trace: ' + JSON.stringify(b.summary));
  checkDensity(b, streams);
  check(/streams.ctf: 180000 events in 28 packets, 2 streams/.test(await page.textContent('#status')), 'the status says what');
  await page.close();
}

/* Zoomed into the second stream's tasks: the model of the packets the
 * index names for the window, read one run of adjacent slots at a time;
 * the tasks alive there, by their names, on rows.  Returns the window. */
async function checkWindow(page) {
  const { tasks } = dumped(), [t0, t1] = windowRange();
  const before = (await bigState(page)).reads.length;
  await page.evaluate(([t0, t1]) => window.mprofViewer.setRange(t0, t1), [t0, t1]);
  await page.waitForFunction(() => window.mprofViewer.big().mode === 'window' && !window.mprofViewer.big().busy);
  await page.evaluate(() => window.mprofViewer.redraw());
  const b = await bigState(page), w = b.window, reads = b.reads.slice(before);
  const slot = (at) => (at - b.headSize) / b.packetSize;
  check(reads.every(([a, z]) => Number.isInteger(slot(a)) && Number.isInteger(slot(z))), 'whole slots read: ' + JSON.stringify(reads));
  const read = reads.reduce((n, [a, z]) => n + slot(z) - slot(a), 0);
  const native = spawnSync(process.env.MPROF, ['view', '--png', path.join(out, 'streams-window.png'), '--range',
    `${w.t0}:${w.t1}`, TRACE], { env: { ...process.env, MPROF_VIEW_BUDGET_MIB: '0' }, encoding: 'utf8' });
  const named = /drawn from (\d+) of its (\d+) packets/.exec(native.stderr);
  check(named && read === w.packets && read === Number(named[1]) && read < Number(named[2]),
    `the packets the index names for ${w.t0}-${w.t1} ns, and no more: read ${read}, mprof view: ${named && named[0]}`);
  check(read * b.packetSize <= BUDGET, `their slots within the budget: ${read} of ${b.packetSize} bytes`);
  const shown = await page.evaluate(() => window.mprofViewer.displayList(0).filter((p) => p.text).map((p) => p.text));
  const names = shown.filter((t) => /^(first|second) \d+$/.test(t)), slack = 1000;
  const alive = new Set(tasks.filter((t) => t.start <= t1 + slack && t.end >= t0 - slack).map((t) => t.name));
  check(names.length >= 10 && names.every((n) => alive.has(n)), `the tasks alive in the range, by name: ${names.slice(0, 12)}`);
  const rows = await page.evaluate(() => window.mprofViewer.panes[0].summary.rows);
  check(rows > 1, 'on rows of their own: ' + rows);
  return { w, reads };
}

/* A range in the second stream's tasks, [t0, t1] ns, whose window fits
 * the budget. */
function windowRange() {
  const second = dumped().streams['1'], t0 = second[Math.floor(second.length * 0.4)];
  return [t0, t0 + 200000];
}

/* Under a budget of `budget` bytes, the window read is as many slots at
 * most: with 11 slots, the names packets do not fit (with them the window
 * is 12 packets, whose content is less than 11 slots). */
async function checkSlotBudget(page, budget) {
  await page.evaluate((budget) => { window.mprofViewer.reading.windowBudget = budget; }, budget);
  const before = (await bigState(page)).reads.length;
  await page.evaluate(([t0, t1]) => window.mprofViewer.setRange(t0, t1), windowRange());
  await page.waitForFunction(() => window.mprofViewer.big().mode === 'window' && !window.mprofViewer.big().busy);
  const b = await bigState(page), slots = b.reads.slice(before).reduce((n, [a, z]) => n + (z - a) / b.packetSize, 0);
  check(slots === b.window.packets && slots * b.packetSize <= budget,
    `under a budget of ${budget} bytes, the slots read fit it: ${slots} of ${b.packetSize} bytes`);
}

/* The trace with its .mpidx: nothing but the head read for the first
 * frame; a window's model from its packets; Fit goes back to the index's
 * density.  An image of more slots than 32 bits of bytes hold is none. */
async function testBigWindow(context) {
  const page = await openBig(context, [TRACE, TRACE + '.mpidx']);
  let b = await bigState(page);
  check(b.indexFrom === 'file' && b.reads.length === 2, 'the index given is used, no packet read: ' + JSON.stringify(b.reads));
  checkDensity(b, dumped().streams);
  await checkWindow(page);
  await page.click('#fit');
  b = await bigState(page);
  check(b.mode === 'density' && b.t0 === 0, 'Fit shows the whole trace from its index: ' + b.mode);
  await checkSlotBudget(page, 11 * b.packetSize);
  const image = await page.evaluate((slots) => window.mprofViewer.bigImage(slots), Math.floor(2 ** 32 / b.packetSize) + 1);
  check(image === 0, `no image of 2^32 bytes and more: one at ${image}`);
  await page.close();
}

/* The page `mprof html` writes of a big trace (made big by
 * MPROF_HTML_INDEXED=0, in slices of 128 KiB): its first frame from the
 * index it wrote, having loaded no slice but the head's; a window's model
 * from the slices that hold its packets only (the budget from the page's
 * address). */
async function testBigHtml(context) {
  const page = await context.newPage(), scripts = [];
  page.on('request', (r) => scripts.push(r.url().split('/').pop()));
  await page.goto('file://' + path.resolve(out, 'streams-html/index.html') + '?windowBudget=' + BUDGET);
  await page.waitForFunction(() => window.mprofViewer && window.mprofViewer.big() && window.mprofViewer.big().density);
  const data = await page.evaluate(() => window.MPROF_DATA.traces[0]);
  let b = await bigState(page);
  check(b.indexFrom === 'file' && b.reads.length === 2, 'the index mprof html wrote, no packet read: ' + JSON.stringify(b.reads));
  checkDensity(b, dumped().streams);
  check(JSON.stringify(scripts.filter((s) => s.endsWith('.js'))) === '["data.js","0-0.js","0-index.js"]',
    'the data, the first slice (the head) and the index loaded for the first frame: ' + scripts);
  scripts.length = 0;
  const { reads } = await checkWindow(page);
  const wanted = new Set(), sliceOf = (at) => data.starts.filter((s) => s <= at).length - 1;
  for (const [a, z] of reads) for (let k = sliceOf(a); k <= sliceOf(z - 1); k++) wanted.add(`0-${k}.js`);
  const got = new Set(scripts.filter((s) => /^0-\d+\.js$/.test(s)));
  check([...got].every((s) => wanted.has(s)) && [...wanted].every((s) => got.has(s)) && got.size < data.starts.length,
    `the slices holding the window's packets, and no others: ${[...got]} for ${[...wanted]}`);
  await page.close();
}

/* The bytes of the slices `mprof html` wrote in dir (data/0-K.js, each
 * mprofSlice(0, K, end, [[offset, bytes], ...], function () {/\*base64*\/}))
 * against the trace's: each part the file's bytes at its offset, and the
 * file zeros wherever no part is.  Returns the bytes in parts. */
function checkSlices(dir, trace) {
  const fd = fs.openSync(trace, 'r'), size = fs.fstatSync(fd).size, parts = [];
  for (let k = 0; fs.existsSync(path.join(dir, `data/0-${k}.js`)); k++) {
    const text = fs.readFileSync(path.join(dir, `data/0-${k}.js`), 'latin1');
    const m = /^mprofSlice\(0, (\d+), \d+, (\[.*?\]), function \(\) \{\/\*([A-Za-z0-9+/=]*)\*\/\}\);\n$/s.exec(text);
    check(m && Number(m[1]) === k, `data/0-${k}.js is a slice script`);
    let at = 0;
    for (const [offset, bytes] of JSON.parse(m[2])) {
      const b64 = Math.ceil(bytes / 3) * 4, mine = Buffer.from(m[3].slice(at, at + b64), 'base64');
      at += b64;
      const file = Buffer.alloc(bytes);
      fs.readSync(fd, file, 0, bytes, offset);
      check(mine.equals(file), `data/0-${k}.js: the trace's ${bytes} bytes at ${offset}`);
      parts.push([offset, offset + bytes]);
    }
  }
  const chunk = Buffer.alloc(16 << 20), zeros = Buffer.alloc(16 << 20);
  parts.push([size, size]);
  for (let i = 0, from = 0; i < parts.length; from = parts[i++][1]) {
    for (let a = from; a < parts[i][0]; a += chunk.length) {
      const n = Math.min(chunk.length, parts[i][0] - a);
      fs.readSync(fd, chunk, 0, n, a);
      check(chunk.subarray(0, n).equals(zeros.subarray(0, n)), `the trace is zeros at ${a}, where no slice has it`);
    }
  }
  fs.closeSync(fd);
  return parts.reduce((n, [a, z]) => n + z - a, 0);
}

/* The events a trace keeps in its names area, not in its ring streams
 * (docs/FORMAT.md). */
const NAMES_AREA = ['string', 'label', 'counter_name', 'should_resolve'];

/* A sparse trace of 1 GiB (past the size the page reads whole, so
 * `mprof html` wrote it by its index, in an address space of 600 MiB it
 * could neither map nor read it into): its slices hold its bytes; the
 * page's first frame, from the index mprof html wrote, has each ring
 * stream's events as `mprof dump` has them (within a column's cut). */
async function testBigHtmlSparse(context) {
  const trace = path.join(out, 'sparse.ctf'), dir = path.join(out, 'sparse-html');
  const bytes = checkSlices(dir, trace);
  check(bytes > 1 << 20 && bytes < 256 << 20, 'the slices hold the written part of the trace: ' + bytes);
  const page = await context.newPage();
  await page.goto('file://' + path.resolve(dir, 'index.html') + '?windowBudget=' + BUDGET);
  await page.waitForFunction(() => window.mprofViewer && window.mprofViewer.big() && window.mprofViewer.big().density);
  const b = await bigState(page), counts = {};
  check(b.indexFrom === 'file' && b.reads.length === 2, 'the index mprof html wrote, no packet read: ' + JSON.stringify(b.reads));
  for (const line of fs.readFileSync(path.join(out, 'sparse.txt'), 'utf8').split('\n')) {
    const [, stream, kind] = line.split(' ');
    if (kind && !NAMES_AREA.includes(kind)) counts[stream] = (counts[stream] || 0) + 1;
  }
  const d = b.density, rows = d.rows.map((r) => r.split(' ')[1]);
  check(JSON.stringify(d.rows) === JSON.stringify(rows.map((r) => `stream ${r} (${stats('sparse').program})`)),
    `a row per stream, named by its number and the program: ${d.rows}`);
  check(JSON.stringify(rows) === JSON.stringify(Object.keys(counts)), `a row per stream of the dump: ${rows}`);
  rows.forEach((row, r) => {
    const total = d.counts.slice(r * d.columns, (r + 1) * d.columns).reduce((a, n) => a + n, 0);
    check(Math.abs(total - counts[row]) <= counts[row] / 100, `stream ${row}: ${counts[row]} events, drawn ${total}`);
  });
  await page.close();
}

/* A file below reading.bigFrom whose whole model, as its preview tells,
 * would put the page over reading.wholeBudget: read by its index (built
 * here) under a budget of its file and half its model (its events as
 * mprof stats counts them, half of reading.modelBytesPerEvent each), and
 * whole under its file and twice its model.  The page mprof html writes
 * of it with MPROF_HTML_BUDGET the first reads it by the index mprof html
 * wrote. */
async function testBigBudget(context) {
  const size = fs.statSync(TRACE).size, events = stats('streams').events;
  for (const [budget, byIndex] of [[size + events * 32, true], [size + events * 128, false]]) {
    const page = await open(context, `net/index.html?wholeBudget=${budget}`);
    await page.setInputFiles('#file', TRACE);
    await page.waitForFunction(() => (window.mprofViewer.big() && window.mprofViewer.big().density)
      || window.mprofViewer.view.openToCompleteMs !== undefined, null, { timeout: 30000 });
    const b = await bigState(page);
    /* by its index: its density first, then (the whole fits the window
     * budget) maybe its window's model already */
    if (byIndex) check(b && b.indexFrom === 'built', `over a budget of ${budget}: by its index: ${b && b.mode}`);
    else check(!b && (await page.evaluate(() => window.mprofViewer.panes[0].summary.events)) === events, `under ${budget}: whole`);
    await page.close();
  }
  const page = await context.newPage();
  await page.goto('file://' + path.resolve(out, 'streams-budget/index.html'));
  await page.waitForFunction(() => window.mprofViewer && ((window.mprofViewer.big() && window.mprofViewer.big().density)
    || window.mprofViewer.view.openToCompleteMs !== undefined), null, { timeout: 30000 });
  const b = await bigState(page), data = await page.evaluate(() => window.MPROF_DATA.traces[0]);
  check(data.index && b && b.indexFrom === 'file', `mprof html over its budget: by the index it wrote: ${b && b.indexFrom}`);
  await page.close();
}

/* An index not of this trace (another trace's), and this trace's index
 * damaged (one byte changed): neither is believed; the index is built
 * here, and the first frame is the same. */
async function testBigIndexRejected(context) {
  for (const [index, what] of [['phases.ctf.mpidx', /size|uuid|key|stale|trace/i], ['streams-damaged.mpidx', /checksum/i]]) {
    const page = await openBig(context, [TRACE, path.join(out, index)]);
    const b = await bigState(page);
    check(b.indexFrom === 'built' && what.test(b.indexRejected || ''), `${index} is not believed: ${b.indexRejected}`);
    checkDensity(b, dumped().streams);
    await page.close();
  }
}

/* Once every read of a big trace has settled, what ran after each (a
 * stale one's continuation included), and the frames drawn after that
 * (a draw that would read again), have run. */
async function readsSettled(page) {
  await page.waitForFunction(() => {
    const n = window.mprofViewer.bigReadCount(), b = window.mprofViewer.big();
    return n.started === n.settled && !(b && b.busy);
  });
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  const n = await page.evaluate(() => window.mprofViewer.bigReadCount());
  check(n.started === n.settled, `no read started after the last settled: ${JSON.stringify(n)}`);
}

/* Another trace (phases.ctf, with its index) opened while a window of
 * the first is read, that read held until the second is shown: when it
 * comes in, the first's handle (freed) makes no image, no model and no
 * index; the page shows the second trace. */
async function testBigReopen(context) {
  const page = await openBig(context, [TRACE, TRACE + '.mpidx']);
  await page.evaluate(() => {
    const source = window.mprofViewer.bigSource(), read = source.read;
    const held = new Promise((release) => { window.releaseRead = release; });
    source.read = (start, end) => held.then(() => read(start, end));
    window.bigCalls = window.mprofViewer.spyWasm(['mprof_web_big_image', 'mprof_web_big_open_window',
      'mprof_web_big_use_index']);
  });
  await page.evaluate(([t0, t1]) => window.mprofViewer.setRange(t0, t1), windowRange());
  await page.waitForFunction(() => window.mprofViewer.big().busy);
  const phases = path.join(out, 'phases.ctf');
  await page.setInputFiles('#file', [phases, phases + '.mpidx']);
  await page.waitForFunction(() => /^phases.ctf: /.test(document.getElementById('status').textContent)
    && !window.mprofViewer.big().busy, null, { timeout: 30000 });
  const shown = await bigState(page);
  await page.evaluate(() => { window.bigCalls.length = 0; window.releaseRead(); });
  await readsSettled(page);
  const calls = await page.evaluate(() => window.bigCalls), b = await bigState(page);
  check(calls.length === 0, 'nothing done with the first trace\'s handle once it came in: ' + calls);
  check(page.errors.length === 0, 'no error: ' + page.errors);
  const packets = Number(/(\d+) packets/.exec(fs.readFileSync(path.join(out, 'phases.index.txt'), 'utf8'))[1]);
  check(b.indexFrom === 'file' && b.summary.packets === packets && b.mode === shown.mode
    && /^phases.ctf: /.test(await page.textContent('#status')),
  `the second trace shown, by its index of ${packets} packets: ${JSON.stringify(b.summary)}, ${b.mode}`);
  await page.close();
}

/* A window whose packets cannot be read (the file, as the page reads it,
 * cut short since it was opened) is read once, not again and again; the
 * status line says so, and the density stays.  Another range asks again,
 * once. */
async function testBigUnread(context) {
  const page = await openBig(context, [TRACE, TRACE + '.mpidx']);
  await page.evaluate(() => {
    const source = window.mprofViewer.bigSource(), read = source.read;
    source.read = (start, end) => read(start, end).then((bytes) => bytes.subarray(1));
  });
  const [t0, t1] = windowRange();
  for (const [range, tries] of [[[t0, t1], 1], [[t0 + 100000, t1 + 100000], 2]]) {
    await page.evaluate(([t0, t1]) => window.mprofViewer.setRange(t0, t1), range);
    await page.waitForFunction(() => /cannot read the packets/.test(document.getElementById('status').textContent));
    await readsSettled(page);
    const b = await bigState(page), reads = b.reads.slice(2);
    check(reads.length === tries && b.mode === 'density' && !b.busy,
      `${tries} window read, not again: ${reads.length} reads, ${b.mode}`);
    check(/changed while read \(not read again until the range changes\)$/.test(await page.textContent('#status')),
      'the status says why and that it is not read again: ' + await page.textContent('#status'));
  }
  check(page.errors.length === 0, 'no error: ' + page.errors);
  await page.close();
}

module.exports = { testBigDensity, testBigWindow, testBigHtml, testBigHtmlSparse, testBigBudget, testBigIndexRejected,
  testBigReopen, testBigUnread };
