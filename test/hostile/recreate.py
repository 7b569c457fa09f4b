#!/usr/bin/env python3
"""recreate.py -- re-create a trace file over and over, as a program that
restarts does: truncated to nothing, then written again, in turns as a
stopped trace and as one still being recorded (state 1), until SECONDS
have passed.

    recreate.py SOURCE PATH SECONDS
"""
import os
import struct
import sys
import time

stopped = open(sys.argv[1], "rb").read()
recording = bytearray(stopped)
struct.pack_into("<I", recording, 96, 1)
path, end = sys.argv[2], time.time() + float(sys.argv[3])
turn = 0
while time.time() < end:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    time.sleep(0.0005)
    os.write(fd, recording if turn % 2 else stopped)
    os.close(fd)
    turn += 1
    time.sleep(0.002)
