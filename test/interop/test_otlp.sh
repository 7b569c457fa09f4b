#!/usr/bin/env bash
# test_otlp.sh -- `mprof export --format=otlp` is a well-formed OTLP/JSON
# ExportTraceServiceRequest: a resource per trace, a span per async thread
# (the model's count), hex ids that are unique and whose parents exist in
# the same OTel trace, a span event per label, a link per arrow other than
# creations, ERROR status on failed threads, wall-clock times; strict JSON
# with hostile labels kept as text; and every field survives a round trip
# through OpenTelemetry's own OTLP protobuf schema (check_otlp.cjs).
net_ctf=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/pair.sh"
# OpenTelemetry's schema, pinned by package-lock.json, beside the build.
npm_dir=$build/test/interop/npm-otlp
mkdir -p "$npm_dir"
cp "$here/package.json" "$here/package-lock.json" "$here/check_otlp.cjs" "$npm_dir/"
"$here/../../scripts/npm_ci.sh" "$npm_dir" >/dev/null
"$build/test/trace_gen" gen.ctf overwrite 262144 20 2 >/dev/null

check() { # NAME TRACE...
  local name=$1
  shift
  "$mprof" export --format=otlp -o "$name.json" "$@" || fail "$name: export"
  "$build/test/interop/model_counts" "$@" >"$name.counts"
  /usr/bin/python3 - "$name.json" "$name.counts" $# <<'PY' || fail "$name: OTLP structure"
import json, re, sys
doc = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))
traces = int(sys.argv[3])
def check(cond, what):
    if not cond: sys.exit("FAIL: " + what)
resources = doc["resourceSpans"]
check(len(resources) == traces, "a resource per trace: %d" % len(resources))
spans = [s for r in resources for ss in r["scopeSpans"] for s in ss["spans"]]
check(len(spans) == want["threads"], "spans %d, threads %d" % (len(spans), want["threads"]))
by_id = {s["spanId"]: s for s in spans}
check(len(by_id) == len(spans), "span ids unique")
for s in spans:
    check(re.fullmatch("[0-9a-f]{32}", s["traceId"]) and s["traceId"] != "0" * 32, "trace id")
    check(re.fullmatch("[0-9a-f]{16}", s["spanId"]) and s["spanId"] != "0" * 16, "span id")
    check(s["kind"] == 1, "internal spans")
    start, end = int(s["startTimeUnixNano"]), int(s["endTimeUnixNano"])
    check(0 <= start <= end, "times %d %d" % (start, end))
    if "parentSpanId" in s:
        parent = by_id.get(s["parentSpanId"])
        check(parent is not None, "parent exists")
        check(parent["traceId"] == s["traceId"], "parent in the same OTel trace")
    for link in s["links"]:
        check(link["spanId"] in by_id and by_id[link["spanId"]]["traceId"] == link["traceId"],
              "links name spans")
check(sum(len(s["events"]) for s in spans) == want["labels"], "an event per label")
check(sum(len(s["links"]) for s in spans) == want["links"] + want["messages"],
      "a link per arrow and per message")
check(sum(a["value"]["stringValue"] == "message" for s in spans for l in s["links"]
          for a in l["attributes"] if a["key"] == "mprof.arrow") == want["messages"],
      "message links")
check(sum(s.get("status", {}).get("code") == 2 for s in spans) == want["failed"],
      "failed threads have ERROR status")
PY
  node "$npm_dir/check_otlp.cjs" "$name.json" >/dev/null ||
    fail "$name: not OTLP as OpenTelemetry's schema reads it"
}
check net "$net_ctf"
check gen gen.ctf
check pair client.ctf late.ctf

/usr/bin/python3 - pair.json <<'PY' || fail "pair: contents"
import json, sys
doc = json.load(open(sys.argv[1]))
names = [r["resource"]["attributes"][0]["value"]["stringValue"] for r in doc["resourceSpans"]]
assert names == ["client.ctf", "late.ctf"], names
spans = [s for r in doc["resourceSpans"] for ss in r["scopeSpans"] for s in ss["spans"]]
hostile = "GET /\\xff\x1b[31m\"</script>\\\n\x01"
assert any(s["name"] == hostile for s in spans), "hostile label as the span name"
# wall-clock times: the client's first request at 1.7e18 + 999 900 ns
assert min(int(s["startTimeUnixNano"]) for s in spans) == 1700000000000999900
# the server's first receive links to the client's first send
by_id = {s["spanId"]: s for s in spans}
recv = [s for s in spans if s["name"] == "net recv tcp 10.0.0.1:40000 10.0.0.2:80 0 100"][0]
assert by_id[recv["links"][0]["spanId"]]["name"] == "net send tcp 10.0.0.1:40000 10.0.0.2:80 0 100"
PY
# The check can fail: a misspelled field does not survive the schema.
sed 's/"startTimeUnixNano"/"startTimeUnixNanos"/' pair.json >bad.json
if node "$npm_dir/check_otlp.cjs" bad.json 2>/dev/null; then
  fail "the schema check let a misspelled field through"
fi
echo "ok: OTLP/JSON export well formed, counts equal the model's"
