#!/usr/bin/env python3
"""Hostile HTTP/2 against a running gateway, to show memory stays bounded.

    scripts/soak-hostile.sh            # builds, starts a plaintext gateway, runs this, prints RSS

Opens ROUNDS x 5 connections to an h2c gateway, each misbehaving one way (oversized frame, header list
over the limit, HPACK bomb, CONTINUATION flood, rapid resets), waits for the gateway to close each, and
prints the gateway's resident memory (VmRSS) every round. Bounded in count and time; loopback only.
"""
import socket
import sys
import time

from http2_wire import frame, literal

port, pid, rounds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])


def request(path=b"/3/device/" + b"ab" * 32):
    return b"\x83\x86" + literal(b":path", path) + literal(b":authority", b"localhost")


ATTACKS = {
    "oversized frame": lambda: frame(1, 4, 1, request()) + frame(0, 1, 1, b"{" * 20000),
    "header list": lambda: frame(1, 0, 1, (request() + literal(b"x-a", b"a" * 15000) + literal(b"x-b", b"b" * 15000))[:16000])
    + frame(9, 4, 1, (request() + literal(b"x-a", b"a" * 15000) + literal(b"x-b", b"b" * 15000))[16000:]),
    "hpack bomb": lambda: frame(1, 5, 1, request() + literal(b"x-bomb", b"z" * 4000, index=True) + b"\xbe" * 200),
    "continuation flood": lambda: frame(1, 0, 1, request()) + b"".join(frame(9, 0, 1, b"") for _ in range(2000)),
    "rapid reset": lambda: b"".join(frame(1, 4, 2 * i + 1, request()) + frame(3, 0, 2 * i + 1, b"\x00\x00\x00\x08") for i in range(1000)),
}


def attack(payload):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, b"") + payload)
        try:
            while sock.recv(65536):
                pass
        except (ConnectionResetError, socket.timeout):
            pass


def rss_kib():
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


start = time.time()
readings = []
for round_number in range(1, rounds + 1):
    for build in ATTACKS.values():
        attack(build())
    readings.append(rss_kib())
    if round_number % max(1, rounds // 10) == 0:
        print(f"round {round_number:5d}: {round_number * len(ATTACKS):6d} hostile connections, RSS {readings[-1] / 1024:7.1f} MiB", flush=True)
    if time.time() - start > 600:
        break
first_tenth = readings[: max(1, len(readings) // 10)]
last_tenth = readings[-max(1, len(readings) // 10):]
growth = (sum(last_tenth) / len(last_tenth) - sum(first_tenth) / len(first_tenth)) / 1024
print(f"RSS after the first tenth {sum(first_tenth) / len(first_tenth) / 1024:.1f} MiB, after the last {sum(last_tenth) / len(last_tenth) / 1024:.1f} MiB: growth {growth:+.1f} MiB over {len(readings) * len(ATTACKS)} connections")
