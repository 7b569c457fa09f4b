#!/usr/bin/python3
"""test_babeltrace.py -- our CTF checked by the real babeltrace2 (bt2 API and
CLI, Debian 12's 2.0.4): the events mprof's reader sees (`mprof dump`) are
the events babeltrace2 sees, with the same stream, name, fields and clock
value, in the same order in each stream and both in time order; counts and
discarded events are exact; a wrapped ring keeps each stream's newest
events with no hole but where the file itself lacks a packet; the CLI
prints no warning for a lossless trace.  The same for the legacy net.ctf,
converted by `mprof ctf`.

Run by CTest as: /usr/bin/python3 test_babeltrace.py BUILD_DIR NET_CTF
(/usr/bin/python3: the python3 on PATH may lack bt2).
"""
import codecs
import collections
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
import unittest

import bt2

BUILD = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else "build"
NET_CTF = (os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1
           else os.path.join(os.path.dirname(__file__), "data/net.ctf"))
MPROF = os.path.join(BUILD, "mprof")
GEN = os.path.join(BUILD, "test", "trace_gen")
UV_PROG = os.path.join(BUILD, "test", "uv", "uv_prog_plain")
STORY = os.path.join(BUILD, "test", "story")

# The payload field that mprof dump prints as target=/child=... per event.
FIELDS = {
    "switch": ("thread",), "create": ("child", "thread_type"),
    "create_by": ("child", "parent", "thread_type"), "read": ("source",),
    "try_read": ("source",), "resolve": ("thread",), "fail": ("thread", "reason"),
    "becomes": ("old_thread", "new_thread"), "label": ("thread", "label"),
    "signal": ("target",), "suspend": (), "should_resolve": ("thread",),
    "counter_name": ("counter", "name"), "counter_increase": ("counter", "amount"),
    "counter_value": ("counter", "value"), "string": ("string_id", "text"),
    "label_ref": ("thread", "string_id"),
    "net_label": ("thread", "string_id", "offset", "length"),
    "net_hash_label": ("thread", "string_id", "hash", "length"),
}


# Thread type numbers by name, from the table in include/mprof.h.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include",
                       "mprof.h")) as header:
    TYPE_NUMBERS = {name: int(number) for number, name in
                    re.findall(r'X\(\w+, (\d+), "(\w+)"\)', header.read())}


def record(tmp, mode, size, rounds, threads):
    path = os.path.join(tmp, "t.ctf")
    out = subprocess.run([GEN, path, mode, str(size), str(rounds), str(threads)],
                         check=True, capture_output=True, text=True).stdout
    stats = dict(line.split() for line in out.splitlines())
    return path, int(stats["events"]), int(stats["discarded"])


def started(path):
    try:
        with open(path, "rb") as f:
            return f.read(8) == b"MPROFCTF"
    except OSError:
        return False


def to_ctf(tmp, trace):
    directory = os.path.join(tmp, "dir")
    subprocess.run([MPROF, "ctf", trace, "-o", directory], check=True)
    return directory


def bt2_read(directory, ring=None):
    """babeltrace2's event messages, and the events and packets it reports
    discarded.  ring (a dict), if given, gets what babeltrace2 says of each
    ring stream: {stream: {"packets": N, "lost": [(packets lost, index of
    the next event)]}}."""
    messages, discarded_events, discarded_packets = [], 0, 0
    def ring_stream(stream):
        if ring is None or stream.cls.id != 0:
            return {"packets": 0, "lost": []}
        return ring.setdefault(stream.id, {"packets": 0, "lost": []})
    for msg in bt2.TraceCollectionMessageIterator(directory):
        if type(msg) is bt2._EventMessageConst:
            messages.append(msg)
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            discarded_events += msg.count or 0
        elif type(msg) is bt2._DiscardedPacketsMessageConst:
            discarded_packets += msg.count or 0
            ring_stream(msg.stream)["lost"].append((msg.count, len(messages)))
        elif type(msg) is bt2._PacketBeginningMessageConst:
            ring_stream(msg.packet.stream)["packets"] += 1
    return messages, discarded_events, discarded_packets


def bt2_events(directory):
    """(clock, (stream class, stream number), name, fields...) of every
    event in babeltrace2's order, and discarded counts."""
    messages, discarded_events, discarded_packets = bt2_read(directory)
    events, strings, refs = [], {}, []
    for msg in messages:
        ev = msg.event
        values = []
        for name in FIELDS[ev.name]:
            field = ev.payload_field[name]
            if name == "thread_type":
                values.append(int(field))
            else:
                values.append(bt2_text(field) if isinstance(field, bt2._StringFieldConst)
                              else int(field))
        stream = (ev.stream.cls.id, ev.stream.id)
        event = (msg.default_clock_snapshot.value, stream, ev.name) + tuple(values)
        if ev.name == "string":
            strings[(ev.stream.id, values[0])] = values[1]
        if ev.name in ("label_ref", "net_label", "net_hash_label"):
            counter = int(ev.payload_field["counter"]) if ev.name != "label_ref" else 0
            refs.append((len(events), ev.stream.id, counter, ev.name))
        events.append(event)
    # mprof's reader shows a label_ref as the label it stands for, a
    # net_label as the label "HEAD OFFSET LENGTH" and a net_hash_label as
    # "HEAD HASH LENGTH" (16 hex digits), after the increase of its counter
    # (if it names one) by LENGTH.
    for index, stream, counter, name in reversed(refs):
        clock, stream_key, _, thread, string_id, *numbers = events[index]
        shown = [b"%d" % n for n in numbers]
        if name == "net_hash_label":
            shown[0] = b"%016x" % numbers[0]
        text = b" ".join([strings[(stream, string_id)]] + shown)
        events[index:index + 1] = (
            [(clock, stream_key, "counter_increase", counter, numbers[-1])] if counter else []
        ) + [(clock, stream_key, "label", thread, text)]
    return events, discarded_events, discarded_packets


def unescape(text):
    """The bytes of a string `mprof dump` escaped."""
    return codecs.escape_decode(text.encode())[0]


def bt2_text(field):
    """The bytes of a babeltrace2 string field (not UTF-8: surrogates)."""
    return str(field).encode("utf-8", "surrogateescape")


def dump(trace, streams=False):
    """(ticks, event, {key: value}, text or None) of each `mprof dump --ticks`
    line; streams: (ticks, stream, event, ...)."""
    out = subprocess.run([MPROF, "dump", "--raw", "--ticks", trace], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        head, quote, text = line.partition(' text="')
        parts = head.split()
        kv = dict(p.split("=", 1) for p in parts[3:])
        stream = (int(parts[1]),) if streams else ()
        yield (int(parts[0]),) + stream + (parts[2], kv,
                                           unescape(text[:-1]) if quote else None)


def mprof_events(trace):
    """The same tuples from `mprof dump --ticks`, in its order."""
    events = []
    for ticks, stream, name, kv, text in dump(trace, streams=True):
        values = []
        for field in FIELDS[name]:
            if field in ("label", "reason", "name", "text"):
                values.append(text)
            elif field == "thread_type":
                values.append(TYPE_NUMBERS[kv["type"]])
            elif field in ("amount", "value"):
                values.append(int(kv["value"]))
            elif field == "counter":
                values.append(int(kv["counter"]))
            elif field == "string_id":
                values.append(int(kv["id"]))
            elif field == "child":
                values.append(int(kv["child"]))
            elif field == "parent":
                values.append(int(kv["parent"]))
            elif field == "old_thread":
                values.append(int(kv["old"]))
            elif field == "new_thread":
                values.append(int(kv["new"]))
            else:
                values.append(int(kv["target"]))
        events.append((ticks, stream, name) + tuple(values))
    return events


def dump_streams(events):
    """`mprof dump`'s events by CTF stream: {(class, number): [event]}.  It
    prints each stream's events in order, the streams by class (ring, then
    names: docs/FORMAT.md 2.1) and number, so a number that does not rise
    starts the names streams."""
    streams, names, previous = collections.defaultdict(list), 0, -1
    for event in events:
        names |= event[1] < previous
        streams[(names, event[1])].append(event[:1] + event[2:])
        previous = event[1]
    return streams


def bt2_streams(events):
    """babeltrace2's events, each (clock, (class, number), name, fields...),
    by CTF stream."""
    streams = collections.defaultdict(list)
    for event in events:
        streams[event[1]].append(event[:1] + event[2:])
    return streams


def first_difference(a, b):
    """Where two lists first differ, for a short failure message."""
    i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return "at %d of %d/%d: %r != %r" % (i, len(a), len(b), a[i:i + 2], b[i:i + 2])


def ring_packets(trace):
    """Each ring stream's packets as the trace file holds them, read from
    its bytes as docs/FORMAT.md lays them out: {stream: sorted seq nums} of
    the packets with events."""
    with open(trace, "rb") as f:
        data = f.read()
    packet_size, _, ring_count = struct.unpack_from("<III", data, 24)
    packets_offset = struct.unpack_from("<Q", data, 56)[0]
    found = collections.defaultdict(list)
    for i in range(ring_count):
        at = packets_offset + i * packet_size
        magic, = struct.unpack_from("<I", data, at)
        stream, = struct.unpack_from("<Q", data, at + 24)
        content_bits, = struct.unpack_from("<Q", data, at + 48)
        seq, = struct.unpack_from("<Q", data, at + 64)
        if magic == 0xC1FC1FC1 and content_bits > 92 * 8:
            found[stream].append(seq)
    return {stream: sorted(seqs) for stream, seqs in found.items()}


def legacy_id(value):
    """mprof's id for a legacy thread id: one more, so -1 becomes 0."""
    return str((int(value) + 1) % (1 << 64))


def legacy_as_dump(name, f):
    """What `mprof dump` prints for a legacy event that babeltrace2 shows as
    name with payload f: (event, {key: value}, text).  The key "thread" is
    left out where the legacy event does not name its actor (mprof's reader
    infers it from the switches)."""
    if name == "creates":
        return "create", {"thread": legacy_id(f["parent"]),
                          "child": legacy_id(f["child"]),
                          "type": (f["thread_type"].labels or ["unknown"])[0]}, None
    if name in ("read", "read_later", "try_read"):
        return ("try_read" if name == "try_read" else "read"), {
            "thread": legacy_id(f["reader"]), "target": legacy_id(f["source"])}, None
    if name in ("fulfills", "fails"):
        kv = {"thread": legacy_id(f["resolver"]), "target": legacy_id(f["thread"])}
        return (("resolve", kv, None) if name == "fulfills"
                else ("fail", kv, bt2_text(f["reason"])))
    if name == "becomes":
        return "becomes", {"old": legacy_id(f["old_thread"]),
                           "new": legacy_id(f["new_thread"])}, None
    if name == "label":
        target = {"target": legacy_id(f["thread"])}
        if bt2_text(f["label"]) == b"__should_resolve":
            return "should_resolve", target, None
        return "label", target, bt2_text(f["label"])
    if name in ("increase", "counter"):
        return ("counter_increase" if name == "increase" else "counter_value",
                {"thread": legacy_id(f["thread"]), "counter": "0",
                 "value": str(f["amount" if name == "increase" else "value"])},
                bt2_text(f["counter"]))
    if name == "switch":
        return "switch", {"target": legacy_id(f["thread"])}, None
    if name == "gc":
        return "gc", {"duration_ns": str(f["duration_ns"])}, None
    return "signal", {"thread": legacy_id(f["sender"]),
                      "target": legacy_id(f["receiver"])}, None


class BabeltraceReadsOurTraces(unittest.TestCase):
    def assert_same_sequences(self, ours, theirs):
        """Each CTF stream's events the same sequence in both, in time
        order; so the same events merged by time, but for the order of
        events of different streams at one clock value (babeltrace2's own
        merge is not checked: it puts a names stream's event after a ring
        event 1 tick later, in discard mode)."""
        ours, theirs = dump_streams(ours), bt2_streams(theirs)
        self.assertEqual(sorted(ours), sorted(theirs))
        for stream in ours:
            self.assertTrue(ours[stream] == theirs[stream], "stream %r: %s" % (
                stream, first_difference(ours[stream], theirs[stream])))
            ticks = [e[0] for e in ours[stream]]
            self.assertTrue(ticks == sorted(ticks), "stream %r not in time order: %s"
                            % (stream, first_difference(ticks, sorted(ticks))))

    def check_same_events(self, trace, directory):
        ours = mprof_events(trace)
        theirs, discarded_events, discarded_packets = bt2_events(directory)
        self.assert_same_sequences(ours, theirs)
        return ours, discarded_events, discarded_packets

    def test_lossless_trace_every_event_and_field(self):
        with tempfile.TemporaryDirectory() as tmp:
            trace, attempted, discarded = record(tmp, "overwrite", 8 << 20, 2000, 2)
            self.assertEqual(discarded, 0)
            directory = to_ctf(tmp, trace)
            events, lost_events, lost_packets = self.check_same_events(trace, directory)
            names = collections.Counter(e[2] for e in events)
            # Each OS thread defines its two label strings once.
            self.assertEqual(names["string"], 2 * 2)
            self.assertEqual(len(events) - names["string"], attempted)
            self.assertEqual((lost_events, lost_packets), (0, 0))
            self.assertEqual(names["create"], 3 * 2 * 2000)
            self.assertEqual(names["label"], 2 * 2000)
            self.assertEqual(names["counter_name"], 1)
            self.assertIn((names["label"], b"odd \"request\""),
                          [(names["label"], e[4]) for e in events if e[2] == "label"])
            self.assertIn(((1999 << 33),),
                          [e[4:] for e in events if e[2] == "counter_value"])
            cli = subprocess.run(["babeltrace2", directory], capture_output=True, text=True)
            self.assertEqual(cli.returncode, 0)
            self.assertEqual(cli.stderr, "")
            self.assertEqual(len(cli.stdout.splitlines()), len(events))

    def test_legacy_trace_every_event_and_field(self):
        """net.ctf, recorded by OCaml's mirage-profile: babeltrace2 reads the
        converted directory without a word, and every one of its 10078
        events is the event `mprof dump` prints, field for field, in order."""
        with tempfile.TemporaryDirectory() as tmp:
            directory = to_ctf(tmp, NET_CTF)
            theirs, lost_events, lost_packets = bt2_read(directory)
            self.assertEqual((lost_events, lost_packets), (0, 0))
            ours = list(dump(NET_CTF))
            self.assertEqual(len(theirs), 10078)
            self.assertEqual(len(ours), 10078)
            for msg, (ticks, name, kv, text) in zip(theirs, ours):
                fields = msg.event.payload_field
                expected = legacy_as_dump(msg.event.name, fields)
                if "thread" not in expected[1]:
                    kv = {k: v for k, v in kv.items() if k != "thread"}
                self.assertEqual((msg.default_clock_snapshot.value,) + expected,
                                 (ticks, name, kv, text))
            # Thread ids are the legacy values: the first read is of -1.
            first_read = next(m.event.payload_field for m in theirs
                              if m.event.name == "read")
            self.assertEqual(int(first_read["source"]), -1)
            names = collections.Counter(m.event.name for m in theirs)
            self.assertEqual((names["gc"], names["fails"], names["creates"]), (1, 2, 1816))
            cli = subprocess.run(["babeltrace2", directory], capture_output=True, text=True)
            self.assertEqual(cli.returncode, 0)
            self.assertEqual(cli.stderr, "")
            self.assertEqual(len(cli.stdout.splitlines()), 10078)

    def test_legacy_wrapped_ring_is_put_in_order(self):
        """A legacy ring whose 16-bit packet counter wrapped, its packets out
        of time order in the file: the CTF directory has them in order, so
        babeltrace2 reads every event, in time order, with no loss reported."""
        with open(NET_CTF, "rb") as f:
            data = f.read()
        packets, offset = [], 0
        while offset < len(data):
            size = struct.unpack_from("<I", data, offset + 20)[0] // 8
            packets.append(bytearray(data[offset:offset + size]))
            offset += size
        self.assertEqual(len(packets), 4)
        for packet, counter in zip(packets, (0xffff, 0, 1, 2)):
            struct.pack_into("<H", packet, 24, counter)
        with tempfile.TemporaryDirectory() as tmp:
            trace = os.path.join(tmp, "wrapped.ctf")
            with open(trace, "wb") as f:
                f.write(b"".join(bytes(p) for p in packets[1:] + packets[:1]))
            directory = to_ctf(tmp, trace)
            messages, lost_events, lost_packets = bt2_read(directory)
            events = [m.default_clock_snapshot.value for m in messages]
            self.assertEqual((len(events), lost_events, lost_packets), (10078, 0, 0))
            self.assertEqual(events, sorted(events))
            self.assertEqual(events, [t for t, _, _, _ in dump(NET_CTF)])
            cli = subprocess.run(["babeltrace2", directory], capture_output=True, text=True)
            self.assertEqual((cli.returncode, cli.stderr), (0, ""))

    def test_libuv_shim_net_labels(self):
        """A trace of the libuv shim (uv_prog's echo over loopback): every
        event the same in both readers, in order (threads of the C world's
        types); its TCP labels are net_label events, which babeltrace2
        reads with their fields and mprof's reader shows as the same label
        texts (after the increase of the bytes counter they stand for)."""
        self.assertTrue(os.path.exists(UV_PROG), "no %s: libuv tracing was not built;"
                        " apt-get install libuv1-dev (scripts/deps.sh)" % UV_PROG)
        with tempfile.TemporaryDirectory() as tmp:
            trace = os.path.join(tmp, "uv.ctf")
            subprocess.run([MPROF, "record", "-o", trace, "--", UV_PROG, tmp, "all"],
                           check=True, capture_output=True)
            directory = to_ctf(tmp, trace)
            self.check_same_events(trace, directory)
            messages, _, _ = bt2_read(directory)
            net = [m.event.payload_field for m in messages
                   if m.event.name == "net_label"]
            self.assertGreaterEqual(len(net), 5)
            self.assertEqual(sorted(int(f["length"]) for f in net
                                    if int(f["offset"]) == 0)[:1], [5])
            # Labels only: the trace has thread types mprof_events() does
            # not number.
            theirs = bt2_streams(e for e in bt2_events(directory)[0] if e[2] == "label")
            ours = {stream: [(ticks, name, int(kv["target"]), text)
                             for ticks, name, kv, text in events if name == "label"]
                    for stream, events in dump_streams(dump(trace, streams=True)).items()}
            self.assertEqual({s: e for s, e in ours.items() if e}, theirs)
            texts = [e[3] for events in ours.values() for e in events]
            tcp = [t for t in texts if t.startswith(b"net send tcp ")]
            self.assertGreaterEqual(len(tcp), 3)
            self.assertTrue(all(len(t.split()) == 7 for t in tcp), tcp)
            # Its UDP labels are net_hash_label events, the hash in hex.
            udp = [t for t in texts if t.startswith((b"net send udp ", b"net recv udp "))]
            self.assertGreaterEqual(len(udp), 2)
            self.assertTrue(all(re.fullmatch(rb"net (send|recv) udp \S+ \S+ [0-9a-f]{16} \d+", t)
                                for t in udp), udp)
            self.assertEqual(len(udp), len([m for m in messages
                                            if m.event.name == "net_hash_label"]))
            cli = subprocess.run(["babeltrace2", directory], capture_output=True, text=True)
            self.assertEqual((cli.returncode, cli.stderr), (0, ""))
            self.assertIn("net_label", cli.stdout)
            self.assertIn("net_hash_label", cli.stdout)

    def test_story_every_event(self):
        """test/story's trace (conditions: threads created by others,
        create_by): every event the same in both readers, in order."""
        with tempfile.TemporaryDirectory() as tmp:
            trace = os.path.join(tmp, "story.ctf")
            subprocess.run([STORY, trace], check=True)
            events = self.check_same_events(trace, to_ctf(tmp, trace))[0]
            self.assertGreater(sum(e[2] == "create_by" for e in events), 0)

    def test_discard_mode_counts_match(self):
        with tempfile.TemporaryDirectory() as tmp:
            trace, attempted, discarded = record(tmp, "discard", 256 << 10, 20000, 1)
            self.assertGreater(discarded, 0)
            directory = to_ctf(tmp, trace)
            events, lost_events, _ = self.check_same_events(trace, directory)
            strings = sum(1 for e in events if e[2] == "string")
            self.assertEqual(len(events) - strings + discarded, attempted)
            self.assertEqual(lost_events, discarded)

    def test_every_drop_reported(self):
        """More OS threads than ring packets: some threads drop all their
        events (no packet to count them in), the others drop after their
        only packet; babeltrace2 reports each drop once, as mprof does."""
        with tempfile.TemporaryDirectory() as tmp:
            trace, attempted, discarded = record(tmp, "discard", 64 << 10, 200, 20)
            directory = to_ctf(tmp, trace)
            events, lost_events, _ = self.check_same_events(trace, directory)
            strings = sum(1 for e in events if e[2] == "string")
            self.assertEqual(len(events) - strings + discarded, attempted)
            self.assertEqual(lost_events, discarded)

    def test_wrapped_ring_reads_in_order(self):
        """A ring that wrapped: both readers' events agree in order;
        babeltrace2 reads each packet the file holds (its bytes read here),
        and reports lost exactly the packets a stream lacks between its
        oldest and newest; each stream's rounds (its counter values) rise by
        one from event to event but where the file lacks a packet of that
        stream; the newest round survives (the OS thread that ended first
        may be overwritten whole by the other)."""
        with tempfile.TemporaryDirectory() as tmp:
            trace, attempted, _ = record(tmp, "overwrite", 256 << 10, 20000, 2)
            directory = to_ctf(tmp, trace)
            events, _, _ = self.check_same_events(trace, directory)
            self.assertLess(len(events), attempted)
            ring = {}
            messages = bt2_read(directory, ring)[0]
            in_file = ring_packets(trace)
            self.assertEqual({s: r["packets"] for s, r in ring.items()},
                             {s: len(p) for s, p in in_file.items()})
            self.assertEqual({s: sum(n for n, _ in r["lost"]) for s, r in ring.items()},
                             {s: p[-1] - p[0] + 1 - len(p) for s, p in in_file.items()})
            newest = 0
            for stream, seen in ring.items():
                rounds = [(i, int(m.event.payload_field["value"]) >> 33)
                          for i, m in enumerate(messages)
                          if m.event.stream.id == stream and m.event.stream.cls.id == 0
                          and m.event.name == "counter_value"]
                for (at, before), (i, value) in zip(rounds, rounds[1:]):
                    gap = any(at < next_event <= i for _, next_event in seen["lost"])
                    self.assertTrue(value == before + 1 or (gap and value > before),
                                    "stream %d: round %d after %d" % (stream, value, before))
                newest = max([newest] + [value for _, value in rounds])
            self.assertEqual(newest, 19999)

    def test_killed_writer_leaves_a_readable_trace(self):
        import signal
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "t.ctf")
            writer = subprocess.Popen([GEN, path, "overwrite", str(1 << 20),
                                       "100000000", "2"], stdout=subprocess.DEVNULL)
            while not started(path):
                time.sleep(0.01)
            time.sleep(0.5)
            writer.send_signal(signal.SIGKILL)
            writer.wait()
            check = subprocess.run([MPROF, "dump", path], capture_output=True, text=True)
            self.assertEqual(check.returncode, 0, check.stderr)
            self.assertEqual(check.stderr, "")
            directory = to_ctf(tmp, path)
            events, _, _ = self.check_same_events(path, directory)
            self.assertGreater(len(events), 10000)

    def test_live_trace_reads_consistently(self):
        """Snapshots of a trace two OS threads are writing at full speed:
        no torn event, and babeltrace2 reads each one."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "t.ctf")
            writer = subprocess.Popen([GEN, path, "overwrite", str(256 << 10),
                                       "100000000", "2"], stdout=subprocess.DEVNULL)
            try:
                for i in range(30):
                    while not started(path):
                        time.sleep(0.01)
                    check = subprocess.run([MPROF, "dump", path], capture_output=True,
                                           text=True)
                    for line in check.stderr.splitlines():
                        self.assertIn("changed faster than they could be copied", line)
                    self.assertGreater(len(check.stdout.splitlines()), 1000)
                    if i % 10 == 0:
                        directory = os.path.join(tmp, "dir%d" % i)
                        subprocess.run([MPROF, "ctf", path, "-o", directory])
                        cli = subprocess.run(["babeltrace2", directory],
                                             capture_output=True, text=True)
                        self.assertEqual(cli.returncode, 0, cli.stderr[-2000:])
            finally:
                writer.kill()
                writer.wait()


if __name__ == "__main__":
    unittest.main(verbosity=2)
