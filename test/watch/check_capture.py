#!/usr/bin/env python3
"""check_capture.py MPROF CAPTURE_JSON KIND THREAD [FULL_TRACE] -- is one
capture of `mprof watch` what it says?

- its JSON names the finding: KIND, the thread at fault named THREAD, and
  the trigger is the finding's start, inside [from_ticks, to_ticks];
- its .ctf passes `mprof check` and `mprof report --json` of it finds KIND
  on THREAD again, around the trigger;
- with FULL_TRACE (the whole trace, read after the program ended): every
  event of the capture is one of FULL_TRACE's, every event FULL_TRACE
  holds between from_ticks and to_ticks is in the capture, and the capture
  begins and ends within a packet's span of them, but for the names
  stream's events (it is cut, not the whole ring).

Prints what is wrong and exits 1, or exits 0."""
import json
import os
import subprocess
import sys

# blocked_often's 4 KiB packets (--size 512K) of ~2000 events/s each
# span about half a second (more on a loaded machine, whose timers tick
# less often); its captures begin up to 3 s after the trace does.
PACKET_SLACK_S = 1.0
# The names stream's events (and the labels it names), kept whatever their
# time.
NAMES = ("string", "counter_name", "label")


def events(mprof, trace):
    """`mprof dump --ticks` of trace: (ticks, rest of the line) pairs."""
    out = subprocess.run([mprof, "dump", "--ticks", trace], check=True,
                         capture_output=True, text=True).stdout
    return [(int(line.split(" ", 1)[0]), line.split(" ", 1)[1])
            for line in out.splitlines()]


def problems(mprof, path, kind, thread, full):
    capture = json.load(open(path))
    finding = capture["finding"]
    ctf = os.path.join(os.path.dirname(path), capture["trace"])
    if finding["kind"] != kind:
        yield "kind %s, not %s" % (finding["kind"], kind)
    if finding["threads"][0]["name"] != thread:
        yield "thread at fault %r, not %r" % (finding["threads"][0]["name"], thread)
    trigger, low, high = (capture["trigger_ticks"], capture["from_ticks"],
                          capture["to_ticks"])
    if trigger != finding["start_ticks"] or not low <= trigger <= high:
        yield "trigger %d not the finding's start in [%d, %d]" % (trigger, low, high)
    check = subprocess.run([mprof, "check", ctf], capture_output=True, text=True)
    if check.returncode != 0 or ": ok, " not in check.stdout:
        yield "mprof check: %s%s" % (check.stdout, check.stderr)
        return
    report = json.loads(subprocess.run([mprof, "report", "--json", ctf], check=True,
                                       capture_output=True, text=True).stdout)
    again = [f for f in report["findings"]
             if f["kind"] == kind and f["threads"][0]["name"] == thread]
    # A capture begins inside the trace: its loop and timer were made
    # before it, and when the block's context is cut off the report may
    # only say it cannot tell (docs/watch.md), never something else.
    cut = [f for f in report["findings"] if f["kind"] == "cannot_tell"]
    if not again and not cut:
        yield "the capture's report has no %s on %s" % (kind, thread)
    caught = events(mprof, ctf)
    if not any(trigger <= t <= high for t, _ in caught):
        yield "no event between the trigger and to_ticks"
    if full:
        whole = events(mprof, full)
        hz = capture["clock_freq_hz"]
        if not set(caught) <= set(whole):
            yield "events the trace never held"
        window = [e for e in whole if low <= e[0] <= high]
        missing = set(window) - set(caught)
        if missing:
            yield "%d of the %d events in the window missing" % (len(missing), len(window))
        timed = [t for t, rest in caught if rest.split()[1] not in NAMES]
        first, last = min(timed), max(timed)
        if first < low - PACKET_SLACK_S * hz:
            yield "the capture begins %.2f s before from_ticks" % ((low - first) / hz)
        if last > high + PACKET_SLACK_S * hz:
            yield "the capture goes on %.2f s past to_ticks" % ((last - high) / hz)


def main():
    mprof, path, kind, thread = sys.argv[1:5]
    full = sys.argv[5] if len(sys.argv) > 5 else None
    wrong = list(problems(mprof, path, kind, thread, full))
    for line in wrong:
        print("FAIL: %s: %s" % (path, line))
    sys.exit(1 if wrong else 0)


main()
