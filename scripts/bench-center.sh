#!/usr/bin/env bash
# The notification center page with many notifications listed: what one change costs the daemon's page in a real
# headless Chromium, with LISTED notifications already delivered (issue 38: 1,000 must be as quick as 10).
#
#   scripts/bench-center.sh                     # LISTED=10, then LISTED=1000; 20 changes each
#   LISTED="100 3000" CHANGES=50 scripts/bench-center.sh
#   HERALD_BIN=.build/debug scripts/bench-center.sh   # a build of your own (default: builds release)
#
# For each LISTED it starts `herald serve`, `herald device --ui-port 0` with one app, sends LISTED notifications
# (herald send --count), opens the page in Chromium and then sends CHANGES more, one at a time. It prints, for the
# whole list the page gets when it connects (what every change cost before the page was sent changes alone) and for
# each change (a `presented` message): the message's bytes, the time from its arrival to the page's list changed
# (the handler, DOM included) and to the next frame drawn (layout and paint), median and worst.
# Needs chromium, chromium-driver and python3-selenium (scripts/test.sh installs them).
set -euo pipefail

LISTED=${LISTED:-"10 1000"}
CHANGES=${CHANGES:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${HERALD_BIN:-}" ]; then
  (cd "$root" && swift build -c release --product herald >&2)
  HERALD_BIN="$root/.build/release"
fi
echo "machine: $(nproc) cores; $CHANGES changes per run; herald from $HERALD_BIN"
for listed in $LISTED; do
  /usr/bin/python3 "$root/scripts/bench-center.py" "$HERALD_BIN/herald" "$listed" "$CHANGES"
done
