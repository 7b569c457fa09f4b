/* test_viewer_findings.js -- test_viewer.js's tests of the findings panel:
 * for recorded traces with known findings (the demo's hung run, a zoo
 * program whose connects fail again and again) the panel lists exactly
 * what `mprof report --json` finds, in its order, each "severity kind:
 * summary"; a click shows the finding's range, selects its thread at
 * fault (its details) and highlights it. */
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
  const box = await pixels(page, at.x - 3, at.y - 3, 7);
  check(box.some((c) => near(c, COLOURS.highlight)),
    `${name}: finding ${i}: its thread is highlighted near (${at.x}, ${at.y - 3}): ${JSON.stringify(box)}`);
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
    const x = (ns) => Math.min(w - 1, Math.max(0, (ns + p.offset - v.view.t0) / span * w));
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

module.exports = { testFindingsHung, testFindingsRetry };
