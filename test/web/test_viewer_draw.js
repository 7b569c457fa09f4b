/* test_viewer_draw.js -- test_viewer.js's tests of what the page draws and
 * does: the story's rows, search, double-click and zoom, labels that are
 * HTML or script, a generated trace, compare, the legend, counter toggles,
 * an idle band, the keys, a pane resized, and the desktop viewer's
 * display list for the same view. */
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const {
  out, COLOURS, check, FRAME_WINDOW, open, redraw, where, pixel, drag, near, shot, text,
  pixelRow, BACKGROUND, COUNTER, range, hexRgb, ROLE_BAND, ROLE_AXIS, ROLE_MARK, ROLE_ARROW, ROLE_NAME, COUNTER_STRIP,
  palette, displayList, covered, counterPixels, toggleCounter, namesPx
} = require('./viewer_page');

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
  await testNameColumn(page, ['stuck job', 'GET /', 'disk read']);
  await legendIsDrawn(page, 'story');
  /* findings */
  const findings = await text(page, '#findings');
  check(findings.includes('error stalled: "stuck job"'), 'findings list the stuck job: ' + findings);
  check(findings.includes('error lost_wakeup: "wait for ready"'), 'findings list the lost wake-up: ' + findings);
  await page.click('#findings button:has-text("stalled: \\"stuck job\\"")');
  await redraw(page);
  const details = await text(page, '#details');
  check(details.startsWith('labelstuck job') && details.includes('should resolve and never did'),
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
  const px = box[2] * 0.25, n = namesPx(box[2]); /* the time range is right of the name column */
  const before = b0 + (b1 - b0) * (px - n) / (box[2] - n);
  await page.mouse.move(box[0] + px, box[1] + 100);
  for (let i = 0; i < 5; i++) await page.mouse.wheel(0, -100);
  await page.waitForTimeout(100);
  await redraw(page);
  const [c0, c1] = await range();
  check((b1 - b0) / (c1 - c0) > 2, `five wheel steps zoom in (${b1 - b0} -> ${c1 - c0})`);
  const after = c0 + (c1 - c0) * (px - n) / (box[2] - n);
  check(Math.abs(after - before) < (c1 - c0) * 0.01, `the time under the pointer stays (${before} vs ${after})`);
  /* dragging right by 200 px shows what was 200 px to the left */
  await drag(page, box[0] + 500, box[1] + 200, 200, 0);
  const [d0, d1] = await range();
  const shift = (c0 - d0) / ((c1 - c0) / (box[2] - n));
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
  /* from the divergence to the wide run's end: the burst of requests,
   * which fit may squeeze into a few pixels behind the divergence mark
   * when the program was slow to start (a sanitizer build's) */
  await page.evaluate(() => {
    const v = window.mprofViewer;
    v.setRange(v.view.divergence.a_time - 1000, v.panes[0].summary.duration);
  });
  await redraw(page);
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
  const want = report.findings.map((f) => `${f.severity} ${f.kind}: ${f.summary}`);
  check(JSON.stringify(findings) === JSON.stringify(want), `generated: the findings are the report's: ${findings}`);
  check(want.length || (await text(page, '#findings')) === 'Nothing found.', 'generated: "Nothing found." if none');
  const task = (await where(page, 'request')).t;
  check(task.ending === 'failed' && task.failure === 'failed', 'generated: a request failed: ' + JSON.stringify(task));
  check(page.errors.length === 0, 'generated: no page errors: ' + page.errors);
  await shot(page, 'generated');
  await page.close();
}

/* The name column: each of these threads' rows is named in it (the
 * display list's text, at the column's left, cut at its edge; dark text
 * pixels there in the canvas), and stays there while the view is dragged
 * half its width.  A row names its first thread in view, which in a
 * recorded story may be another thread sharing the row (which one, the
 * core's test_scene_screen checks exactly): the text names a thread of
 * that row. */
async function testNameColumn(page, names) {
  for (const panned of [false, true]) {
    if (panned) await drag(page, 600, 200, -300, 0);
    await redraw(page);
    const list = (await displayList(page)).filter((p) => p.role === ROLE_NAME && p.text);
    for (const name of names) {
      const w = await where(page, name), n = namesPx(w.w);
      const entry = list.find((p) => Math.abs(p.y0 - (w.y + 4)) < 0.01);
      const other = entry && entry.text !== name ? await where(page, entry.text) : null;
      const ofRow = entry && (entry.text === name || (other && other.t.row === w.t.row));
      check(ofRow && entry.x0 === 4 && entry.x1 === n - 4, `names${panned ? ' (dragged)' : ''}: '${name}' in the column at `
        + `its row, y ${w.y + 4}: ${JSON.stringify(entry)}`);
      const rows = await Promise.all([-4, -2, 0, 2].map((dy) => pixelRow(page, w.y + dy, 0)));
      const dark = rows.flatMap((r) => r.slice(0, n - 2).map((c, x) => ({ c, x }))).filter((p) => p.c.every((v) => v < 110));
      check(dark.length > 5 && Math.min(...dark.map((p) => p.x)) >= 3 && Math.max(...dark.map((p) => p.x)) < n - 4,
        `names: '${name}' painted in the column (${dark.length} dark pixels)`);
    }
  }
  await page.keyboard.press('0');
  await redraw(page);
}

/* The legend explains every colour the trace is drawn in, and only what
 * the trace holds: each colour of the display lists of the fit view cut
 * in 50 ranges (less the background, texts, the axis, the name column and
 * the marks of a search or selection) has its entry, by its palette
 * name, and each entry is one of those or the kind of one of the trace's
 * arrows (arrows a few ns apart are summed up under the first one's
 * colour, even zoomed in). */
async function legendIsDrawn(page, what) {
  await page.keyboard.press('0');
  await redraw(page);
  const { colours, kinds } = await page.evaluate(() => {
    const v = window.mprofViewer, t0 = v.view.t0, step = (v.view.t1 - t0) / 50, seen = new Set(), kinds = new Set();
    for (let k = 0; k < 50; k++) {
      v.setRange(t0 + k * step, t0 + (k + 1) * step);
      v.redraw();
      for (const p of v.displayList(0)) seen.add(p.colour);
    }
    for (let i = 0, kind; (kind = v.arrowKind(0, i)); i++) kinds.add(kind);
    return { colours: [...seen], kinds: [...kinds] };
  });
  await page.keyboard.press('0');
  await redraw(page);
  const pal = await palette(page);
  const never = new Set(['background', 'label', 'time axis', 'names', 'highlight', 'search match']);
  const drawn = colours.map((c) => pal[c].name).filter((n) => !never.has(n));
  const arrows = pal.filter((c) => kinds.includes(c.arrow)).map((c) => c.name);
  const legend = await page.$$eval('#legend li', (lis) => lis.map((li) => li.textContent));
  check(drawn.length > 3 && drawn.every((n) => legend.includes(n)) && legend.every((n) => drawn.includes(n) || arrows.includes(n))
    && new Set(legend).size === legend.length,
    `legend of ${what}: ${legend.join(', ')}; drawn: ${drawn.sort().join(', ')}; arrow kinds: ${kinds.join(', ')}`);
}

/* web_trace idle: the legend names what is drawn; every arrow kind drawn
 * in the colour of its legend entry, which shows the kind's palette name
 * and colour. */
async function testLegend(context) {
  const page = await open(context, 'idle/index.html');
  await legendIsDrawn(page, 'idle');
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
 * same pane size and view (its fit, then a range scrolled by a row, then
 * the threads holding an "o" marked by the search), as `view_probe prims`
 * prints it from the desktop viewer's own set-up: primitive by primitive,
 * texts included. */
async function testSameLayout(context) {
  const page = await open(context, 'story.html');
  const probe = path.join(out, '..', '..', 'view', 'view_probe');
  const views = [
    ['fit', '', () => {}],
    ['range', '', () => { const v = window.mprofViewer, d = v.panes[0].summary.duration; v.setRange(d * 0.1, d * 0.6); v.scrollTo(16); }],
    ['search', 'o', () => window.mprofViewer.search('o')],
  ];
  for (const [name, search, set] of views) {
    await page.evaluate(set);
    await redraw(page);
    const state = await page.evaluate(() => {
      const v = window.mprofViewer, p = v.panes[0];
      return { w: p.canvas.clientWidth, h: p.canvas.clientHeight, t0: v.view.t0, t1: v.view.t1, scroll: p.scroll };
    });
    const browser = await displayList(page);
    const args = ['prims', path.join(out, 'story.ctf'), state.w, state.h, name === 'fit' ? 0 : state.t0,
      name === 'fit' ? -1 : state.t1, state.scroll, ...(search ? [search] : [])].map(String);
    const desktop = execFileSync(probe, args, { encoding: 'utf8' }).split('\n').filter((l) => l).map((l) => {
      const f = l.split(' ');
      return { kind: +f[0], colour: +f[1], role: +f[2], thread: +f[3], x0: f[4], y0: f[5], x1: f[6], y1: f[7],
        alpha: f[8], width: f[9], text: f.slice(10).join(' ') };
    });
    const at = `same layout (${name}, ${state.w}x${state.h})`;
    check(browser.length > 20 && browser.length === desktop.length
      && (!search || browser.filter((p) => p.role === ROLE_MARK).length > 2),
      `${at}: ${browser.length} primitives in the browser, ${desktop.length} in the desktop viewer, search marks too`);
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
  const outside = row.filter((c, x) => off(x) && x >= namesPx(before.w) && (x < before.x1 - 1 || x > after.x0 + 1));
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

module.exports = {
  testStory, testSearch, testDoubleClick, testZoom, testXss, testCompare, testCompareRuns,
  testGenerated, testLegend, testCounters, testPaneResize, testSameLayout, testIdleBand, testKeys
};
