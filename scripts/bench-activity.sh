#!/usr/bin/env bash
# A provider's Live Activity update → the activity redrawn on the device's notification center page, in a real
# headless Chromium: gateway (durable commit), device link, the daemon's activity store, the page's WebSocket and DOM.
#
#   scripts/bench-activity.sh                       # 200 updates, 20 ms apart
#   COUNT=500 INTERVAL_MS=10 scripts/bench-activity.sh
#   HERALD_BIN=.build/debug scripts/bench-activity.sh   # a build of your own (default: builds release)
#   WIDGET=1 scripts/bench-activity.sh              # the delivery example's widget extension draws each update
#
# Goal: p99 < 50 ms. Needs chromium, chromium-driver, python3-selenium (scripts/test.sh installs them) and
# python3-httpx with python3-h2 (installed here when missing) for one HTTP/2 connection from Python.
set -euo pipefail

COUNT=${COUNT:-200}
INTERVAL_MS=${INTERVAL_MS:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
if ! /usr/bin/python3 -c 'import httpx, h2' 2>/dev/null; then
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-httpx python3-h2 >/dev/null
fi
if [ -z "${HERALD_BIN:-}" ]; then
  (cd "$root" && swift build -c release --product herald >&2)
  if [ -n "${WIDGET:-}" ]; then for product in DeliveryApp DeliveryWidget; do (cd "$root" && swift build -c release --product "$product" >&2); done; fi
  HERALD_BIN="$root/.build/release"
fi
echo "machine: $(nproc) cores; herald from $HERALD_BIN"
/usr/bin/python3 "$root/scripts/bench-activity.py" "$HERALD_BIN/herald" "$COUNT" "$INTERVAL_MS" ${WIDGET:+widget}
