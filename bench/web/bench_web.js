/* bench_web.js -- the browser viewer's speed in Debian's Chromium (headless,
 * playwright-core): net.ctf's load, a big trace's first frame and complete
 * view, pan and zoom frame times, and page memory against the trace file's
 * size.
 *
 *   node bench_web.js VIEWER_DIR [BIG_TRACE [BIG_VIEWER_DIR]]
 *
 * VIEWER_DIR is `mprof html net.ctf -o VIEWER_DIR`; the big trace is opened
 * through the page's file picker, as a user would (without one: net.ctf's
 * load only), and BIG_VIEWER_DIR, `mprof html BIG_TRACE -o BIG_VIEWER_DIR`,
 * is opened from file:// (its first frame and complete view).  Prints JSON lines
 * {"bench","metric","value","baseline","baseline_value","ratio"} on stdout.
 * The baselines are fixed budgets (16 ms a frame, 1.5 s to the first
 * frame, 3x the file in memory), stated as such, or measured in this run:
 * the complete view against the same file read in one pass with no preview
 * (a fresh page), and net.ctf's first frame against an empty page's first
 * paint.  net.ctf's load is measured in windows of 1600x900 (web_net_load)
 * and of other sizes (web_net_load_WxH: NET_SIZES).  With
 * MPROF_BENCH_WEB_INDEX_TRACE, a trace too big for the page's memory, read
 * by its index (indexBench()). */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const [viewerDir, bigTrace, bigViewerDir] = process.argv.slice(2);
const indexTrace = process.env.MPROF_BENCH_WEB_INDEX_TRACE; /* read by its index: indexBench() */

function emit(bench, metric, value, baseline, baselineValue) {
  console.log(JSON.stringify({ bench, metric, value: Number(value.toFixed(3)), baseline,
    baseline_value: Number(baselineValue.toFixed(3)), ratio: Number((value / baselineValue).toFixed(4)) }));
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const p95 = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length * 0.95)];

/* Frame times (ms) of `steps` views given by fn(i) -> [t0, t1], each to
 * its pixels: reading one back makes the canvas rasterize what it recorded
 * (else a frame painted over by the next one is never rasterized at all).
 * The scene's build time (WebAssembly) goes to stderr as a note. */
async function frames(page, name, steps, fn) {
  const [out, builds] = await page.evaluate(([steps, fnText]) => {
    const v = window.mprofViewer, f = new Function('i', 'd', fnText), d = v.panes[0].summary.duration;
    const out = [], builds = [];
    for (let i = 0; i < steps; i++) {
      const [t0, t1] = f(i, d);
      v.setRange(t0, t1);
      const start = performance.now();
      v.redraw();
      for (const p of v.panes) p.canvas.getContext('2d').getImageData(0, 0, 1, 1);
      out.push(performance.now() - start);
      builds.push(v.view.lastBuildMs);
    }
    return [out, builds];
  }, [steps, fn]);
  console.error(`bench: ${name}: frame median ${median(out).toFixed(1)} ms, of which the scene's build ${median(builds).toFixed(1)} ms`);
  return out;
}

/* net.ctf's page and an empty page, each opened NET_RUNS times
 * (MPROF_BENCH_WEB_NET_RUNS, default 7) in turns in fresh tabs of a window
 * of `size` ({width, height}): the medians of the ms from the navigation
 * to net.ctf's first frame (measured in the page) and to the empty page's
 * first paint (the empty page is written beside the viewer). */
const NET_RUNS = Number(process.env.MPROF_BENCH_WEB_NET_RUNS) || 7;
async function netLoad(context, size) {
  const emptyPage = path.join(viewerDir, 'empty.html');
  fs.writeFileSync(emptyPage, '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>empty</title></head>'
    + '<body><p>An empty page.</p></body></html>');
  const frame = [], empty = [], split = [], shown = [], fcp = [];
  const newPage = async () => {
    const page = await context.newPage();
    await page.setViewportSize(size);
    return page;
  };
  for (let i = 0; i < NET_RUNS; i++) {
    let page = await newPage();
    await page.goto('file://' + emptyPage);
    await page.waitForFunction(() => performance.getEntriesByType('paint').some((p) => p.name === 'first-contentful-paint'));
    empty.push(await page.evaluate(() => performance.getEntriesByType('paint').find((p) => p.name === 'first-contentful-paint').startTime));
    await page.close();
    page = await newPage();
    await page.goto('file://' + path.resolve(viewerDir, 'index.html'));
    await page.waitForFunction(() => window.mprofViewer && window.mprofViewer.view.openToShownMs !== undefined
      && window.mprofViewer.view.openToCompleteMs !== undefined /* the model's frame, after a native first frame */
      && performance.getEntriesByType('paint').some((p) => p.name === 'first-contentful-paint'));
    const r = await page.evaluate(() => ({ frame: window.mprofViewer.view.openToFrameMs, timing: window.mprofViewer.view.timing,
      shown: window.mprofViewer.view.openToShownMs, native: !!window.mprofViewer.view.firstFrameNative,
      standIn: !!window.mprofViewer.view.firstFrameStandIn,
      fcp: performance.getEntriesByType('paint').find((p) => p.name === 'first-contentful-paint').startTime,
      domInteractive: performance.getEntriesByType('navigation')[0].domInteractive,
      marks: performance.getEntriesByType('mark').filter((e) => e.name.startsWith('mprof:'))
        .map((e) => `${e.name.slice(6)} ${e.startTime.toFixed(0)}`).join(', ') }));
    frame.push(r.frame);
    shown.push(r.shown);
    fcp.push(r.fcp);
    split.push(r);
    await page.close();
  }
  const m = split.find((r) => r.frame === median(frame)), t = m.timing;
  console.error(`bench: net.ctf, ${size.width}x${size.height}: first frames ${frame.map((x) => x.toFixed(0)).join(' ')} ms, an empty page's first paints `
    + `${empty.map((x) => x.toFixed(0)).join(' ')} ms; the median run: domInteractive ${m.domInteractive.toFixed(0)} ms, `
    + `first frame ${m.native ? 'built by mprof html' : m.standIn ? 'a stand-in mapped from one built by mprof html' : 'from the model'}, trace into WebAssembly memory `
    + `${t.readMs.toFixed(0)} ms, model ${t.modelMs.toFixed(0)} ms, the model's frame ${t.frameMs.toFixed(0)} ms; `
    + `the page's marks (ms from the navigation): ${m.marks}`);
  console.error(`bench: net.ctf, ${size.width}x${size.height}: medians: the next animation frame after the first frame ${median(shown).toFixed(0)} ms, `
    + `the page's first contentful paint ${median(fcp).toFixed(0)} ms (presented; the empty page's: ${median(empty).toFixed(0)} ms)`);
  return { frame: median(frame), empty: median(empty) };
}

/* Open the big trace in page through the file picker; view's figures once
 * its complete view is drawn. */
async function openBig(page) {
  await page.setInputFiles('#file', bigTrace);
  await page.waitForFunction(() => window.mprofViewer.view.openToCompleteMs !== undefined, null,
    { timeout: 300000, polling: 50 });
  return page.evaluate(() => {
    const v = window.mprofViewer.view;
    return { openToFrameMs: v.openToFrameMs, openToCompleteMs: v.openToCompleteMs, timing: v.timing };
  });
}

/* The big trace read in one pass with no preview, in a fresh page (fresh
 * WebAssembly memory, as in the measured load): ms to its complete view. */
async function singlePass(context) {
  const page = await context.newPage();
  await page.goto('file://' + path.resolve(viewerDir, 'index.html'));
  await page.waitForFunction(() => window.mprofViewer && window.mprofViewer.ready);
  await page.evaluate(() => { window.mprofViewer.reading.preview = 0; });
  const r = await openBig(page);
  await page.close();
  console.error(`bench: big trace in one pass: file into WebAssembly memory ${r.timing.readMs.toFixed(0)} ms, `
    + `then decode and model ${r.timing.modelMs.toFixed(0)} ms`);
  return r.openToCompleteMs;
}

async function pageMemory(page, cdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = await cdp.send('Runtime.getHeapUsage');
  const wasmBytes = await page.evaluate(() => window.mprofViewer.wasmMemoryBytes());
  return heap.usedSize + wasmBytes;
}

/* The big trace: its first frame and complete view, frames, memory. */
async function bigTraceBench(context) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await page.goto('file://' + path.resolve(viewerDir, 'index.html'));
  await page.waitForFunction(() => window.mprofViewer && window.mprofViewer.ready);
  /* the big trace through the file picker: from the pick to its first
   * frame (of a preview: the model of the part read so far) and to the
   * complete view */
  const big = await openBig(page);
  emit('web_big_first_frame', 'ms_to_first_frame', big.openToFrameMs, 'budget_1500ms', 1500);
  const single = await singlePass(context);
  emit('web_big_complete', 'ms_to_complete_view', big.openToCompleteMs, 'single_pass_no_preview', single);
  const events = await page.evaluate(() => window.mprofViewer.panes[0].summary.events);
  console.error(`bench: big trace: ${events} events, ${fs.statSync(bigTrace).size} bytes`);
  const t = big.timing;
  console.error(`bench: big trace: preview shown at ${t.previewMs.toFixed(0)} ms; file into WebAssembly memory `
    + `${t.readMs.toFixed(0)} ms, then decode and model ${t.modelMs.toFixed(0)} ms, first complete frame `
    + `${t.frameMs.toFixed(0)} ms`);
  const pans = await frames(page, 'pan', 60, 'const s = d / 50; return [i * s / 60 * 10, i * s / 60 * 10 + s];');
  emit('web_pan', 'frame_ms_median', median(pans), 'budget_16ms', 16);
  emit('web_pan', 'frame_ms_p95', p95(pans), 'budget_16ms', 16);
  const zooms = await frames(page, 'zoom', 60, 'const s = d / Math.pow(1.2, i % 40); return [d / 2 - s / 2, d / 2 + s / 2];');
  emit('web_zoom', 'frame_ms_median', median(zooms), 'budget_16ms', 16);
  emit('web_zoom', 'frame_ms_p95', p95(zooms), 'budget_16ms', 16);
  const fit = await frames(page, 'fit', 10, 'return [0, d];');
  emit('web_fit', 'frame_ms_median', median(fit), 'budget_16ms', 16);
  const size = fs.statSync(bigTrace).size;
  emit('web_memory', 'page_bytes_per_file_byte', (await pageMemory(page, cdp)) / size, 'budget_3x_file', 3);
  await page.close();
  if (!bigViewerDir) return;
  const html = await bigHtml(context);
  emit('web_big_html_first_frame', 'ms_to_first_frame', html.first, 'budget_1500ms', 1500);
  emit('web_big_html_complete', 'ms_to_complete_view', html.complete, 'file_picker_complete_view', big.openToCompleteMs);
}

/* The big trace's `mprof html` directory, opened from file:// HTML_RUNS
 * times (MPROF_BENCH_WEB_HTML_RUNS, default 3) in fresh tabs: the medians
 * of the ms from the navigation to its first frame (the preview, from the
 * first slice) and to its complete view. */
const HTML_RUNS = Number(process.env.MPROF_BENCH_WEB_HTML_RUNS) || 3;
async function bigHtml(context) {
  const runs = [];
  for (let i = 0; i < HTML_RUNS; i++) {
    const page = await context.newPage();
    await page.goto('file://' + path.resolve(bigViewerDir, 'index.html'), { waitUntil: 'commit' });
    await page.waitForFunction(() => window.mprofViewer && window.mprofViewer.view.openToCompleteMs !== undefined, null,
      { timeout: 300000, polling: 50 });
    runs.push(await page.evaluate(() => {
      const v = window.mprofViewer.view;
      return { first: v.openToFrameMs, complete: v.openToCompleteMs, timing: v.timing,
        domInteractive: performance.getEntriesByType('navigation')[0].domInteractive };
    }));
    await page.close();
  }
  const first = median(runs.map((r) => r.first)), complete = median(runs.map((r) => r.complete));
  const m = runs.find((r) => r.complete === complete), t = m.timing;
  console.error(`bench: big trace's mprof html page: first frames ${runs.map((r) => r.first.toFixed(0)).join(' ')} ms, `
    + `complete views ${runs.map((r) => r.complete.toFixed(0)).join(' ')} ms; the median run: domInteractive `
    + `${m.domInteractive.toFixed(0)} ms, preview at ${t.previewMs.toFixed(0)} ms, slices into WebAssembly memory by `
    + `${t.readMs.toFixed(0)} ms, then decode and model ${t.modelMs.toFixed(0)} ms`);
  return { first, complete };
}

/* A trace past reading.bigFrom, read by its index (INDEX_TRACE, with
 * INDEX_TRACE.mpidx beside it): picked with its index, the ms to the first
 * frame (from the index alone), then to a window's model (a thousandth of
 * the trace, at its middle); page memory after each.  Picked alone, the
 * ms to the first frame from the index the page builds (over the whole
 * file: slow, but in bounded memory), and the memory after it. */
async function indexBench(context) {
  const size = fs.statSync(indexTrace).size, gib = 1 << 30;
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await page.goto('file://' + path.resolve(viewerDir, 'index.html'));
  await page.waitForFunction(() => window.mprofViewer && window.mprofViewer.ready);
  await page.setInputFiles('#file', [indexTrace, indexTrace + '.mpidx']);
  await page.waitForFunction(() => window.mprofViewer.view.openToFrameMs !== undefined, null, { timeout: 300000, polling: 50 });
  const first = await page.evaluate(() => ({ ms: window.mprofViewer.view.openToFrameMs, big: window.mprofViewer.big() }));
  if (first.big.indexFrom !== 'file') throw new Error(`${indexTrace}.mpidx not used: ${first.big.indexRejected}`);
  emit('web_index_first_frame', 'ms_to_first_frame', first.ms, 'budget_2000ms', 2000);
  emit('web_index_memory', 'page_gib_first_frame', (await pageMemory(page, cdp)) / gib, 'budget_1.5GiB', 1.5);
  const started = Date.now();
  await page.evaluate(() => { const d = window.mprofViewer.big().summary.duration; window.mprofViewer.setRange(d * 0.5, d * 0.501); });
  await page.waitForFunction(() => window.mprofViewer.big().mode === 'window' && !window.mprofViewer.big().busy, null,
    { timeout: 300000, polling: 50 });
  const windowMs = Date.now() - started, { window: w, timing: t } = await page.evaluate(() => window.mprofViewer.big());
  console.error(`bench: ${size} bytes read by its index: a window of ${w.packets} packets (${w.bytes} bytes of slots) modelled in `
    + `${windowMs} ms: its packets named ${t.planMs.toFixed(0)} ms, read ${t.readMs.toFixed(0)} ms, modelled `
    + `${t.modelMs.toFixed(0)} ms, drawn ${t.drawMs.toFixed(0)} ms`);
  emit('web_index_window', 'ms_to_window_model', windowMs, 'budget_2000ms', 2000);
  emit('web_index_memory', 'page_gib_window', (await pageMemory(page, cdp)) / gib, 'budget_1.5GiB', 1.5);
  await page.close();
  const alone = await context.newPage();
  const cdpAlone = await context.newCDPSession(alone);
  await alone.goto('file://' + path.resolve(viewerDir, 'index.html'));
  await alone.waitForFunction(() => window.mprofViewer && window.mprofViewer.ready);
  await alone.setInputFiles('#file', indexTrace);
  await alone.waitForFunction(() => window.mprofViewer.view.openToFrameMs !== undefined, null, { timeout: 900000, polling: 200 });
  const built = await alone.evaluate(() => window.mprofViewer.view.openToFrameMs);
  emit('web_index_built_first_frame', 'ms_to_first_frame', built, 'with_its_index', first.ms);
  emit('web_index_memory', 'page_gib_index_built', (await pageMemory(alone, cdpAlone)) / gib, 'budget_1.5GiB', 1.5);
  await alone.close();
}

/* Windows net.ctf's load is measured in: three that `mprof html` builds a
 * first frame for (cli/html_frame.c) and one it does not (the page paints
 * a stand-in mapped from the nearest one, then the model's frame);
 * MPROF_BENCH_WEB_NET_SIZES: others, as WxH,WxH... */
const NET_SIZES = (process.env.MPROF_BENCH_WEB_NET_SIZES || '1600x900,1280x720,1920x1080,1200x700').split(',')
  .map((s) => s.split('x').map(Number)).map(([width, height]) => ({ width, height }));

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'mprof-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1600, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  /* size by size, the page and the empty page in turns */
  for (const size of NET_SIZES) {
    const net = await netLoad(context, size);
    const bench = size.width === 1600 && size.height === 900 ? 'web_net_load' : `web_net_load_${size.width}x${size.height}`;
    emit(bench, 'ms_to_first_frame', net.frame, 'empty_page_first_paint', net.empty);
    emit(bench, 'ms_more_than_empty_page', net.frame - net.empty, 'budget_100ms', 100);
  }
  if (bigTrace) await bigTraceBench(context);
  if (indexTrace) await indexBench(context);
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
})().catch((e) => { console.error('bench: web: ' + e.message); process.exit(1); });
