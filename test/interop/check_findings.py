#!/usr/bin/python3
# check_findings.py -- the findings of an export against those of `mprof
# report --json` on the same trace, the independent oracle: the report
# prints them through jansson from the analysis, the export writes them
# itself.  Every finding, in the report's order, with its kind, severity,
# summary, times, value, threads (by trace id, the one at fault first) and
# evidence (kind, thread, times).
#
#   check_findings.py chrome|otlp MPROF TRACE EXPORT.json KINDS [MODEL.json]
#
# MPROF is the mprof command that reports on TRACE; KINDS a regular
# expression the report's kinds, in order and joined by spaces, must match
# whole (so that an empty list does not pass for a full one); MODEL.json
# (model_events, for OTLP) gives the wall-clock time of the model's 0.
#
# Chrome: a global instant (ph i, s g, cat finding) per finding at its
# start, its threads named as their async slices, and an async slice (b/e,
# cat finding) from start to end on the process's async-thread track.
# OTLP: a span per finding in the scope mprof.findings, the child of the
# span of the thread at fault, its links the threads it names, its
# evidence as events.  The root (what made a request no traced thread
# made) has neither a slice nor a span: a finding names it all the same,
# and OTLP leaves it out of the links.  Prints "N findings:
# KIND..."; exits 1 saying what differs.
import json
import re
import subprocess
import sys


def fail(what):
    sys.exit("FAIL: findings: " + what)


def expected(report):
    """The report's findings as tuples the exports must give back."""
    out = []
    for f in report["findings"]:
        evidence = [(e["kind"], e["thread"]["id"], e["count"], e["start_ns"],
                     e["end_ns"]) for e in f["evidence"]]
        out.append((f["kind"], f["severity"], f["summary"], f["start_ns"],
                    f["end_ns"], f["value_ns"], [t["id"] for t in f["threads"]],
                    evidence))
    return out


def roots(report):
    """The ids the report gives the root pseudo-thread."""
    return {t["id"] for f in report["findings"]
            for t in f["threads"] + [e["thread"] for e in f["evidence"]]
            if t["type"] == "root"}


def chrome(doc, report):
    events = doc["traceEvents"]
    ns = lambda us: round(float(us) * 1000)
    names = {}  # (pid, trace id) -> the name of its async slice
    for e in events:
        if e.get("cat") == "thread" and e["ph"] == "b":
            names[(e["pid"], e["args"]["id"])] = e["name"]
    got = []
    for e in (e for e in events if e.get("cat") == "finding" and e["ph"] == "i"):
        a = e["args"]
        if e.get("s") != "g" or e["tid"] != 0:
            fail("instant not global on the async-thread track: %r" % e)
        if ns(e["ts"]) != a["start_ns"]:
            fail("instant at %s us, start_ns %d" % (e["ts"], a["start_ns"]))
        refs = a["threads"] + [v["thread"] for v in a["evidence"]]
        for t in refs:
            if t["id"] not in roots(report) and names.get((e["pid"], t["id"])) != t["name"]:
                fail("%s: thread %r is not named as its slice" % (e["name"], t))
        evidence = [(v["kind"], v["thread"]["id"], v["count"], v["start_ns"],
                     v["end_ns"]) for v in a["evidence"]]
        got.append((e["name"], a["severity"], a["summary"], a["start_ns"],
                    a["end_ns"], a["value_ns"], [t["id"] for t in a["threads"]],
                    evidence))
    compare(got, expected(report))
    slices = {}
    for e in events:
        if e.get("cat") == "finding" and e["ph"] in "be":
            slices.setdefault(int(e["id"], 16), {})[e["ph"]] = ns(e["ts"])
    spans = [(s["b"], s["e"]) for _, s in sorted(slices.items())]
    want_spans = [(f["start_ns"], max(f["start_ns"], f["end_ns"]))
                  for f in report["findings"]]
    if spans != want_spans:
        fail("slices %r, the report's %r" % (spans[:3], want_spans[:3]))
    return len(got)


def attributes(item):
    return {a["key"]: next(iter(a["value"].values())) for a in item.get("attributes", [])}


def otlp(doc, report, wall):
    spans, thread_span = [], {}
    for r in doc["resourceSpans"]:
        for scope in r["scopeSpans"]:
            for s in scope["spans"]:
                if scope["scope"]["name"] == "mprof.findings":
                    spans.append(s)
                else:
                    thread_span[int(attributes(s)["mprof.thread.id"])] = s
    id_of = {s["spanId"]: tid for tid, s in thread_span.items()}
    if len(spans) != len(report["findings"]):
        fail("%d spans, %d findings in the report" % (len(spans), len(report["findings"])))
    got = []
    for s, finding in zip(spans, report["findings"]):
        a = attributes(s)
        links = [int(attributes(l)["mprof.thread.id"]) for l in s["links"]]
        for l, tid in zip(s["links"], links):
            if id_of.get(l["spanId"]) != tid or l["traceId"] != thread_span[tid]["traceId"]:
                fail("%s: link to thread %d is not its span" % (s["name"], tid))
        fault = finding["threads"][0] if finding["threads"] else {"type": "root"}
        if fault["type"] != "root":
            parent = thread_span[fault["id"]]
            if s.get("parentSpanId") != parent["spanId"] or s["traceId"] != parent["traceId"]:
                fail("%s: not the child of the thread at fault" % s["name"])
        elif "parentSpanId" in s:
            fail("%s: its thread at fault has no span, but it has a parent" % s["name"])
        if (s.get("status", {}).get("code") == 2) != (a["mprof.finding.severity"] == "error"):
            fail("%s: ERROR status exactly for errors" % s["name"])
        if s["name"] != a["mprof.finding.kind"]:
            fail("%s: name is not the kind" % s["name"])
        evidence = [(e["name"], int(attributes(e)["mprof.evidence.thread.id"]),
                     int(attributes(e)["mprof.evidence.count"]),
                     int(e["timeUnixNano"]) - wall,
                     int(attributes(e)["mprof.evidence.end_unix_nano"]) - wall)
                    for e in s["events"]]
        start = int(s["startTimeUnixNano"]) - wall
        end = int(s["endTimeUnixNano"]) - wall
        got.append((s["name"], a["mprof.finding.severity"], a["mprof.finding.summary"],
                    start, end, int(a["mprof.finding.value_ns"]), links, evidence))
    root = roots(report)
    want = [w[:4] + (max(w[3], w[4]), w[5], [t for t in w[6] if t not in root], w[7])
            for w in expected(report)]
    compare(got, want)
    return len(got)


def compare(got, want):
    if len(got) != len(want):
        fail("%d in the export, %d in the report" % (len(got), len(want)))
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            fail("finding %d:\n  export: %r\n  report: %r" % (i, g, w))


def main():
    form, mprof, trace, export, kinds = sys.argv[1:6]
    report = json.loads(subprocess.run([mprof, "report", "--json", trace], check=True,
                                       stdout=subprocess.PIPE).stdout)
    found = " ".join(f["kind"] for f in report["findings"])
    if not re.fullmatch(kinds, found):
        fail("the report gives %r, the test expects %r" % (found, kinds))
    doc = json.load(open(export))
    if form == "chrome":
        n = chrome(doc, report)
    else:
        n = otlp(doc, report, json.load(open(sys.argv[6]))["wall_start"])
    print("%d findings: %s" % (n, found))


main()
