#!/usr/bin/python3
"""make_damaged.py -- generate the damaged-trace corpus in this directory,
once, from a real trace (recorded by test/trace_gen).  Committed with its
output; test/rel/damaged.sh reads it.

    make_damaged.py BUILD_DIR

Each case is one file, NAME.ctf, and one line of MANIFEST:

    NAME CHECK_EXIT MIN_EVENTS WHAT

CHECK_EXIT is the exit code `mprof check` must give (0 good, 1 damaged with
good parts, 3 nothing usable; "0|1": either, for a flipped bit that may land
where no check can see it), MIN_EVENTS the events it must still find:
those of the undamaged part, counted by `mprof check` on the original trace
with the damaged packets cleanly removed (their magic zeroed: never written).
"""
import os
import random
import struct
import subprocess
import sys

BUILD = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
MPROF = os.path.join(BUILD, "mprof")
TH_MAGIC, TH_PACKET_SIZE, TH_PACKET_COUNT = 0, 24, 28
TH_METADATA_SIZE, TH_SLOTS, TH_PACKETS, TH_STATE = 36, 48, 56, 96
PH_STREAM_ID, PH_CONTENT, PH_SEQ = 20, 48, 64
HEADER = 92
rng = random.Random(7)
manifest = []


def events(data):
    path = os.path.join(HERE, ".oracle.ctf")
    with open(path, "wb") as f:
        f.write(data)
    out = subprocess.run([MPROF, "check", path], capture_output=True, text=True).stdout
    os.unlink(path)
    return int(out.split(", ")[1].split()[0]) if ", " in out else 0


def u32(data, at):
    return struct.unpack_from("<I", data, at)[0]


def u64(data, at):
    return struct.unpack_from("<Q", data, at)[0]


def put(data, at, fmt, value):
    struct.pack_into(fmt, data, at, value)


def case(name, data, check_exit, removed, what):
    """removed: packet indexes the damage makes unusable (at worst)."""
    clean = bytearray(BASE)
    for i in removed:
        put(clean, packet(i), "<I", 0)
    with open(os.path.join(HERE, name + ".ctf"), "wb") as f:
        f.write(data)
    minimum = events(bytes(clean)) if check_exit != 3 else 0
    manifest.append(f"{name} {check_exit} {minimum} {what}")


def packet(i):
    return PACKETS + i * PACKET_SIZE


tmp = os.path.join(HERE, ".base.ctf")
subprocess.run([os.path.join(BUILD, "test", "trace_gen"), tmp, "discard", "65536",
                "60", "2"], check=True, capture_output=True)
BASE = bytearray(open(tmp, "rb").read())
os.unlink(tmp)
PACKET_SIZE, COUNT = u32(BASE, TH_PACKET_SIZE), u32(BASE, TH_PACKET_COUNT)
PACKETS = u64(BASE, TH_PACKETS)
USED = [i for i in range(COUNT) if u32(BASE, packet(i)) != 0]
RING = [i for i in USED if u32(BASE, packet(i) + PH_STREAM_ID) == 0]
NAMES = [i for i in USED if u32(BASE, packet(i) + PH_STREAM_ID) == 1]
ALL = list(range(COUNT))
case("original", bytearray(BASE), 0, [], "the undamaged trace")

# Truncated at every packet boundary, and inside the first event and
# mid-content of each used packet.
for k in range(COUNT + 1):
    if k not in USED and k - 1 not in USED and k != COUNT:
        continue  # between two empty packets: nothing new
    code = 0 if k == COUNT else 1
    case(f"cut-at-packet-{k}", BASE[:packet(k)], code, ALL[k:],
         f"cut at the start of packet {k}")
for i in USED:
    content = u64(BASE, packet(i) + PH_CONTENT) // 8
    for at, what in ((HEADER + 3, "inside its first event"),
                     (content // 2 + 1, "mid-content")):
        case(f"cut-in-packet-{i}-at-{at}", BASE[:packet(i) + at], 1, ALL[i:],
             f"cut {what} of packet {i}")
case("cut-in-header", BASE[:64], 3, ALL, "cut inside the trace header")
case("cut-in-metadata", BASE[:600], 3, ALL, "cut inside the metadata")
case("empty", bytearray(), 3, ALL, "an empty file")

# Flipped bits: in packet headers and in event bytes.
for n in range(12):
    i = rng.choice(USED)
    content = u64(BASE, packet(i) + PH_CONTENT) // 8
    at = rng.randrange(0, HEADER) if n < 6 else rng.randrange(HEADER, content)
    bit = rng.randrange(8)
    data = bytearray(BASE)
    data[packet(i) + at] ^= 1 << bit
    code = "0|1"  # a flip in a timestamp or a value is not detectable
    case(f"flip-{n}-packet-{i}-byte-{at}-bit-{bit}", data, code, [i],
         f"bit {bit} of byte {at} of packet {i} flipped")

# Magic, sizes, ids.
data = bytearray(BASE); data[0:8] = b"MPROFCTX"
case("wrong-trace-magic", data, 3, ALL, "trace magic MPROFCTX")
data = bytearray(BASE); put(data, packet(RING[0]), "<I", 0xDEADBEEF)
case("wrong-packet-magic", data, 1, [RING[0]], "packet magic 0xdeadbeef")
data = bytearray(BASE); put(data, packet(RING[0]) + PH_CONTENT, "<Q", 1 << 62)
case("huge-content-size", data, 1, [RING[0]], "content_size 2^62 bits")
data = bytearray(BASE); put(data, packet(RING[0]) + 56, "<Q", 1 << 40)
case("huge-packet-size-in-packet", data, 1, [RING[0]], "packet_size 2^40 bits")
data = bytearray(BASE); put(data, TH_PACKET_SIZE, "<I", 1 << 31)
case("huge-packet-size", data, 3, ALL, "trace packet_size 2^31")
data = bytearray(BASE); put(data, TH_PACKET_COUNT, "<I", 0xFFFFFFFF)
case("huge-packet-count", data, 1, [], "packet_count 2^32-1")
data = bytearray(BASE); put(data, TH_METADATA_SIZE, "<I", 0xFFFFFFF0)
case("huge-metadata-size", data, 3, ALL, "metadata_size 2^32-16")
data = bytearray(BASE); put(data, TH_SLOTS, "<Q", 1 << 60); put(data, TH_STATE, "<I", 1)
case("huge-slots-offset-live", data, 0, [], "slots_offset 2^60 in a live trace")
data = bytearray(BASE); put(data, TH_PACKETS, "<Q", (1 << 64) - 8)
case("huge-packets-offset", data, 1, ALL, "packets_offset 2^64-8")
data = bytearray(BASE); put(data, TH_PACKET_SIZE, "<I", 0)
case("zero-packet-size", data, 3, ALL, "trace packet_size 0")
data = bytearray(BASE); put(data, packet(RING[0]) + PH_CONTENT, "<Q", 0)
case("zero-content-size", data, 1, [RING[0]], "content_size 0")
data = bytearray(BASE); put(data, packet(RING[0]) + 56, "<Q", 0)
case("zero-size-packet", data, 1, [RING[0]], "packet_size 0 in a packet header")
data = bytearray(BASE); put(data, packet(RING[0]) + PH_STREAM_ID, "<I", 7)
case("stream-id-out-of-range", data, 1, [RING[0]], "stream_id 7")
data = bytearray(BASE)
first = packet(RING[0]) + HEADER
put(data, first, "<I", (u32(data, first) & ~31) | 29)
case("event-id-out-of-range", data, 1, [RING[0]], "event id 29 (none such)")

# A string without its NUL: the last NUL of a names packet becomes 'X'.
data = bytearray(BASE)
i = NAMES[0]
end = packet(i) + u64(BASE, packet(i) + PH_CONTENT) // 8
nul = data.rindex(0, packet(i) + HEADER, end)
data[nul] = ord("X")
case("string-without-nul", data, 1, [i], f"last string of packet {i} lost its NUL")

# Packets out of order: two packets of one stream swapped in the file
# (order comes from packet_seq_num: nothing is lost), then a duplicate.
a, b = RING[0], next(i for i in RING[1:] if u64(BASE, packet(i) + 24) == u64(BASE, packet(RING[0]) + 24))
data = bytearray(BASE)
data[packet(a):packet(a) + PACKET_SIZE], data[packet(b):packet(b) + PACKET_SIZE] = \
    BASE[packet(b):packet(b) + PACKET_SIZE], BASE[packet(a):packet(a) + PACKET_SIZE]
case("packets-swapped", data, 0, [], f"packets {a} and {b} of one stream swapped")
data = bytearray(BASE); put(data, packet(b) + PH_SEQ, "<Q", u64(BASE, packet(a) + PH_SEQ))
case("duplicate-seq-num", data, 1, [b], f"packet {b} has packet {a}'s packet_seq_num")

# A writer killed while setting up a packet (state recording, INIT set):
# that packet reads as empty, silently.
data = bytearray(BASE); put(data, TH_STATE, "<I", 1)
slots = u64(BASE, TH_SLOTS)
put(data, slots + 8 * RING[-1], "<Q", (5 << 2) | 3)
case("killed-during-packet-setup", data, 0, [RING[-1]],
     f"state recording, packet {RING[-1]} INIT (header being written)")

with open(os.path.join(HERE, "MANIFEST"), "w") as f:
    f.write("# NAME CHECK_EXIT MIN_EVENTS WHAT (written by make_damaged.py)\n")
    f.write("\n".join(manifest) + "\n")
print(f"{len(manifest)} cases")
