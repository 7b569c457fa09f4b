#!/usr/bin/env bash
# test_otlp.sh -- `mprof export --format=otlp` is a well-formed OTLP/JSON
# ExportTraceServiceRequest: a resource per trace; hex ids, unique, whose
# parents exist in the same OTel trace; a span per async thread, checked
# against the model (model_events) field by field: its start and end at
# the thread's life on the wall clock, name, parent (its creator), ending
# and ERROR status, running time, an event per label (time and text), a
# link per arrow into it other than creations and per message (from whom,
# kind, time); strict JSON with hostile labels kept as text; and every
# field survives a round trip through OpenTelemetry's own OTLP protobuf
# schema (check_otlp.cjs).  The findings (scope mprof.findings) are those
# `mprof report --json` gives, each field (check_findings.py): net.ctf's
# cannot_tell, a recorded story's lost wake-up and stalls, the zoo's
# blocked loop and leaked request (which names the root: what made the
# request, with no span of its own).
net_ctf=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/pair.sh"
# OpenTelemetry's schema, pinned by package-lock.json, beside the build.
npm_dir=$build/test/interop/npm-otlp
mkdir -p "$npm_dir"
cp "$here/package.json" "$here/package-lock.json" "$here/check_otlp.cjs" "$npm_dir/"
"$here/../../scripts/npm_ci.sh" "$npm_dir" >/dev/null
"$build/test/trace_gen" gen.ctf overwrite 262144 20 2 >/dev/null
"$build/test/story" story.ctf
for zoo in blocked_after_work leaked_read; do # the zoo's programs
  [ -x "$build/examples/zoo/zoo_$zoo" ] || fail "zoo_$zoo not built: libuv missing? (scripts/deps.sh)"
  "$mprof" record -o "$zoo.ctf" -- "$build/examples/zoo/zoo_$zoo" >/dev/null 2>&1 ||
    fail "mprof record zoo_$zoo"
done

check() { # NAME TRACE...
  local name=$1
  shift
  "$mprof" export --format=otlp -o "$name.json" "$@" || fail "$name: export"
  "$build/test/interop/model_events" "$@" >"$name.model"
  /usr/bin/python3 - "$name.json" "$name.model" $# <<'PY' || fail "$name: OTLP against the model"
import collections, json, re, sys
doc = json.load(open(sys.argv[1]))
model = json.load(open(sys.argv[2]))
traces = int(sys.argv[3])
def check(cond, what):
    if not cond: sys.exit("FAIL: " + what)
def raw(text):  # the bytes of an exported string (non-UTF-8 bytes as \xHH)
    parts = re.split(r"\\x([0-9a-f]{2})", text)
    return "".join(p.encode().hex() if i % 2 == 0 else p for i, p in enumerate(parts))
def attributes(item):
    return {a["key"]: next(iter(a["value"].values())) for a in item["attributes"]}
resources = doc["resourceSpans"]
check(len(resources) == traces, "a resource per trace: %d" % len(resources))
spans = {}  # (pid, trace id) -> span
for pid, r in enumerate(resources, 1):
    for ss in r["scopeSpans"]:
        if ss["scope"]["name"] != "mprof":
            continue  # the findings: check_findings.py
        for s in ss["spans"]:
            key = (pid, int(attributes(s)["mprof.thread.id"]))
            check(key not in spans, "one span per thread: %r twice" % (key,))
            spans[key] = s
check(len(spans) == len(model["threads"]),
      "spans %d, threads %d" % (len(spans), len(model["threads"])))
by_id = {s["spanId"]: s for s in spans.values()}
check(len(by_id) == len(spans), "span ids unique")
for s in spans.values():
    check(re.fullmatch("[0-9a-f]{32}", s["traceId"]) and s["traceId"] != "0" * 32, "trace id")
    check(re.fullmatch("[0-9a-f]{16}", s["spanId"]) and s["spanId"] != "0" * 16, "span id")
    check(s["kind"] == 1, "internal spans")
    if "parentSpanId" in s:
        parent = by_id.get(s["parentSpanId"])
        check(parent is not None, "parent exists")
        check(parent["traceId"] == s["traceId"], "parent in the same OTel trace")
# Each span against its thread in the model: times, name, parent, ending,
# labels, running time, links (every arrow into it but creations and those
# from the root, and every message it received).
wall = model["wall_start"]
threads = {t["index"]: t for t in model["threads"]}
span_of = {i: spans[(t["pid"], t["id"])] for i, t in threads.items()}
running = collections.Counter()
for span in model["spans"]:
    running[span["thread"]] += span["end"] - span["start"]
links = collections.defaultdict(list)
for a in model["arrows"]:
    if a["kind"] != "create" and a["from"] != 0:
        links[a["to"]].append((span_of[a["from"]]["spanId"], a["kind"], wall + a["time"]))
for m in model["messages"]:
    links[m["to"]].append((span_of[m["from"]]["spanId"], "message", wall + m["from_ns"]))
for i, t in threads.items():
    s, what = span_of[i], "thread %d (%s)" % (i, bytes.fromhex(t["name"]))
    got = (int(s["startTimeUnixNano"]), int(s["endTimeUnixNano"]))
    check(got == (wall + t["start"], wall + t["end"]),
          "%s: span %r, thread lives %r" % (what, got, (wall + t["start"], wall + t["end"])))
    check(raw(s["name"]) == t["name"], "%s: span name %r" % (what, s["name"]))
    check(s.get("parentSpanId") == (span_of[t["creator"]]["spanId"] if t["creator"] else None),
          "%s: parent" % what)
    attrs = attributes(s)
    check(attrs["mprof.ending"] == t["ending"], "%s: ending %s" % (what, attrs["mprof.ending"]))
    check((s.get("status", {}).get("code") == 2) == (t["ending"] == "failed"),
          "%s: ERROR status exactly when failed" % what)
    check(int(attrs["mprof.running_ns"]) == running[i],
          "%s: running %s ns, the model's spans %d" % (what, attrs["mprof.running_ns"], running[i]))
    events = [(int(e["timeUnixNano"]), raw(attributes(e)["mprof.label"])) for e in s["events"]]
    check(events == [(wall + ns, text) for ns, text in t["labels"]],
          "%s: events %r" % (what, events[:3]))
    got_links = sorted((l["spanId"], attributes(l)["mprof.arrow"],
                        int(attributes(l)["mprof.arrow.time_unix_nano"])) for l in s["links"])
    check(got_links == sorted(links[i]), "%s: links %r, the model's %r"
          % (what, got_links[:3], sorted(links[i])[:3]))
    for l in s["links"]:
        check(by_id[l["spanId"]]["traceId"] == l["traceId"], "links name spans")
PY
  node "$npm_dir/check_otlp.cjs" "$name.json" >/dev/null ||
    fail "$name: not OTLP as OpenTelemetry's schema reads it"
}
check net "$net_ctf"
check gen gen.ctf
check pair client.ctf late.ctf
check story story.ctf
check blocked blocked_after_work.ctf
check leaked leaked_read.ctf

findings() { # NAME TRACE KINDS: the export's findings are the report's
  /usr/bin/python3 "$here/check_findings.py" otlp "$mprof" "$2" "$1.json" "$3" "$1.model" \
    >/dev/null || fail "$1: the findings exported are not the report's"
}
findings net "$net_ctf" "cannot_tell"
findings story story.ctf "lost_wakeup stalled stalled"
findings blocked blocked_after_work.ctf "loop_blocked( [a-z_]+)*"
findings leaked leaked_read.ctf "leaked( [a-z_]+)*"

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
