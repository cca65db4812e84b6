"""HTTP/2 frames and HPACK literals written by hand, for the scripts that attack a gateway on purpose
(scripts/attack-network.py, scripts/soak-hostile.py): they need frames no well-behaved library sends."""
import struct


def frame(kind, flags, stream, payload=b""):
    """A frame: 24-bit length, type, flags, 31-bit stream id, payload (RFC 9113 §4.1)."""
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream & 0x7FFFFFFF) + payload


def integer(value, prefix_bits, first=0):
    """An HPACK integer (RFC 7541 §5.1)."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out, value = [first | limit], value - limit
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    return bytes(out + [value])


def literal(name, value, index=False):
    """A literal header with a literal name: without indexing (0x00), or with incremental indexing (0x40)."""
    return bytes([0x40 if index else 0x00]) + integer(len(name), 7) + name + integer(len(value), 7) + value
