"""bare_metal.py -- the bare-metal kernel (examples/bare-metal) booted by
QEMU without KVM (TCG, -nographic, its serial port on a pipe, QMP on a
socket), its memory dumped over QMP, its trace taken out with `mprof
snapshot --core` and checked on content: the sources the kernel is built
from, the story's threads, labels and counters, the lost wake-up of `hang`
while running and after a panic, times against the host's clock, and the
bad dumps (no trace, a trace cut by the end of the memory dumped or of the
file, two traces), each one line.

Run by CTest as: /usr/bin/python3 bare_metal.py BUILD_DIR QEMU
"""
import json
import os
import re
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

BUILD, QEMU = sys.argv[1], sys.argv[2]
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MPROF = os.path.join(BUILD, "mprof")
KERNEL_DIR = os.path.join(BUILD, "examples", "bare-metal")
KERNEL64 = os.path.join(KERNEL_DIR, "kernel64.elf")
TICK_NS = 50e6  # main.c: TICK_MS
READY_TICK, PANIC_TICK = 4, 8
STORY_LABELS = {"ARP cache 10.0.0.2", "ready line", "ticker",
                "connect to 10.0.0.2:7001", "ARP responder", "other work",
                "ARP answer delay", "ARP response", "sleep 50 ms"}
COUNTERS = {"ticks", "bytes sent"}
FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')
GUESTS = []  # the QEMUs running, killed if a check fails


def fail(what):
    sys.exit("FAIL: " + what)


def run(*args):
    done = subprocess.run(list(args), capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr.splitlines()


class Guest:
    """The kernel running under QEMU (TCG, -nographic): its serial port on
    QEMU's standard output, a pipe read line by line with the host's time
    each came, and QMP on a Unix socket."""

    def __init__(self, tmp, name, words):
        qmp = os.path.join(tmp, name + ".qmp")
        self.qemu = subprocess.Popen(
            [QEMU, "-accel", "tcg", "-m", "32", "-nographic", "-nodefaults",
             "-serial", "stdio", "-qmp", "unix:%s,server=on,wait=off" % qmp,
             "-kernel", os.path.join(KERNEL_DIR, "kernel.elf"), "-append", words],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        GUESTS.append(self)
        self.lines = []  # (host time, line) of the serial port
        self.arrived = threading.Condition()
        threading.Thread(target=self.read_serial, daemon=True).start()
        self.wait_line("bare-metal: recording")
        self.socket = socket.socket(socket.AF_UNIX)
        self.socket.connect(qmp)
        self.qmp = self.socket.makefile("rw")
        if "QMP" not in self.message():
            fail("no QMP greeting")
        self.execute("qmp_capabilities")

    def read_serial(self):
        for line in self.qemu.stdout:
            with self.arrived:
                self.lines.append((time.time(), line.decode(errors="replace")))
                self.arrived.notify_all()
        with self.arrived:
            self.lines.append((time.time(), None))  # QEMU is gone
            self.arrived.notify_all()

    def wait_line(self, text):
        """Wait for text on the serial port; the host's time it came."""
        deadline = time.monotonic() + 30
        with self.arrived:
            while True:
                for when, line in self.lines:
                    if line is not None and text in line:
                        return when
                left = deadline - time.monotonic()
                if left <= 0 or (self.lines and self.lines[-1][1] is None):
                    fail("no %r on the serial port: %r" % (text, self.lines))
                self.arrived.wait(left)

    def tsc_hz(self):
        """The TSC's rate the kernel measured, as its first line says."""
        for _, line in self.lines:
            found = re.search(r"bare-metal: recording, TSC at (\d+) Hz", line or "")
            if found:
                return int(found.group(1))
        fail("no TSC rate on the serial port: %r" % self.lines)

    def message(self):
        line = self.qmp.readline()
        if not line:
            fail("QEMU's QMP socket closed")
        return json.loads(line)

    def execute(self, command, **arguments):
        """Run a QMP command; its return value (events are skipped)."""
        self.qmp.write(json.dumps({"execute": command, "arguments": arguments}) + "\n")
        self.qmp.flush()
        while True:
            answer = self.message()
            if "error" in answer:
                fail("QMP %s %s: %s" % (command, arguments, answer["error"]))
            if "return" in answer:
                return answer["return"]

    def dump(self, path, begin=None, length=None):
        arguments = {"paging": False, "protocol": "file:" + path}
        if begin is not None:
            arguments.update(begin=begin, length=length)
        self.execute("dump-guest-memory", **arguments)
        if not os.path.exists(path):
            fail("dump-guest-memory wrote no %s" % path)

    def close(self):
        self.execute("quit")
        self.qemu.wait(timeout=30)
        self.socket.close()
        GUESTS.remove(self)


def symbol(name):
    _, out, _ = run("nm", KERNEL64)
    for line in out.splitlines():
        fields = line.split()
        if fields[-1] == name:
            return int(fields[0], 16)
    fail("no symbol %s in the kernel" % name)


def compiled_sources():
    """The source files of the kernel's compile units, from its DWARF."""
    _, out, _ = run("readelf", "--debug-dump=info", "--dwarf-depth=1", KERNEL64)
    units = re.split(r"DW_TAG_compile_unit", out)[1:]
    names = [re.search(r"DW_AT_name\s*:\s*(?:\([^)]*\):\s*)?(.+?)\s*$", unit, re.M)
             for unit in units]
    return {os.path.relpath(os.path.join(SOURCE, n.group(1)), SOURCE)
            for n in names if n}


def check_kernel_stands_alone():
    """The kernel is built from its own files, src/record and src/format,
    and links nothing else: no undefined symbol (its link has -nostdlib,
    so no libc or libgcc either)."""
    _, undefined, _ = run("nm", "-u", KERNEL64)
    if undefined.strip():
        fail("the kernel needs: " + undefined)
    _, defined, _ = run("nm", "--defined-only", KERNEL64)
    for name in ("mprof_start", "mprof__create", "mprof__metadata_write", "kmain"):
        if not re.search(r" T %s$" % name, defined, re.M):
            fail("the kernel lacks " + name)
    sources = compiled_sources()
    core = {"src/record/record.c", "src/record/record_start.c",
            "src/format/metadata.c", "src/format/names.c"}
    others = {f for f in sources - core
              if not f.startswith("examples/bare-metal/")}
    if not core <= sources or others:
        fail("the kernel's sources: %s" % sorted(sources))


def snapshot(core, trace, lines=0, status=0):
    """mprof snapshot --core core into trace, which must print lines lines
    and exit with status (1: the trace is damaged)."""
    code, _, err = run(MPROF, "snapshot", "--core", core, "-w", trace)
    if code != status or len(err) != lines:
        fail("snapshot --core %s: exit %d, not %d: %s" % (core, code, status, err))
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


def check_times(what, evs, t_ready, t_end):
    """The time from the ready line to the trace's last event against the
    host's, from the line on the pipe to the dump (or the panic's line):
    within 20 %, or 50 ms for a short one.  The TSC's rate the kernel
    measured is right only then."""
    ready = [f["target"] for _, kind, f in evs
             if kind == "label" and f["text"] == "ready line"][0]
    t_resolved = [t for t, kind, f in evs
                  if kind == "resolve" and f["target"] == ready][0]
    last = max(t for t, _, _ in evs)  # mprof dump's order is by stream
    traced, host = (last - t_resolved) / 1e9, t_end - t_ready
    if abs(traced - host) > max(0.2 * host, 0.05):
        fail("%s: ready line to its end: %.3f s in the trace, %.3f s on the host"
             % (what, traced, host))
    return traced, host


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
    last = max(t for t, _, _ in evs)
    stalled = [(s["thread"]["name"], last - s["start_ns"]) for s in r["stalls"]]
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
    traced, host = check_times("story", evs, t_ready, t_dump)
    print("ok: story; ticks %.2f ms apart (median); ready line to dump "
          "%.3f s traced, %.3f s on the host"
          % (statistics.median(gaps) / 1e6, traced, host))


def check_babeltrace(tmp, trace, t_end, tsc_hz):
    """babeltrace2 reads the trace (as `mprof ctf` writes it): every event,
    the story's labels and counters, and wall-clock times (the kernel's
    CMOS clock, 1 s grain) that agree with the host's; the clock's rate is
    the one the kernel measured and printed."""
    count = len(events(trace))
    directory = os.path.join(tmp, os.path.basename(trace) + "-ctf")
    code, _, err = run(MPROF, "ctf", trace, "-o", directory)
    if code != 0:
        fail("mprof ctf: %s" % err)
    with open(os.path.join(directory, "metadata")) as f:
        freq = re.search(r"\bfreq = (\d+);", f.read())
    if not freq or int(freq.group(1)) != tsc_hz:
        fail("%s: clock rate %s, the kernel measured %d Hz"
             % (trace, freq and freq.group(1), tsc_hz))
    code, out, err = run("babeltrace2", "--clock-seconds", directory)
    lines = out.splitlines()
    if code != 0 or len(lines) != count:
        fail("babeltrace2 %s: %d of %d events: %s" % (trace, len(lines), count, err))
    names = set(re.findall(r'(?:text|name) = "([^"]*)"', out))
    if names != STORY_LABELS | COUNTERS:
        fail("babeltrace2 %s: names %s" % (trace, sorted(names ^ STORY_LABELS ^ COUNTERS)))
    last = float(re.match(r"\[(\d+\.\d+)\]", lines[-1]).group(1))
    if abs(last - t_end) > 2.5:
        fail("babeltrace2 %s: last event at %.3f, at %.3f on the host"
             % (trace, last, t_end))


def check_hang(trace, t_ready, t_end, last_tick):
    """The lost wake-up: the answer came before the wait, the connection
    waits for good, the ticker ran on (to last_tick, or past the ready
    line); the report, JSON and text, names the stalled promise and the
    task whose signal nobody waited for."""
    r = report(trace)
    stalled = [(s["thread"]["name"], s["creator"]["name"], s["before"][-1]["from"]["name"])
               for s in r["stalls"]]
    if stalled != [("ARP response", "ARP cache 10.0.0.2", "connect to 10.0.0.2:7001")]:
        fail("stalls: %s" % stalled)
    lost = [(w["condition"]["name"], w["signalled_by"]["name"], w["waiter"]["name"])
            for w in r["lost_wakeups"]]
    if lost != [("ARP cache 10.0.0.2", "ARP responder", "ARP response")]:
        fail("lost wake-ups: %s" % lost)
    evs = events(trace)
    ticks = counter_values(evs, "ticks")
    if (last_tick is None and ticks[-1][1] <= READY_TICK) or \
            (last_tick is not None and ticks[-1][1] != last_tick) or \
            counter_values(evs, "bytes sent"):
        fail("after the hang: ticks %s, bytes sent" % ticks[-1:])
    _, text, _ = run(MPROF, "report", trace)
    for needed in (r'"ARP response" \(wait#\d+\), created by "ARP cache 10.0.0.2"',
                   r'"ARP cache 10.0.0.2" \(condition#\d+\) was signalled by '
                   r'"ARP responder" \(task#\d+\) at [\d.]+ ms with nobody waiting;'
                   r'\n  then "ARP response" \(wait#\d+\) began waiting on it'):
        if not re.search(needed, text):
            fail("text report of %s lacks %r:\n%s" % (trace, needed, text))
    return check_times(trace, evs, t_ready, t_end)


def check_cut(core, full_trace, tmp, expected_line):
    """A dump that ends inside the trace: one line, exit 1 (damaged), the
    whole packets kept, each event one of the whole trace's.  The cut
    trace's events."""
    cut = os.path.join(tmp, os.path.basename(core) + ".ctf")
    line = snapshot(core, cut, lines=1, status=1)[0]
    if line != expected_line:
        fail("cut: %r, not %r" % (line, expected_line))
    check_clean(cut)
    kept = [(kind, tuple(sorted(f.items()))) for _, kind, f in events(cut, "--ticks")]
    whole = {(kind, tuple(sorted(f.items()))) for _, kind, f in events(full_trace, "--ticks")}
    if not kept or not set(kept) <= whole:
        fail("the cut trace's events are not the whole one's: %d" % len(set(kept) - whole))
    return kept


def file_offset(core, address):
    """Where the byte at address (physical) is in the file core, from its
    PT_LOAD segments."""
    with open(core, "rb") as f:
        data = f.read()
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phnum, = struct.unpack_from("<H", data, 0x38)
    for i in range(phnum):
        kind, _, offset, start, _, size = struct.unpack_from(
            "<IIQQQQ", data, phoff + 56 * i)
        if kind == 1 and start <= address < start + size:
            return offset + address - start
    fail("%s: no segment holds 0x%x" % (core, address))


def cut_file(core, trace_address, into, path):
    """A copy of core that ends into bytes into the trace at
    trace_address (physical): a dump cut short."""
    with open(core, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[:file_offset(core, trace_address) + into])


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
        guest.execute("stop")
        guest.dump(path("story.core"))
        kernel = 0x100000  # kernel.ld
        guest.dump(path("cut.core"), kernel, trace_buffer - kernel + 300000)
        guest.dump(path("low.core"), 0, kernel)
        guest.close()
        snapshot(path("story.core"), path("story.ctf"))
        check_clean(path("story.ctf"))
        check_story(path("story.ctf"), t_ready, t_dump)
        check_babeltrace(tmp, path("story.ctf"), t_dump, guest.tsc_hz())
        cut_line = ("mprof: %s: the trace at 0x%x (offset %d in the file) runs past "
                    "the end of the memory dumped (300000 of its %d bytes are "
                    "there); read its first 17 of 63 packets")
        kept = check_cut(path("cut.core"), path("story.ctf"), tmp, cut_line % (
            path("cut.core"), trace_buffer,
            file_offset(path("cut.core"), trace_buffer), 1 << 20))
        cut_file(path("story.core"), trace_buffer, 300000, path("short.core"))
        if check_cut(path("short.core"), path("story.ctf"), tmp, cut_line % (
                path("short.core"), trace_buffer,
                file_offset(path("story.core"), trace_buffer), 1 << 20)) != kept:
            fail("a file cut short and a dump of as much memory differ")
        code, _, err = run(MPROF, "snapshot", "--core", path("low.core"), "-w", path("x.ctf"))
        if code != 3 or err != ["mprof: %s: no mprof trace in the memory of this "
                                "core dump" % path("low.core")]:
            fail("no trace: exit %d, %s" % (code, err))

        # The lost wake-up, the ticker running on; the dump while it runs.
        guest = Guest(tmp, "hang", "hang")
        t_ready = guest.wait_line("bare-metal: ready")
        # 20 ticks of 50 ms: on a loaded host QEMU's emulation may run
        # several times slower, and the check needs only a few.
        time.sleep(1.0)
        t_dump = time.time()
        guest.dump(path("hang.core"))
        guest.close()
        snapshot(path("hang.core"), path("hang.ctf"))
        check_clean(path("hang.ctf"))
        check_babeltrace(tmp, path("hang.ctf"), t_dump, guest.tsc_hz())
        traced, host = check_hang(path("hang.ctf"), t_ready, t_dump, None)
        print("ok: hang; ready line to dump %.3f s traced, %.3f s on the host"
              % (traced, host))

        # The same lost wake-up with the kernel stopped in a panic at tick
        # 8, and a first trace, of the boot, left stopped in memory before.
        guest = Guest(tmp, "panic", "restart hang panic")
        t_ready = guest.wait_line("bare-metal: ready")
        t_panic = guest.wait_line("bare-metal: panic")
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
        check_babeltrace(tmp, path("panic.ctf"), t_panic, guest.tsc_hz())
        traced, host = check_hang(path("panic.ctf"), t_ready, t_panic, PANIC_TICK)
        print("ok: panic; ready line to panic %.3f s traced, %.3f s on the host"
              % (traced, host))
    print("ok: bare-metal kernel under QEMU: story, lost wake-up running and "
          "after a panic, cut dump and cut file, no trace, two traces")


try:
    main()
finally:
    for running in GUESTS:
        running.qemu.kill()
