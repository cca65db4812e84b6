"""What the attacks speak: HTTP/2 frames and a reader of the gateway's, WebSocket frames and a reader, and random
P-256 public keys (for hellos the gateway must verify)."""
import base64
import collections
import os
import secrets
import struct

from http2_wire import frame, literal


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
