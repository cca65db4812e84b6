#!/usr/bin/env python3
"""Where the gateway's CPU goes, from a perf profile and syscall counts of one load (scripts/bench-gateway.sh with
PROFILE=1 runs it):

    scripts/profile-breakdown.py PERF_DATA SYSCALL_COUNTS NOTIFICATIONS CPU_MICROSECONDS_PER_NOTIFICATION

PERF_DATA is `perf record` of every thread of `herald serve`; SYSCALL_COUNTS is `perf stat -x,` of syscall tracepoints
over a second load of NOTIFICATIONS requests. Prints each part's share of the samples and its µs per notification, the
functions that cost most, and the system calls per notification.
"""
import re, subprocess, sys
from collections import defaultdict

from cost_parts import part_of

perf_data, syscall_counts, notifications, cpu_per_notification = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])


def samples():
    report = subprocess.run(
        ["perf", "report", "-i", perf_data, "--stdio", "--no-children", "-g", "none", "--sort", "dso,sym", "-F",
         "overhead,dso,sym", "--percent-limit", "0"],
        check=True, capture_output=True, text=True).stdout
    for line in report.splitlines():
        match = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)", line)
        if match:
            yield float(match.group(1)), match.group(2), match.group(3).strip()


parts = defaultdict(float)
top = []
for share, dso, symbol in samples():
    name = f"{'[kernel]' if dso.startswith('[kernel') else dso} {symbol}"
    part = part_of(name, f"other ({dso})")
    parts[part] += share
    top.append((share, part, f"{dso}: {symbol}"))

print(f"CPU per notification: {cpu_per_notification:.1f} µs (user + system, every thread), taken apart by perf's samples:")
print(f"  {'part':<50} {'share':>7} {'µs/notif':>9}")
for part, share in sorted(parts.items(), key=lambda item: -item[1]):
    print(f"  {part:<50} {share:6.1f}% {share / 100 * cpu_per_notification:9.2f}")
print("the 25 functions with most samples:")
for share, part, name in sorted(top, reverse=True)[:25]:
    print(f"  {share:5.2f}%  {name[:110]}   [{part}]")


def nearest_herald_frames():
    """Each sample's innermost frame in Herald's own modules (perf's call chains): what our code costs, the library
    calls it makes included."""
    script = subprocess.run(["perf", "script", "-i", perf_data, "-F", "ip,sym"], check=True, capture_output=True, text=True).stdout
    owners = defaultdict(int)
    total = 0
    for sample in script.split("\n\n"):
        frames = [line.strip().split(" ", 1)[-1] for line in sample.splitlines() if line.strip()]
        if not frames:
            continue
        total += 1
        owner = next((frame for frame in frames if re.search(r"\d+Herald(Gateway|Wire|Store)", frame)), None)
        if owner is None:
            outside = "SQLite and GRDB" if any("sqlite" in f or "GRDB" in f for f in frames) else "NIO" if any("NIO" in f for f in frames) else "elsewhere"
            owner = f"(no Herald frame: {outside})"
        owners[owner] += 1
    top = sorted(owners.items(), key=lambda item: -item[1])[:25]
    names = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(name for name, _ in top),
                           capture_output=True, text=True).stdout.splitlines()
    return [(count / total * 100, name) for (_, count), name in zip(top, names)]


print("by the innermost Herald function on the stack (the library calls it makes included):")
for share, name in nearest_herald_frames():
    print(f"  {share:5.1f}%  {name[:120]}")

print(f"system calls per notification (perf stat of syscall tracepoints over {notifications:,} notifications):")
for line in open(syscall_counts):
    fields = line.strip().split(",")
    if len(fields) > 2 and fields[0].replace(".", "").isdigit():
        count, event = float(fields[0]), fields[2]
        name = event.split("sys_enter_")[-1] if "sys_enter_" in event else "all system calls"
        if count:
            print(f"  {name:<20} {count / notifications:8.3f}")
