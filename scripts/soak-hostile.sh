#!/usr/bin/env bash
# Memory under hostile HTTP/2: starts a plaintext release gateway and runs scripts/soak-hostile.py against it.
#   scripts/soak-hostile.sh [ROUNDS]     (default 400 rounds x 5 attacks)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-400}
port=${PORT:-12198}
(cd "$root" && swift build -c release --product herald >&2)
work=$(mktemp -d /tmp/herald-soak.XXXXXX)
"$root/.build/release/herald" serve --data-dir "$work/data" --plaintext --provider-port "$port" --console-port 0 --channels-port 0 --webpush-port 0 --quiet 2>"$work/herald.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
sleep 1
python3 "$root/scripts/soak-hostile.py" "$port" "$pid" "$rounds"
kill -0 "$pid" && echo "gateway still running after the soak"
