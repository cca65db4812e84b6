#!/usr/bin/env bash
# Content extension: from "expand" to the extension's first drawn view, process start included, over COUNT expansions
# one at a time (issue 27's goal: p99 < 300 ms on this machine).
#
#   scripts/bench-content.sh               # 100 expansions of the podcast example's extension
#   COUNT=500 scripts/bench-content.sh
#
# Two ways, both printed: the host alone, and through the notification center page (`herald device --ui-port`): a
# WebSocket client on loopback sends the page's `expand` and waits for its `expanded` message with the first view.
#
# Builds herald-bench and the podcast example's content extension in release, then `herald-bench content` starts the
# extension the way the device daemon hosts it (HostedContentExtension: its own process group, the notification on
# its standard input, its messages on descriptor 3) with a notification carrying a PNG cover, waits for its first
# view, checks what it drew, closes it, and prints p50/p90/p99/max.
set -euo pipefail

COUNT=${COUNT:-100}
root=$(cd "$(dirname "$0")/.." && pwd)
(cd "$root" && swift build -c release --product herald-bench >&2 && swift build -c release --product PodcastContentExtension >&2)
cover=$(mktemp --suffix=.png)
trap 'rm -f "$cover"' EXIT
# A 256 × 256 PNG of noise (about 200 KB): the size of a podcast cover.
python3 - "$cover" <<'PY'
import os, struct, sys, zlib
def chunk(kind, data): return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
rows = b"".join(b"\0" + os.urandom(256 * 3) for _ in range(256))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 256, 256, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
"$root/.build/release/herald-bench" content --executable "$root/.build/release/PodcastContentExtension" --count "$COUNT" --image "$cover"
"$root/.build/release/herald-bench" content --executable "$root/.build/release/PodcastContentExtension" --count "$COUNT" --image "$cover" --through-page
