// check_otlp.cjs -- an `mprof export --format=otlp` file read through
// OpenTelemetry's own OTLP protobuf schema (the protobufjs code generated
// from opentelemetry-proto, shipped in @opentelemetry/otlp-transformer):
// it is parsed into an ExportTraceServiceRequest, encoded to protobuf and
// read back, and must come back equal, field for field.  A field the schema
// does not know (a misspelled name), a wrong type or a bad id is lost or
// changed on the way, and fails the check.
//
//   node check_otlp.cjs EXPORT.json
const fs = require('node:fs');
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js');

const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const ID = /^(traceId|spanId|parentSpanId)$/;

// A copy with keys sorted, empty arrays dropped (protobuf does not keep
// them apart from absent ones) and ids passed through convert.
function normal(value, convert) {
  if (Array.isArray(value)) return value.map(v => normal(v, convert));
  if (!value || typeof value !== 'object') return value;
  const out = {};
  for (const key of Object.keys(value).sort()) {
    const v = value[key];
    if (Array.isArray(v) && v.length === 0) continue;
    out[key] = ID.test(key) ? convert(v) : normal(v, convert);
  }
  return out;
}

const json = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
// OTLP/JSON ids are hex; the protobuf mapping wants bytes.
const message = Request.fromObject(normal(json, hex => Buffer.from(hex, 'hex')));
const bytes = Request.encode(message).finish();
const back = Request.toObject(Request.decode(bytes),
                              {longs: String, enums: Number, bytes: String});
const want = JSON.stringify(normal(json, id => id));
const got = JSON.stringify(normal(back, b64 => Buffer.from(b64, 'base64').toString('hex')));
if (want !== got) {
  let i = 0;
  while (want[i] === got[i]) i++;
  console.error(`FAIL: the OTLP schema changed the export at character ${i}:\n` +
                `  export: ...${want.slice(Math.max(0, i - 120), i + 60)}\n` +
                `  schema: ...${got.slice(Math.max(0, i - 120), i + 60)}`);
  process.exit(1);
}
console.log(`ok: ${bytes.length} bytes of OTLP protobuf, equal to the JSON`);
