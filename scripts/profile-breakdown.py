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

perf_data, syscall_counts, notifications, cpu_per_notification = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])

# The first pattern that matches a sample's "dso symbol" names its part; order matters (specific before general).
PARTS = [
    ("kernel: network (TCP, sockets)", r"\[kernel\S*\] .*(tcp_|inet_|sock_|skb|ip_|__dev_|net_|netif|loopback|__sys_send|__sys_recv|sendmsg|recvmsg)"),
    ("kernel: disk (ext4, block, fdatasync)", r"\[kernel\S*\] .*(ext4|jbd2|blk_|bio_|file_write|generic_perform_write|filemap|iomap|fdatasync|vfs_fsync|virtblk)"),
    ("kernel: scheduling, futex, epoll", r"\[kernel\S*\] .*(schedule|futex|ep_|epoll|wake|pick_next|enqueue|dequeue|__switch_to|finish_task_switch|try_to_wake)"),
    ("kernel: other (syscall entry, copies, memory)", r"\[kernel\S*\]"),
    # Dynamic exclusivity checks keep the accesses in progress in a thread-local set (hence __tls_get_addr).
    ("exclusivity checks (beginAccess, thread-local)", r"(swift_beginAccess|swift_endAccess|AccessSet|__tls_get_addr)"),
    ("TLS (BoringSSL: AES-GCM, records)", r"(aes|gcm|GCM|ghash|ssl|SSL|TLS|CRYPTO_|BORINGSSL|bssl|NIOSSL|chacha|poly1305)"),
    ("SQLite", r"(sqlite|GRDB)"),
    ("HPACK (header compression)", r"(HPACK|Huffman|huffman)"),
    ("HTTP/2 framing and streams", r"(NIOHTTP2|HTTP2)"),
    ("provider token (ES256, cache)", r"(P256|ecdsa|ECDSA|ec_|EC_|ProviderToken|TokenVerifier|ExpiringCache)"),
    ("JSON (payload checks, parsing)", r"(JSON|Payload|JSONSerialization|UTF8|utf8|Unicode)"),
    ("metrics", r"(Prometheus|Metrics|Counter|Histogram|Gauge)"),
    ("logging", r"(Logging|Logger|LogHandler)"),
    ("allocation (malloc, free, Swift objects)", r"(malloc|free|_int_|swift_allocObject|swift_deallocObject|swift_slowAlloc|swift_slowDealloc|calloc|realloc|tcache|arena)"),
    ("reference counting (retain, release)", r"(swift_retain|swift_release|swift_bridgeObject|swift_unknownObject|RefCount|swift_weak)"),
    ("Swift runtime (generics, casts, metadata)", r"(swift_|\$ss|libswiftCore|__swift)"),
    ("Foundation (Data, Date, UUID, String bridging)", r"(Foundation|libFoundation|CoreFoundation|CF[A-Z])"),
    ("the writer and the commit path", r"(NotificationWriter|StoredNotification|SQLiteStore|insertNotifications)"),
    ("header checks and request rules", r"(RequestHead|RequestHeaderBlock|ProviderRequest|Rejection|DeviceToken|APNsID|Directory|RateLimiter)"),
    ("the provider connection", r"(ProviderConnection|ProviderServer|ProviderResponse)"),
    ("NIO (event loop, ByteBuffer, channel pipeline)", r"(NIO|ByteBuffer|EventLoop|ChannelPipeline|ChannelHandler)"),
    ("libc (memcpy, string, other)", r"(libc|memcpy|memmove|memset|memcmp|strlen|__GI_|__memcpy)"),
]


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
    part = next((label for label, pattern in PARTS if re.search(pattern, name)), f"other ({dso})")
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
