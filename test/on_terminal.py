#!/usr/bin/python3
"""on_terminal.py -- run a command with its stderr on a terminal (Python's
pty module) and its stdout on a pipe; print all the terminal received.

  on_terminal.py [--wait S | --first-byte] COMMAND...

--wait S: read stdout only after S seconds (a slow reader: the command's
writes block); --first-byte: read one byte of stdout, then close it (the
command is told EPIPE or killed by SIGPIPE when it writes on).  Otherwise
stdout is read as it comes.  Exits with the command's status, a signal
as 128 + its number.
"""
import os
import pty
import subprocess
import sys
import threading
import time

args = sys.argv[1:]
wait_s, first_byte = 0.0, False
if args[0] == "--wait":
    wait_s, args = float(args[1]), args[2:]
elif args[0] == "--first-byte":
    first_byte, args = True, args[1:]

master, slave = pty.openpty()
command = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave)
os.close(slave)
received = []


def collect():
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: every writer of the terminal is gone
            return
        if not chunk:
            return
        received.append(chunk)


reader = threading.Thread(target=collect)
reader.start()
time.sleep(wait_s)
if first_byte:
    command.stdout.read(1)
    command.stdout.close()
else:
    command.stdout.read()
status = command.wait()
reader.join()
sys.stdout.buffer.write(b"".join(received))
sys.exit(128 - status if status < 0 else status)
