/* side.js -- the side panel: a thread's details, the findings, the
 * counter toggles and the legend, and the status line.  Text only: trace
 * strings reach the page through textContent. */

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function link(text, p, thread) {
  const b = el('button', text);
  b.type = 'button';
  b.addEventListener('click', () => reveal(p, thread));
  return b;
}

function formatNs(ns) {
  const a = Math.abs(ns);
  if (a >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
  if (a >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
  if (a >= 1e3) return (ns / 1e3).toFixed(3) + ' µs';
  return Math.round(ns) + ' ns';
}

/* A finding as one line: severity, kind, summary. */
function findingText(f) {
  return `${f.severity} ${f.kind}: ${f.summary}`;
}

/* A finding's button: a click shows it (view.js); marked if it fired
 * the capture shown. */
function findingButton(p, f, fired) {
  const b = el('button', undefined, 'finding ' + f.severity + (fired ? ' fired' : ''));
  b.type = 'button';
  b.append(el('b', f.severity), ' ', el('code', f.kind), ': ', el('span', f.summary));
  b.addEventListener('click', () => showFinding(p, f));
  return b;
}

function showDetails(p, thread) {
  const box = $('details');
  const t = p && thread >= 0 ? json(wasm.mprof_web_thread(p.handle, thread)) : null;
  if (!t) { box.replaceChildren(el('span', 'Double-click a thread.')); return; }
  const dl = el('dl');
  const add = (k, v) => { dl.append(el('dt', k)); const dd = el('dd'); dd.append(v); dl.append(dd); };
  add('label', t.name);
  add('type', `${t.type} (id ${t.id})`);
  add('creator', t.creator ? link(t.creator.name, p, t.creator.index) : 'none (before the trace)');
  add('times', `${formatNs(t.start)} – ${formatNs(t.end)} (${formatNs(t.end - t.start)}), ${t.ending}`);
  if (t.failure) add('failure', t.failure);
  if (t.becomes) add('became', link(t.becomes.name, p, t.becomes.index));
  if (t.time) add('time', `running ${formatNs(t.time.running)}, waiting ${formatNs(t.time.waiting)}, `
    + `in poll ${formatNs(t.time.in_poll)}, not running ${formatNs(t.time.not_running)}`);
  if (t.labels.length > 1) add('labels', el('span', t.labels.map((l) => l.text).join(' · ')));
  const acts = el('div');
  for (const i of t.interactions) {
    const text = `${formatNs(i.time)} ${i.kind} ${i.dir} ${i.other ? i.other.name : 'root'}`;
    acts.append(i.other ? link(text, p, i.other.index) : el('div', text));
  }
  add(`interactions (${t.interactions.length})`, acts);
  const finds = el('div');
  for (const f of t.findings) finds.append(el('div', findingText(f)));
  for (const c of t.chains) finds.append(el('div', 'wait chain: ' + c.map((x) => (x ? x.name : '?')).join(' → ')));
  add('findings', finds.childElementCount ? finds : 'none');
  box.replaceChildren(dl);
}

/* A capture of `mprof watch`: the line saying what fired it, into box;
 * returns that finding of list (its index and kind as `mprof html` found
 * them), or null if the analysis here lacks it. */
function capturedBy(box, capture, list) {
  box.append(el('div', 'captured by mprof watch: ' + capture.summary, 'capture'));
  const f = list[capture.finding];
  return f && f.kind === capture.kind ? f : null;
}

/* The analysis' findings of each pane, most severe first, as `mprof
 * report` lists them; for a capture, first the line saying what fired
 * it, then that finding, marked and shown. */
function fillFindings() {
  const box = $('findings');
  box.replaceChildren();
  panes.forEach((p) => {
    const list = json(wasm.mprof_web_findings(p.handle));
    if (panes.length > 1) box.append(el('h3', p.name));
    const fired = p.capture ? capturedBy(box, p.capture, list || []) : null;
    if (!list) box.append(el('span', 'analysis failed: out of memory'));
    else if (!list.length) box.append(el('div', 'Nothing found.'));
    else for (const f of fired ? [fired, ...list.filter((g) => g !== fired)] : list) box.append(findingButton(p, f, f === fired));
    if (fired) showFinding(p, fired);
  });
  view.analysed = true;
}

/* One toggle per counter name, for every pane that has it. */
function fillCounters() {
  const box = $('counters');
  box.replaceChildren();
  const names = [...new Set(panes.flatMap((p) => p.summary.counters))];
  for (const name of names) {
    const label = el('label');
    const check = el('input');
    check.type = 'checkbox';
    check.checked = true;
    check.addEventListener('change', () => {
      for (const p of panes) {
        const i = p.summary.counters.indexOf(name);
        if (i >= 0) wasm.mprof_timeline_show_counter(tl, panes.indexOf(p), i, check.checked ? 1 : 0);
      }
      requestDraw();
    });
    label.append(check, el('span', name));
    box.append(label, el('br'));
  }
  if (!names.length) box.append(el('span', 'none'));
}

/* The legend: the colours the view state's legend lists (what the
 * traces shown hold, mprof_timeline_legend()), by their palette names. */
function fillLegend(palette) {
  const box = $('legend');
  box.replaceChildren();
  for (let i = 0, c; (c = wasm.mprof_timeline_legend(tl, i)) >= 0; i++) {
    const sw = el('span', undefined, 'swatch');
    sw.style.background = palette[c].rgb;
    const li = el('li');
    li.append(sw, el('span', palette[c].name));
    box.append(li);
  }
}

function status(text) { $('status').textContent = text; }
