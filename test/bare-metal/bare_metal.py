"""bare_metal.py -- the bare-metal kernel (examples/bare-metal) booted by
QEMU without KVM, its memory dumped over the monitor, its trace taken out
with `mprof snapshot --core` and checked on content: the story's threads,
labels and counters, the lost wake-up of `hang`, times against the host's
clock, and the bad dumps (no trace, a trace cut by the end of the memory
dumped, two traces), each one line.

Run by CTest as: /usr/bin/python3 bare_metal.py BUILD_DIR QEMU
"""
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time

BUILD, QEMU = sys.argv[1], sys.argv[2]
MPROF = os.path.join(BUILD, "mprof")
KERNEL_DIR = os.path.join(BUILD, "examples", "bare-metal")
KERNEL64 = os.path.join(KERNEL_DIR, "kernel64.elf")
TICK_NS = 50e6  # main.c: TICK_MS
READY_TICK, PANIC_TICK = 4, 8
STORY_LABELS = {"ARP cache 10.0.0.2", "ready line", "ticker",
                "connect to 10.0.0.2:7001", "ARP responder", "other work",
                "ARP answer delay", "ARP response", "sleep 50 ms"}
FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def fail(what):
    sys.exit("FAIL: " + what)


def run(*args):
    done = subprocess.run(list(args), capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr.splitlines()


class Guest:
    """The kernel running under QEMU (TCG), its serial port in a file and
    its monitor on a Unix socket."""

    def __init__(self, tmp, name, words):
        self.serial = os.path.join(tmp, name + ".serial")
        monitor = os.path.join(tmp, name + ".monitor")
        self.qemu = subprocess.Popen(
            [QEMU, "-accel", "tcg", "-m", "32", "-nodefaults", "-display", "none",
             "-serial", "file:" + self.serial,
             "-monitor", "unix:%s,server=on,wait=off" % monitor,
             "-kernel", os.path.join(KERNEL_DIR, "kernel.elf"), "-append", words],
            stdin=subprocess.DEVNULL)
        self.wait_line("bare-metal: recording")
        self.monitor = socket.socket(socket.AF_UNIX)
        self.monitor.connect(monitor)
        self.command(None)

    def output(self):
        try:
            with open(self.serial, "rb") as f:
                return f.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    def wait_line(self, text):
        """Wait for text on the serial port; the host's time it was seen."""
        deadline = time.monotonic() + 30
        while text not in self.output():
            if self.qemu.poll() is not None or time.monotonic() > deadline:
                fail("no %r on the serial port: %r" % (text, self.output()))
            time.sleep(0.005)
        return time.time()

    def command(self, line):
        """Send a monitor command; what it answered (before the prompt)."""
        if line:
            self.monitor.sendall(line.encode() + b"\n")
        answer = b""
        while not answer.endswith(b"(qemu) "):
            chunk = self.monitor.recv(4096)
            if not chunk:
                fail("QEMU's monitor closed after %r" % line)
            answer += chunk
        return answer.decode(errors="replace").split("\r\n")[1:-1]

    def dump(self, path, begin=None, length=None):
        line = "dump-guest-memory " + path
        if begin is not None:
            line += " %d %d" % (begin, length)
        answer = self.command(line)
        if answer or not os.path.exists(path):
            fail("%s: %s" % (line, answer))

    def close(self):
        self.monitor.sendall(b"quit\n")
        self.qemu.wait(timeout=30)


def symbol(name):
    _, out, _ = run("nm", KERNEL64)
    for line in out.splitlines():
        fields = line.split()
        if fields[-1] == name:
            return int(fields[0], 16)
    fail("no symbol %s in the kernel" % name)


def check_kernel_stands_alone():
    """The kernel links the recorder core and nothing else: no undefined
    symbol, no libc (its link has -nostdlib, so it would not link)."""
    _, undefined, _ = run("nm", "-u", KERNEL64)
    if undefined.strip():
        fail("the kernel needs: " + undefined)
    _, defined, _ = run("nm", "--defined-only", KERNEL64)
    for name in ("mprof_start", "mprof__create", "mprof__metadata_write", "kmain"):
        if not re.search(r" T %s$" % name, defined, re.M):
            fail("the kernel lacks " + name)


def snapshot(core, trace, lines=0):
    """mprof snapshot --core core into trace, which must print lines lines."""
    code, _, err = run(MPROF, "snapshot", "--core", core, "-w", trace)
    if code != 0 or len(err) != lines:
        fail("snapshot --core %s: exit %d, %s" % (core, code, err))
    return err


def check_clean(trace):
    code, out, err = run(MPROF, "check", trace)
    if code != 0 or ": ok, " not in out or err:
        fail("mprof check %s: %s %s" % (trace, out, err))


def events(trace, *options):
    """mprof dump's events: (time, kind, {field: value}), strings unquoted."""
    code, out, err = run(MPROF, "dump", "--raw", *options, trace)
    if code != 0 or err:
        fail("mprof dump %s: %s" % (trace, err))
    found = []
    for line in out.splitlines():
        time_ns, _, kind, rest = (line.split(" ", 3) + [""])[:4]
        fields = {k: v[1:-1] if v.startswith('"') else v
                  for k, v in FIELD.findall(rest)}
        found.append((int(time_ns), kind, fields))
    return found


def labels(evs):
    return {f["target"]: f["text"] for _, kind, f in evs if kind == "label"}


def counter_values(evs, name):
    """(time, value) of each counter_value event of the counter name."""
    ids = {f["counter"] for _, kind, f in evs
           if kind == "counter_name" and f["text"] == name}
    return [(t, int(f["value"])) for t, kind, f in evs
            if kind == "counter_value" and f["counter"] in ids]


def report(trace):
    code, out, err = run(MPROF, "report", "--json", trace)
    if code != 0 or err:
        fail("mprof report %s: %s" % (trace, err))
    return json.loads(out)


def check_story(trace, t_ready, t_dump):
    """The story's threads and counters, and its times against the host's
    clock: the ticker's sleeps, and the time from the ready line to the
    dump as the host saw it."""
    evs = events(trace)
    named = set(labels(evs).values())
    if named != STORY_LABELS:
        fail("labels: %s" % sorted(named ^ STORY_LABELS))
    r = report(trace)
    # A wait for an answer may be in flight when the guest is stopped.
    stalled = [(s["thread"]["name"], evs[-1][0] - s["start_ns"]) for s in r["stalls"]]
    if r["lost_wakeups"] or any(name != "ARP response" or waited > 2 * TICK_NS
                                for name, waited in stalled):
        fail("the good story stalled: %s" % stalled)
    ticks = counter_values(evs, "ticks")
    if [v for _, v in ticks] != list(range(len(ticks))) or len(ticks) < 10:
        fail("ticks counted 0, 1, 2, ...: %s" % [v for _, v in ticks])
    sent = counter_values(evs, "bytes sent")
    if [v for _, v in sent] != list(range(1, len(sent) + 1)) or len(sent) < 4:
        fail("bytes sent: %s" % sent)
    gaps = [b[0] - a[0] for a, b in zip(ticks, ticks[1:])]
    if min(gaps) < 0.8 * TICK_NS or abs(statistics.median(gaps) / TICK_NS - 1) > 0.2:
        fail("ticks 50 ms apart: %s" % gaps)
    ready = [f["target"] for _, kind, f in evs
             if kind == "label" and f["text"] == "ready line"][0]
    t_resolved = [t for t, kind, f in evs
                  if kind == "resolve" and f["target"] == ready][0]
    traced, host = (evs[-1][0] - t_resolved) / 1e9, t_dump - t_ready
    if abs(traced / host - 1) > 0.2:
        fail("ready line to dump: %.3f s in the trace, %.3f s on the host"
             % (traced, host))
    print("ok: story; ticks %.2f ms apart (median); ready line to dump "
          "%.3f s traced, %.3f s on the host"
          % (statistics.median(gaps) / 1e6, traced, host))
    return len(evs)


def check_babeltrace(tmp, trace, count, t_dump):
    """babeltrace2 reads the trace, every event, and its wall-clock times
    (the kernel's CMOS clock, 1 s grain) agree with the host's."""
    directory = os.path.join(tmp, "story-ctf")
    code, _, err = run(MPROF, "ctf", trace, "-o", directory)
    if code != 0:
        fail("mprof ctf: %s" % err)
    code, out, err = run("babeltrace2", "--clock-seconds", directory)
    lines = out.splitlines()
    if code != 0 or len(lines) != count:
        fail("babeltrace2: %d of %d events: %s" % (len(lines), count, err))
    last = float(re.match(r"\[(\d+\.\d+)\]", lines[-1]).group(1))
    if abs(last - t_dump) > 2.5:
        fail("last event at %.3f, dumped at %.3f (host)" % (last, t_dump))


def check_hang(trace):
    """The lost wake-up: the answer came before the wait; the ticker ran on."""
    r = report(trace)
    stalled = [s["thread"]["name"] for s in r["stalls"]]
    if stalled != ["ARP response"]:
        fail("stalls: %s" % stalled)
    lost = [(w["condition"]["name"], w["signalled_by"]["name"], w["waiter"]["name"])
            for w in r["lost_wakeups"]]
    if lost != [("ARP cache 10.0.0.2", "ARP responder", "ARP response")]:
        fail("lost wake-ups: %s" % lost)
    evs = events(trace)
    ticks = counter_values(evs, "ticks")
    if ticks[-1][1] <= READY_TICK or counter_values(evs, "bytes sent"):
        fail("after the hang: ticks %s, bytes sent" % ticks[-1:])
    _, text, _ = run(MPROF, "report", trace)
    if '"ARP cache 10.0.0.2" (condition#1) was signalled by "ARP responder"' not in text:
        fail("text report: " + text)


def check_cut(core, full_trace, tmp):
    """A dump that ends inside the trace: one line, the whole packets kept."""
    cut = os.path.join(tmp, "cut.ctf")
    line = snapshot(core, cut, lines=1)[0]
    m = re.search(r": the trace at 0x([0-9a-f]+) runs past the end of the memory "
                  r"dumped \((\d+) of its (\d+) bytes are there\); read its first "
                  r"(\d+) of (\d+) packets$", line)
    if not m or int(m.group(1), 16) != symbol("trace_buffer") or \
            m.group(2, 3) != ("300000", str(1 << 20)):
        fail("cut: " + line)
    check_clean(cut)
    kept = {(kind, tuple(sorted(f.items()))) for _, kind, f in events(cut, "--ticks")}
    whole = {(kind, tuple(sorted(f.items()))) for _, kind, f in events(full_trace, "--ticks")}
    if not kept or not kept <= whole:
        fail("the cut trace's events are not the whole one's: %d" % len(kept - whole))


def main():
    if not os.access(QEMU, os.X_OK):
        fail("no qemu-system-x86_64 (%s): scripts/deps.sh installs it" % QEMU)
    check_kernel_stands_alone()
    trace_buffer = symbol("trace_buffer")
    with tempfile.TemporaryDirectory() as tmp:
        path = lambda name: os.path.join(tmp, name)

        # The story for a second past the ready line; then, the guest
        # stopped, its whole memory, a dump cut 300000 bytes into the trace,
        # and one of the memory below the kernel (no trace).
        guest = Guest(tmp, "story", "")
        t_ready = guest.wait_line("bare-metal: ready")
        time.sleep(1.0)
        t_dump = time.time()
        guest.command("stop")
        guest.dump(path("story.core"))
        kernel = 0x100000  # kernel.ld
        guest.dump(path("cut.core"), kernel, trace_buffer - kernel + 300000)
        guest.dump(path("low.core"), 0, kernel)
        guest.close()
        snapshot(path("story.core"), path("story.ctf"))
        check_clean(path("story.ctf"))
        count = check_story(path("story.ctf"), t_ready, t_dump)
        check_babeltrace(tmp, path("story.ctf"), count, t_dump)
        check_cut(path("cut.core"), path("story.ctf"), tmp)
        code, _, err = run(MPROF, "snapshot", "--core", path("low.core"), "-w", path("x.ctf"))
        if code != 3 or err != ["mprof: %s: no mprof trace in the memory of this "
                                "core dump" % path("low.core")]:
            fail("no trace: exit %d, %s" % (code, err))

        # The lost wake-up, the ticker running on.
        guest = Guest(tmp, "hang", "hang")
        guest.wait_line("bare-metal: ready")
        # 20 ticks of 50 ms: on a loaded host QEMU's emulation may run
        # several times slower, and the check needs only a few.
        time.sleep(1.0)
        guest.dump(path("hang.core"))
        guest.close()
        snapshot(path("hang.core"), path("hang.ctf"))
        check_clean(path("hang.ctf"))
        check_hang(path("hang.ctf"))

        # A first trace left stopped, the story in a second one, and the
        # kernel stopped in a panic while recording.
        guest = Guest(tmp, "panic", "restart panic")
        guest.wait_line("bare-metal: panic")
        guest.dump(path("panic.core"))
        guest.close()
        line = snapshot(path("panic.core"), path("panic.ctf"), lines=1)[0]
        expected = ("mprof: %s: 2 mprof traces in memory (at 0x%x stopped, 0x%x "
                    "recording); read the recording one at 0x%x"
                    % (path("panic.core"), symbol("first_buffer"), trace_buffer,
                       trace_buffer))
        if line != expected:
            fail("two traces: %r, not %r" % (line, expected))
        check_clean(path("panic.ctf"))
        evs = events(path("panic.ctf"))
        if counter_values(evs, "ticks")[-1][1] != PANIC_TICK or \
                "boot" in labels(evs).values():
            fail("panic: the story's trace up to tick 8")
    print("ok: bare-metal kernel under QEMU: story, lost wake-up, panic, "
          "cut, no trace, two traces")


main()
