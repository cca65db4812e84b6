#!/usr/bin/env bash
# The console's delivery log over a large store: lookups by id, by device-token prefix and by page.
#
#   scripts/bench-log.sh                                   # 1,000,000 notifications over 1,000 device tokens
#   NOTIFICATIONS=1000000 TOKENS=1000000 scripts/bench-log.sh   # one notification per token: short prefixes cover many
#
# Builds the release herald-bench and runs `herald-bench log`, which
# 1. fills a SQLite store in a temporary directory with NOTIFICATIONS notifications round-robin over TOKENS random
#    tokens, in committed batches of 1,000 as the gateway commits them (synchronous=FULL), and prints the rate;
# 2. times LOOKUPS lookups of each kind at random notifications of the log, in the store: by apns-id, by
#    apns-unique-id, by whole token, by 4-, 2- and 1-digit token prefix, a deep page of a prefix, the first page and a
#    deep page of everything (each a page of 50, read as 51 to know whether more follow);
# 3. starts a gateway in the same process on that store and times GET /v1/notifications the same ways (HTTP/1.1 on
#    loopback, JSON with each notification's timeline).
# Prints p50, p99 and max in milliseconds. Target: a lookup by id under 50 ms.
set -euo pipefail

NOTIFICATIONS=${NOTIFICATIONS:-1000000}
TOKENS=${TOKENS:-1000}
LOOKUPS=${LOOKUPS:-1000}

root=$(cd "$(dirname "$0")/.." && pwd)
(cd "$root" && swift build -c release --product herald-bench >&2)
"$root/.build/release/herald-bench" log --notifications "$NOTIFICATIONS" --tokens "$TOKENS" --lookups "$LOOKUPS"
