#!/usr/bin/python3
"""free_port.py -- print a port of 127.0.0.1 that is free for both TCP and
UDP (for the servers of test_real.sh and bench/dns)."""
import socket

while True:
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    port = tcp.getsockname()[1]
    try:
        socket.socket(type=socket.SOCK_DGRAM).bind(("127.0.0.1", port))
        break
    except OSError:
        pass
print(port)
