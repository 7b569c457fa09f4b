/* test_viewer_findings.js -- test_viewer.js's tests of the findings panel:
 * for recorded traces with known findings (the demo's hung run, a zoo
 * program whose connects fail again and again) the panel lists exactly
 * what `mprof report --json` finds, in its order, each "severity kind:
 * summary"; a click shows the finding's range, selects its thread at
 * fault (its details) and highlights it.  A capture of `mprof watch` opens
 * on the finding that fired it. */
'use strict';
const fs = require('fs');
const path = require('path');
const { out, AXIS, ROW, COLOURS, check, open, redraw, near, shot, text, range } = require('./viewer_page');

/* The report's findings as the panel words them. */
function reportLines(file) {
  const report = JSON.parse(fs.readFileSync(path.join(out, file), 'utf8'));
  return report.findings.map((f) => ({ line: `${f.severity} ${f.kind}: ${f.summary}`, f }));
}

const panelLines = (page) => page.$$eval('#findings button', (b) => b.map((x) => x.textContent));

/* What a click on a finding must show: its range with the fit's 2 % of
 * its span each side (at least 1 µs; timeline.h). */
function expectedRange(f) {
  const pad = Math.max((f.end_ns - f.start_ns) * 0.02, 1000);
  return [f.start_ns - pad, f.end_ns + pad];
}

/* Click finding i of the panel: the range is the finding's, its first
 * thread is selected, in the details and highlighted. */
async function clickFinding(page, i, f, name) {
  await page.click(`#findings button >> nth=${i}`);
  await redraw(page);
  const [t0, t1] = await range(page);
  const [w0, w1] = expectedRange(f);
  check(Math.abs(t0 - w0) <= 1 && Math.abs(t1 - w1) <= 1,
    `${name}: finding ${i} (${f.kind}) shows [${w0}, ${w1}), not [${t0}, ${t1})`);
  const at = await selectedThread(page);
  check(at && at.t.id === String(f.threads[0].id) && at.t.name === f.threads[0].name,
    `${name}: finding ${i} selects ${f.threads[0].type}#${f.threads[0].id}: ${JSON.stringify(at && at.t)}`);
  const details = await text(page, '#details');
  check(details.startsWith('label' + f.threads[0].name), `${name}: the details are its thread's: ${details}`);
  check(details.includes(`${f.severity} ${f.kind}: ${f.summary}`), `${name}: they name the finding: ${details}`);
  check(!details.includes('idle') && details.includes('in poll') && details.includes('not running'),
    `${name}: its times say in poll and not running: ${details}`);
  await shot(page, `finding-${name.replace(/\W/g, "_")}-${i}`);
  /* below its line and running spans, where its label's letters (above
   * them) do not reach */
  const box = await pixels(page, at.x - 3, at.y + 3, 7);
  check(box.some((c) => near(c, COLOURS.highlight)),
    `${name}: finding ${i}: its thread is highlighted near (${at.x}, ${at.y + 3}): ${JSON.stringify(box)}`);
}

/* The n pixels of pane 0 from (x, y) rightwards (a short life is a few
 * pixels wide, and its end mark is drawn over it). */
function pixels(page, x, y, n) {
  return page.evaluate(([x, y, n]) => {
    const d = window.mprofViewer.panes[0].canvas.getContext('2d').getImageData(Math.round(x), Math.round(y), n, 1).data;
    return Array.from({ length: n }, (_, k) => Array.from(d.slice(4 * k, 4 * k + 3)));
  }, [x, y, n]);
}

/* The selected thread of pane 0 (its details) and a point of its line in
 * view: x where its life and the range overlap, y its row. */
function selectedThread(page) {
  return page.evaluate(([AXIS, ROW]) => {
    const v = window.mprofViewer, p = v.panes[0], i = v.selected(0);
    if (i < 0) return null;
    const t = v.thread(0, i), w = p.canvas.clientWidth, span = v.view.t1 - v.view.t0;
    const n = w >= 480 ? 120 : Math.floor(w / 4); /* the name column (viewer_page.js namesPx) */
    const x = (ns) => Math.min(w - 1, Math.max(n, n + (ns + p.offset - v.view.t0) / span * (w - n)));
    return { t, x: (x(t.start) + x(t.end)) / 2, y: AXIS + t.row * ROW + ROW / 2 - p.scroll };
  }, [AXIS, ROW]);
}

/* The demo's hung run: the lost "ARP response" wait first, then its
 * stall; a click on each zooms to it. */
async function testFindingsHung(context) {
  const want = reportLines('arp-hung-report.json');
  check(want.length >= 2 && want[0].f.kind === 'lost_wakeup' && want[0].f.threads[0].label === 'ARP response',
    'the report names the lost "ARP response" wait first: ' + want.map((w) => w.line));
  const page = await open(context, 'arp-hung/index.html');
  const lines = await panelLines(page);
  check(JSON.stringify(lines) === JSON.stringify(want.map((w) => w.line)),
    `hung run: the panel lists the report's findings in order:\n${lines.join('\n')}\nnot\n${want.map((w) => w.line).join('\n')}`);
  const severities = await page.$$eval('#findings button b', (b) => b.map((x) => x.textContent));
  check(severities.every((s, i) => s === want[i].f.severity), 'hung run: each finding\'s severity in bold: ' + severities);
  for (let i = want.length - 1; i >= 0; i--) await clickFinding(page, i, want[i].f, 'hung run');
  await shot(page, 'finding-hung');
  check(page.errors.length === 0, 'hung run: no page errors: ' + page.errors);
  await page.close();
}

/* A zoo program whose connects are refused, each made again: its
 * failures are a finding, not "Nothing found". */
async function testFindingsRetry(context) {
  const want = reportLines('retry-report.json');
  check(want.length && want[0].f.kind === 'retry_storm', 'the report finds the retry storm: ' + want.map((w) => w.line));
  const page = await open(context, 'retry/index.html');
  const lines = await panelLines(page);
  check(JSON.stringify(lines) === JSON.stringify(want.map((w) => w.line)),
    `retries: the panel lists the report's findings: ${lines}`);
  await clickFinding(page, 0, want[0].f, 'retries');
  await shot(page, 'finding-retries');
  check(page.errors.length === 0, 'retries: no page errors: ' + page.errors);
  await page.close();
}

/* The capture's own finding that fired it: of the sidecar's kind, the
 * one that starts nearest the trigger (the capture's times count from
 * its first event, whose ticks test_viewer.sh wrote). */
function firedFinding(capture) {
  const first = Number(fs.readFileSync(path.join(out, 'capture-first.txt'), 'utf8'));
  const trigger = (capture.trigger_ticks - first) * 1e9 / capture.clock_freq_hz;
  const report = JSON.parse(fs.readFileSync(path.join(out, 'capture-report.json'), 'utf8'));
  const found = report.findings.filter((f) => f.kind === capture.finding.kind);
  return found.reduce((a, b) => (Math.abs(b.start_ns - trigger) < Math.abs(a.start_ns - trigger) ? b : a));
}

/* A capture of the zoo's blocked_often (record --watch): the panel opens
 * with "captured by mprof watch: SUMMARY", then the block's finding,
 * marked, its range shown and the timer selected, the others after it
 * once; the whole run's trace has no such line. */
async function testFindingsCapture(context) {
  const capture = JSON.parse(fs.readFileSync(path.join(out, 'run/capture-2.json'), 'utf8'));
  const f = firedFinding(capture);
  const page = await open(context, 'capture/index.html');
  const first = await page.$eval('#findings', (box) => [box.firstElementChild.className, box.firstElementChild.textContent]);
  check(first[0] === 'capture' && first[1] === 'captured by mprof watch: ' + capture.finding.summary,
    `capture: the panel opens with ${JSON.stringify(first)}`);
  const lines = await panelLines(page);
  const want = reportLines('capture-report.json').map((w) => w.line);
  const line = `${f.severity} ${f.kind}: ${f.summary}`;
  check(lines[0] === line && JSON.stringify([...lines].sort()) === JSON.stringify([...want].sort()),
    `capture: the block first, then the others once:\n${lines.join('\n')}\nnot ${line} first of\n${want.join('\n')}`);
  const fired = await page.$$eval('#findings button.fired', (b) => b.map((x) => x.textContent));
  check(fired.length === 1 && fired[0] === line, `capture: the block's button is the one marked: ${fired}`);
  const [t0, t1] = await range(page);
  const [w0, w1] = expectedRange(f);
  check(Math.abs(t0 - w0) <= 1 && Math.abs(t1 - w1) <= 1, `capture: shows [${t0}, ${t1}), not the block's [${w0}, ${w1})`);
  const at = await selectedThread(page);
  check(at && at.t.id === String(f.threads[0].id) && f.threads[0].name === 'timer',
    `capture: selects ${JSON.stringify(at && at.t)}, not the timer that blocked, timer#${f.threads[0].id}`);
  await shot(page, 'finding-capture');
  check(page.errors.length === 0, 'capture: no page errors: ' + page.errors);
  await page.close();
  const plain = await open(context, 'run-trace/index.html');
  const marks = await plain.$$eval('#findings .capture, #findings .fired', (e) => e.length);
  check(marks === 0, `the whole run's trace: ${marks} capture lines or marks`);
  await plain.close();
}

module.exports = { testFindingsHung, testFindingsRetry, testFindingsCapture };
