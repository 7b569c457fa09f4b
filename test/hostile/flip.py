#!/usr/bin/env python3
"""flip.py -- set a u64 field of the n-th ring packet of an mprof trace
(or of every ring packet of stream S), or the trace header's u32 state.

    flip.py TRACE FIELD_OFFSET VALUE [N | stream=S]
    flip.py TRACE state VALUE

FIELD_OFFSET is the field's offset in the packet (docs/FORMAT.md section
2: 72 events_discarded, 80 current_thread); VALUE may be hex (0x...).
"""
import struct
import sys

path, value = sys.argv[1], int(sys.argv[3], 0)
data = bytearray(open(path, "rb").read())
if sys.argv[2] == "state":
    struct.pack_into("<I", data, 96, value)
    open(path, "wb").write(data)
    sys.exit(0)
field = int(sys.argv[2])
which = sys.argv[4] if len(sys.argv) > 4 else "0"
stream = int(which[7:]) if which.startswith("stream=") else None
packet_size, packet_count = struct.unpack_from("<II", data, 24)
(packets_offset,) = struct.unpack_from("<Q", data, 56)
ring, done = 0, 0
for i in range(packet_count):
    at = packets_offset + i * packet_size
    magic, stream_class = struct.unpack_from("<I", data, at)[0], struct.unpack_from("<I", data, at + 20)[0]
    if magic != 0xC1FC1FC1 or stream_class != 0:
        continue
    if stream is None and ring == int(which) or struct.unpack_from("<Q", data, at + 24)[0] == stream:
        struct.pack_into("<Q", data, at + field, value)
        done += 1
    ring += 1
if not done:
    sys.exit(f"flip.py: {path}: no ring packet {which}")
open(path, "wb").write(data)
