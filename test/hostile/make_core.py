#!/usr/bin/env python3
"""make_core.py -- an ELF core dump whose writable PT_LOAD segments hold
the given traces, every segment at the same virtual address (as in a
process that reused one address for a second, bigger trace buffer).

    make_core.py OUT TRACE...

Each trace becomes one segment, in order, its bytes at a file offset
rounded up to 4096.
"""
import struct
import sys

out, traces = sys.argv[1], [open(p, "rb").read() for p in sys.argv[2:]]
EHDR, PHDR, VADDR = 64, 56, 0x7F0000000000
offsets, at = [], EHDR + PHDR * len(traces)
for t in traces:
    at = (at + 4095) & ~4095
    offsets.append(at)
    at += len(t)
ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)  # 64-bit, little-endian
ehdr = ident + struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, EHDR, 0, 0, EHDR,
                           PHDR, len(traces), 0, 0, 0)  # ET_CORE, x86-64
image = bytearray(at)
image[:EHDR] = ehdr
for i, (t, off) in enumerate(zip(traces, offsets)):
    # PT_LOAD, PF_R | PF_W
    struct.pack_into("<IIQQQQQQ", image, EHDR + PHDR * i, 1, 6, off, VADDR, 0,
                     len(t), len(t), 4096)
    image[off:off + len(t)] = t
open(out, "wb").write(image)
