#!/usr/bin/env python3
"""Prints how long the disk under DIR takes to make a 4 KiB append durable (write + fdatasync), as SQLite's
commit with synchronous=FULL does. Every notification's 200 waits for one such sync, so its p99 is the floor
under the gateway's latency p99: read the benchmarks' figures next to it.

usage: scripts/disk-sync.py DIR [COUNT]
"""
import os
import sys
import tempfile
import time

directory = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
fd, path = tempfile.mkstemp(dir=directory, prefix="disk-sync-")
try:
    times = []
    for _ in range(count):
        os.write(fd, b"\0" * 4096)
        started = time.perf_counter()
        os.fdatasync(fd)
        times.append((time.perf_counter() - started) * 1000)
finally:
    os.close(fd)
    os.unlink(path)
times.sort()
pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]
print(f"disk sync      : 4 KiB write + fdatasync p50 {pick(0.5):.2f} ms, p99 {pick(0.99):.2f} ms, max {times[-1]:.2f} ms over {count}"
      " (the floor under a durable commit's p99)")
