// check_chrome.mjs -- parse an `mprof export --format=chrome` file with
// Chrome DevTools' own trace engine (@paulirish/trace_engine) and compare
// what it finds with what the model holds (model_events), item by item:
// every async slice (its process, thread index, name, begin, end and
// labels in order), every running and idle slice (its track, name, ts and
// dur), every arrow (its flow events by id, the instants they bind to,
// and the flow the engine makes of them: tracks and times), every message
// between processes, every counter sample (its process, name,
// time and value) and every OS-thread track.
//
//   node check_chrome.mjs EXPORT.json MODEL.json
//
// Exits non-zero, saying what differs, on any mismatch.
import fs from 'node:fs';
import * as Trace from '@paulirish/trace_engine/models/trace/trace.js';

// The engine expects a browser's DOMRect.
globalThis.DOMRect ??= class DOMRect {
  constructor(x = 0, y = 0, width = 0, height = 0) {
    Object.assign(this, {x, y, width, height});
  }
};

const [exportPath, modelPath] = process.argv.slice(2);
const events = JSON.parse(fs.readFileSync(exportPath, 'utf8')).traceEvents;
const want = JSON.parse(fs.readFileSync(modelPath, 'utf8'));

const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const parsed = model.parsedTrace();
const data = parsed.data;

// The export's microseconds (three decimals) as the model's nanoseconds.
const ns = us => Math.round(us * 1000);

// The raw bytes of an exported string, as hex: the export writes a byte
// that is not UTF-8 as the text \xHH (docs/interop.md).
function bytesOf(text) {
  let hex = '', at = 0;
  for (const m of text.matchAll(/\\x([0-9a-f]{2})/g)) {
    hex += Buffer.from(text.slice(at, m.index), 'utf8').toString('hex') + m[1];
    at = m.index + 4;
  }
  return hex + Buffer.from(text.slice(at), 'utf8').toString('hex');
}

let bad = 0;
// Two lists of items, as strings, must be equal once sorted (the engine
// keeps its own order); the first difference is shown.
function same(what, got, expected) {
  got = got.map(String).sort();
  expected = expected.map(String).sort();
  const n = Math.max(got.length, expected.length);
  for (let i = 0; i < n; i++) {
    if (got[i] !== expected[i]) {
      console.error(`FAIL: ${what}: ${got.length} in the export, ${expected.length} in the model;` +
                    ` first difference:\n  export: ${got[i]?.slice(0, 300)}` +
                    `\n  model:  ${expected[i]?.slice(0, 300)}`);
      bad = 1;
      return;
    }
  }
}

// Async threads: b/e pairs with their label instants, as the engine pairs
// them (it keeps a slice's instants in an order of its own: compared
// sorted).
const byTime = labels => JSON.stringify(labels.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1)));
const asyncEvents = parsed.traceEvents.filter(
    e => e.cat === 'thread' && 'ben'.includes(e.ph));
const slices = Trace.Helpers.Trace.createMatchedSortedSyntheticEvents(asyncEvents);
same('async threads',
     slices.map(s => {
       const {beginEvent: b, endEvent: e, instantEvents: labels} = s.args.data;
       return [b.pid, parseInt(b.id, 16), bytesOf(b.name), ns(b.ts), ns(e.ts),
               byTime((labels ?? []).map(l => [ns(l.ts), bytesOf(l.args.label)]))];
     }),
     want.threads.map(t => [t.pid, t.index, t.name, t.start, t.end, byTime([...t.labels])]));
// ...and each thread's labels in the file in the model's order.
const fileLabels = new Map();
for (const e of parsed.traceEvents.filter(e => e.cat === 'thread' && e.ph === 'n'))
  fileLabels.set(e.id, [...(fileLabels.get(e.id) ?? []), [ns(e.ts), bytesOf(e.args.label)]]);
same('labels in order',
     [...fileLabels].map(([id, labels]) => [parseInt(id, 16), JSON.stringify(labels)]),
     want.threads.filter(t => t.labels.length).map(t => [t.index, JSON.stringify(t.labels)]));

// Running intervals and idle bands: the complete slices of the engine's
// per-thread trees.
const spans = [];
for (const process of data.Renderer.processes.values())
  for (const thread of process.threads.values())
    for (const e of thread.entries)
      if (e.cat === 'running' || e.cat === 'idle')
        spans.push([e.pid, e.tid, e.cat, bytesOf(e.name), ns(e.ts), ns(e.ts) + ns(e.dur)]);
same('running and idle slices', spans,
     want.spans.map(s => [s.pid, s.tid, s.cat, s.name, s.start, s.end]));

// Arrows, by the flow ids the export gives them (arrow i is flow i + 1):
// each end a flow event on the arrow's track at the model's time, named
// after the kind, and an instant there to bind to that names the thread at
// that end.
const flowEvents = parsed.traceEvents.filter(e => e.cat === 'arrow' && 'sf'.includes(e.ph));
same('arrow flow events', flowEvents.map(e => [e.id, e.ph, e.pid, e.tid, e.name, ns(e.ts)]),
     want.arrows.flatMap((a, i) => [[i + 1, 's', a.pid, a.tid, a.kind, a.from_ns],
                                    [i + 1, 'f', a.pid, a.tid, a.kind, a.to_ns]]));
same('arrow instants',
     parsed.traceEvents.filter(e => e.cat === 'arrow' && e.ph === 'i').map(
         e => [e.pid, e.tid, e.name, ns(e.ts), bytesOf(e.args.from ?? ''), bytesOf(e.args.to ?? '')]),
     want.arrows.flatMap(a => [[a.pid, a.tid, a.kind, a.from_ns, a.from_name, ''],
                               [a.pid, a.tid, a.kind, a.to_ns, '', a.to_name]]));

// The flows the engine made (it drops those whose ends share a time): an
// arrow's ends on its track, a message's on the async-thread tracks of the
// two processes.
const pidOf = new Map(want.threads.map(t => [t.index, t.pid]));
same('flows',
     data.Flows.flows.map(([from, to]) =>
         [from.cat, from.pid, from.tid, to.pid, to.tid, ns(from.ts), ns(to.ts)]),
     [...want.arrows.filter(a => a.from_ns !== a.to_ns).map(
          a => ['arrow', a.pid, a.tid, a.pid, a.tid, a.from_ns, a.to_ns]),
      ...want.messages.filter(m => m.from_ns !== m.to_ns).map(
          m => ['message', pidOf.get(m.from), 0, pidOf.get(m.to), 0, m.from_ns, m.to_ns])]);
for (const flow of data.Flows.flows)
  if (flow.length !== 2 || flow[0].cat !== flow[1].cat) {
    console.error(`FAIL: a flow of ${flow.length} events: ${JSON.stringify(flow.map(e => [e.name, e.ts]))}`);
    bad = 1;
    break;
  }

// Counter samples, and the OS-thread tracks.
same('counter samples',
     parsed.traceEvents.filter(e => e.ph === 'C').map(
         e => [e.pid, bytesOf(e.name), ns(e.ts), e.args.value]),
     want.samples.map(s => [s.pid, s.name, s.time, s.value]));
same('OS-thread tracks',
     [...data.Meta.threadsInProcess].flatMap(
         ([pid, threads]) => [...threads.keys()].filter(t => t > 0).map(t => [pid, t])),
     want.streams);

console.log(JSON.stringify({threads: slices.length, spans: spans.length,
                            arrows: want.arrows.length, flows: data.Flows.flows.length,
                            samples: want.samples.length}));
process.exit(bad);
