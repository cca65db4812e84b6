#!/usr/bin/env python3
"""Prints how long the disk under DIR takes to make a 4 KiB append durable (write + fdatasync), as SQLite's
commit with synchronous=FULL does, paced at up to RATE syncs/s (default 1,000) for SECONDS (default 10). Every
notification's 200 waits for one such sync, so these figures are the floor under the gateway's latency:

- p50 / p99 of one sync;
- the stalls: syncs of 20 ms or more, and the share of the run they covered. Requests arriving during a stall
  all wait it out, so when stalls cover more than 1% of the time, no latency p99 can be under 20 ms. On a VM
  they come and go (the host flushing its own cache): one stall of 100 ms every 10 s already costs 1%.

Run beside a load (a lower RATE, so that it barely adds to it), it tells whether the disk stalled during that load.

usage: scripts/disk-sync.py DIR [SECONDS] [RATE] [LABEL]
"""
import os
import sys
import tempfile
import time

directory = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10
rate = float(sys.argv[3]) if len(sys.argv) > 3 else 1000
label = sys.argv[4] if len(sys.argv) > 4 else "disk sync"
fd, path = tempfile.mkstemp(dir=directory, prefix="disk-sync-")
times = []
try:
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        os.write(fd, b"\0" * 4096)
        before = time.perf_counter()
        os.fdatasync(fd)
        after = time.perf_counter()
        times.append((after - before) * 1000)
        pause = start + len(times) / rate - after
        if pause > 0:
            time.sleep(pause)
    elapsed = time.perf_counter() - start
finally:
    os.close(fd)
    os.unlink(path)
stalls = [t for t in times if t >= 20]
times.sort()
pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]
print(f"{label:15s}: 4 KiB write + fdatasync p50 {pick(0.5):.2f} ms, p99 {pick(0.99):.2f} ms, max {times[-1]:.1f} ms"
      f" over {len(times)} in {elapsed:.0f} s; {len(stalls)} stalls >= 20 ms covering {sum(stalls) / elapsed / 10:.2f}% of the time"
      " (the floor under a durable commit's latency)")
