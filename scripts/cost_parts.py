"""The parts of the gateway's cost, shared by scripts/profile-breakdown.py (perf samples) and
scripts/instructions-breakdown.py (callgrind's instruction counts)."""
import re

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


def part_of(name, fallback):
    """The part `name` ("object symbol") belongs to, or `fallback`."""
    return next((label for label, pattern in PARTS if re.search(pattern, name)), fallback)
