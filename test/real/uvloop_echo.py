"""uvloop_echo.py PORTS_FILE -- asyncio under uvloop (python3-uvloop: a
module that Python dlopens RTLD_LOCAL, and libuv with it), for
test_real.sh: a 20 ms asyncio.sleep, then a TCP server and a client on
127.0.0.1 in one loop; the client sends "hello uvloop", the server answers
it in capitals.  Writes "SERVER_PORT CLIENT_PORT" to PORTS_FILE; prints
only what does not vary."""
import asyncio
import sys

import uvloop


async def shout(reader, writer):
    writer.write((await reader.read(100)).upper())
    await writer.drain()
    writer.close()


async def main(ports_file):
    await asyncio.sleep(0.02)
    print("slept")
    server = await asyncio.start_server(shout, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    with open(ports_file, "w") as ports:
        ports.write(f"{port} {writer.get_extra_info('sockname')[1]}\n")
    writer.write(b"hello uvloop")
    print("client got:", (await reader.read(100)).decode())
    writer.close()
    server.close()
    await server.wait_closed()
    print("loop:", type(asyncio.get_running_loop()).__module__)


uvloop.install()
asyncio.run(main(sys.argv[1]))
