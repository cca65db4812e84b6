#!/usr/bin/env bash
# A full disk, as a user sees it: a release `herald serve` whose data dir is a tmpfs of a few MiB; notifications
# until it is full, then more (counting 200/503/500), space freed, sending again; every 200 must be in the store.
# Needs root (mount). Usage: scripts/fault-disk.sh [SIZE, default 4m]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-4m}
root=$(mktemp -d /tmp/herald-fault-disk.XXXXXX)
data=$root/data
mkdir -p "$data"
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
    umount -l "$data" 2>/dev/null || true
    rm -rf "$root"
}
trap cleanup EXIT
mount -t tmpfs -o "size=$size" tmpfs "$data" || { echo "fault-disk: cannot mount a tmpfs (needs root)" >&2; exit 1; }

swift build -c release --product herald >/dev/null
herald=.build/release/herald
topic=com.example.app
"$herald" keys create --data-dir "$data" --team-id TEAM123456 --key-id KEY1234567 --topic $topic --out "$root/key.p8" >/dev/null
token=$("$herald" tokens issue --data-dir "$data" --topic $topic)
python3 -c 'import json; print(json.dumps({"aps": {"alert": "x" * 3800}}))' >"$root/payload.json"

"$herald" serve --data-dir "$data" --plaintext --host 127.0.0.1 --provider-port 22197 --device-port 25223 --console-port 28080 --channels-port 0 --webpush-port 0 \
    >"$root/serve.log" 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf http://127.0.0.1:28080/healthz >/dev/null && break; sleep 0.1; done

accepted=0
# Sends $1 notifications one at a time, no retries; prints the counts of each answer and adds up the 200s.
send() {
    local out
    out=$("$herald" send --gateway http://127.0.0.1:22197 --p8 "$root/key.p8" --key-id KEY1234567 --team-id TEAM123456 \
        --topic $topic --device "$token" --count "$1" --concurrency 1 --connections 1 --attempts 1 "$root/payload.json" 2>/dev/null || true)
    local ok=$(awk '/^200 accepted/ {print $NF}' <<<"$out")
    accepted=$((accepted + ${ok:-0}))
    printf '  200: %-4s 503: %-4s 500: %-4s (store %s, its log %s bytes)\n' "${ok:-0}" "$(awk '/^503 / {s += $NF} END {print s + 0}' <<<"$out")" \
        "$(awk '/^500 / {s += $NF} END {print s + 0}' <<<"$out")" "$(stat -c %s "$data/herald.sqlite")" "$(stat -c %s "$data/herald.sqlite-wal" 2>/dev/null || echo 0)"
}

echo "1. $size data dir, 100 notifications of 3.8 KB:"; send 100
dd if=/dev/zero of="$data/filler" bs=64k 2>/dev/null || true
echo "2. disk filled ($(df --output=avail -B1 "$data" | tail -1) bytes free), 300 more:"; send 300
echo "   /healthz: $(curl -s http://127.0.0.1:28080/healthz)"
rm -f "$data/filler"
echo "3. space freed, 100 more:"; send 100

kill "$server"; wait "$server" || true; server=
stored=$(sqlite3 "$data/herald.sqlite" "SELECT count(*) FROM notification")
echo "answered 200: $accepted; in the store after shutdown: $stored"
echo "log lines: $(grep -c 'commits failing' "$root/serve.log") 'failing', $(grep -c 'commits work again' "$root/serve.log") 'work again', $(wc -l <"$root/serve.log") in all"
grep -E 'failing|work again' "$root/serve.log" | cut -c1-200 || true
[ "$accepted" = "$stored" ] || { echo "FAIL: a notification answered 200 is missing" >&2; exit 1; }
