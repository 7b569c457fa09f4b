#!/usr/bin/env python3
"""check_zoo.py EXPECT REPORT -- does `mprof report --json`'s REPORT (one
JSON line) hold what the zoo's EXPECT file says must be found?  One
directive a line ('#' starts a comment):

  finding KIND SEVERITY LABEL  the first finding of KIND has SEVERITY, and
                               its first thread (the one at fault) a label
                               that starts with LABEL
  first KIND LABEL             the very first finding is of KIND, on LABEL
  only                         no error or warning of a kind not named by
                               a finding line
  clean                        no error or warning at all
  failure KIND ERROR COUNT     COUNT requests of KIND failed with ERROR
  why KIND -> VIA LABEL -> ... the critical path of KIND's slowest request
                               (its why chain) is these hops, each with
                               that link and a label that starts with LABEL
  size SIZE                    (for test_zoo.sh: the trace's size)

Prints what is wrong, with the findings, and exits 1; or exits 0.

check_zoo.py --score EXPECT REPORT prints instead, for bench/diagnosis.sh,
"FAULTS FOUND FALSE": the finding lines, how many of them hold, and the
errors and warnings of kinds no finding line names (in a program that must
be clean, or only have its faults)."""
import json
import sys

SERIOUS = ("error", "warning")


def label(thread):
    return thread["label"] if thread["label"] is not None else thread["name"]


def check(directive, words, report):
    """What is wrong with one directive, or None."""
    findings = report["findings"]
    if directive == "finding":
        kind, severity, want = words[0], words[1], " ".join(words[2:])
        of_kind = [f for f in findings if f["kind"] == kind]
        if not of_kind:
            return "no %s finding" % kind
        got = of_kind[0]
        if got["severity"] != severity:
            return "%s is a %s, not a %s" % (kind, got["severity"], severity)
        if not label(got["threads"][0]).startswith(want):
            return "the first %s is on %r, not %r" % (kind, label(got["threads"][0]), want)
    elif directive == "first":
        kind, want = words[0], " ".join(words[1:])
        if not findings or findings[0]["kind"] != kind or label(findings[0]["threads"][0]) != want:
            return "the first finding is not %s on %r" % (kind, want)
    elif directive in ("only", "clean"):
        named = set() if directive == "clean" else report["_named"]
        extra = [f for f in findings if f["severity"] in SERIOUS and f["kind"] not in named]
        if extra:
            return "%s: also %s" % (directive, ", ".join(f["kind"] for f in extra))
    elif directive == "failure":
        kind, error, count = " ".join(words[:-2]), words[-2], int(words[-1])
        groups = [g for g in report["requests"] if g["kind"] == kind]
        failures = {f["error"]: f["count"] for g in groups for f in g["failures"]}
        if failures.get(error) != count:
            return "%s failures: %s, not %s x%d" % (kind, failures, error, count)
    elif directive == "why":
        parts = [p.split(None, 1) for p in " ".join(words).split(" -> ")]
        kind, want = " ".join(parts[0]), [(p[0], p[1] if len(p) > 1 else "") for p in parts[1:]]
        paths = [p for p in report["critical_path"] if p["kind"] == kind]
        if not paths:
            return "no critical path of %s" % kind
        got = [(s["via"], label(s["thread"])) for s in paths[0]["steps"]]
        if len(got) != len(want) or any(
                gv != wv or not gl.startswith(wl) for (gv, gl), (wv, wl) in zip(got, want)):
            return "why %s: %s, not %s" % (kind, got, want)
    elif directive != "size":
        return "unknown directive %r" % directive
    return None


def load(expect_path, report_path):
    """The report and the expect file's directives, each a list of words."""
    report = json.loads(open(report_path).readline())
    lines = [l.split("#")[0].split() for l in open(expect_path)]
    lines = [l for l in lines if l]
    report["_named"] = {l[1] for l in lines if l[0] == "finding"}
    return report, lines


def score(expect_path, report_path):
    report, lines = load(expect_path, report_path)
    faults = [l for l in lines if l[0] == "finding"]
    found = sum(check(l[0], l[1:], report) is None for l in faults)
    judged = any(l[0] in ("only", "clean") for l in lines)
    false = sum(f["severity"] in SERIOUS and f["kind"] not in report["_named"]
                for f in report["findings"]) if judged else 0
    print(len(faults), found, false)
    return 0


def main(expect_path, report_path):
    report, lines = load(expect_path, report_path)
    wrong = [w for w in (check(l[0], l[1:], report) for l in lines) if w]
    if not wrong:
        return 0
    for w in wrong:
        print("FAIL: %s: %s" % (expect_path, w))
    for f in report["findings"]:
        print("  %s %s: %s" % (f["severity"], f["kind"], f["summary"]))
    return 1


if __name__ == "__main__":
    if sys.argv[1] == "--score":
        sys.exit(score(sys.argv[2], sys.argv[3]))
    sys.exit(main(sys.argv[1], sys.argv[2]))
