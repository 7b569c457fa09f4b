// check_chrome.mjs -- parse an `mprof export --format=chrome` file with
// Chrome DevTools' own trace engine (@paulirish/trace_engine) and compare
// what it finds with the model's numbers (model_counts).
//
//   node check_chrome.mjs EXPORT.json COUNTS.json
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

const [exportPath, countsPath] = process.argv.slice(2);
const events = JSON.parse(fs.readFileSync(exportPath, 'utf8')).traceEvents;
const want = JSON.parse(fs.readFileSync(countsPath, 'utf8'));

const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const parsed = model.parsedTrace();
const data = parsed.data;

// Async threads: b/e pairs (with their label instants) matched by the
// engine's own pairing.
const asyncEvents = parsed.traceEvents.filter(
    e => e.cat === 'thread' && 'ben'.includes(e.ph));
const slices = Trace.Helpers.Trace.createMatchedSortedSyntheticEvents(asyncEvents);

// Running intervals and idle bands: the complete slices of the engine's
// per-thread trees.
const entries = {running: 0, idle: 0};
for (const process of data.Renderer.processes.values())
  for (const thread of process.threads.values())
    for (const e of thread.entries)
      if (e.cat in entries) entries[e.cat]++;

const got = {
  threads: slices.length,
  labels: asyncEvents.filter(e => e.ph === 'n').length,
  running: entries.running,
  bands: entries.idle,
  arrows: parsed.traceEvents.filter(e => e.ph === 's' && e.cat === 'arrow').length,
  arrows_apart: data.Flows.flows.filter(flow => flow[0].cat === 'arrow').length,
  messages: parsed.traceEvents.filter(e => e.ph === 's' && e.cat === 'message').length,
  messages_apart: data.Flows.flows.filter(flow => flow[0].cat === 'message').length,
  samples: parsed.traceEvents.filter(e => e.ph === 'C').length,
  streams: [...data.Meta.threadsInProcess.values()]
      .reduce((n, threads) => n + [...threads.keys()].filter(t => t > 0).length, 0),
};
let bad = 0;
for (const key of Object.keys(got)) {
  if (got[key] !== want[key]) {
    console.error(`FAIL: ${key}: the trace engine found ${got[key]}, the model has ${want[key]}`);
    bad = 1;
  }
}
// Every flow the engine kept joins two ends of one category (an end shared
// by two arrows binds to the first instant written there, so kinds may
// differ); a message joins two processes.
for (const flow of data.Flows.flows)
  if (flow.length !== 2 || flow[0].cat !== flow[1].cat ||
      (flow[0].cat === 'message') !== (flow[0].pid !== flow[1].pid)) {
    console.error(`FAIL: a flow of ${flow.length} events: ${JSON.stringify(flow.map(e => [e.name, e.ts]))}`);
    bad = 1;
    break;
  }
console.log(JSON.stringify(got));
process.exit(bad);
