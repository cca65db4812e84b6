#!/usr/bin/env bash
# Web Push throughput against the APNs path on the same gateway, and push → service worker latency in Firefox.
#
#   scripts/bench-webpush.sh                 # defaults below
#   HERALD_BIN=/tmp/a scripts/bench-webpush.sh   # the herald in /tmp/a, built by you: nothing is built
#   FIREFOX=0 scripts/bench-webpush.sh       # without the Firefox part
#
# 1. Builds the release `herald`, makes a provider key and 50 device tokens, a VAPID key and 50 virtual Web Push
#    subscriptions made with it, and starts `herald serve` (TLS, SQLite, defaults).
# 2. h2load: 10 connections x 100 streams over HTTP/2, round-robin over the 50 tokens / subscriptions, alternating
#    ROUNDS times: APNs notifications with a 1 KB JSON payload, and web pushes with a 1 KB message encrypted
#    (aes128gcm, 1,047 bytes on the wire) and one VAPID JWT (its signature checked once, then from the cache). Each
#    path's median rate and the gateway's CPU per message; the ratio (goal: web push >= 0.8 x APNs).
#    Checks that the store holds every message answered 201 or 200.
# 3. FIREFOX=1 (default when firefox-esr is installed): push → service worker p50 / p99 in headless Firefox ESR,
#    one push at a time (Tests/Browser/firefox_push_test.py --latency), the gateway in plaintext.
set -euo pipefail

REQUESTS=${REQUESTS:-200000}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-10}
STREAMS=${STREAMS:-100}
TOKENS=${TOKENS:-50}
PUSHES=${PUSHES:-200}

source "$(dirname "$0")/lib.sh"
command -v h2load >/dev/null || { apt-get update -qq && apt-get install -y -qq nghttp2-client >/dev/null; }
if [ -n "${HERALD_BIN:-}" ]; then
  herald="$HERALD_BIN/herald"
else
  (cd "$root" && swift build -c release --product herald >&2)
  herald="$root/.build/release/herald"
fi
start_work bench-webpush
provider_port=$(free_port) push_port=$(free_port) console_port=$(free_port)
data="$work/data"

"$herald" keys create --data-dir "$data" --team-id BENCHTEAM1 --key-id BENCHKEY01 --out "$work/key.p8" >/dev/null
"$herald" tokens issue --data-dir "$data" --topic com.example.bench --count "$TOKENS" |
  sed "s|^|https://localhost:$provider_port/3/device/|" >"$work/apns-uris"
jwt=$("$herald" jwt --p8 "$work/key.p8" --key-id BENCHKEY01 --team-id BENCHTEAM1)
key=$("$herald" webpush vapid --out "$work/vapid.pem")
for _ in $(seq "$TOKENS"); do
  "$herald" webpush subscribe --data-dir "$data" --gateway "https://localhost:$push_port" --application-server-key "$key" \
    >>"$work/subscriptions"
done
python3 -c 'import json,sys; [print(json.loads(line)["endpoint"]) for line in open(sys.argv[1])]' "$work/subscriptions" >"$work/push-uris"
head -1 "$work/subscriptions" >"$work/subscription.json"
# The same ~1 KB of content on both paths: a JSON payload for APNs, the same text encrypted for Web Push.
message=$(python3 -c 'print("x" * 960)')
printf '{"aps":{"alert":{"title":"Benchmark","body":"%s"}}}' "$message" >"$work/payload.json"
printf '{"title":"Benchmark","body":"%s"}' "$message" >"$work/message.json"
curl_line=$("$herald" webpush send "$work/subscription.json" --vapid "$work/vapid.pem" --subject mailto:bench@example.com \
  --ttl 3600 --dry-run "$work/body.bin" "$work/message.json")
authorization=$(python3 -c 'import re,sys; print(re.search(r"-H .Authorization: ([^'"'"']*)", sys.argv[1]).group(1))' "$curl_line")

"$herald" serve --data-dir "$data" --provider-port "$provider_port" --webpush-port "$push_port" --console-port "$console_port" \
  --device-port 0 --channels-port 0 --quiet 2>"$work/herald.log" &
herald_pid=$!
stop_at_exit "$herald_pid"
wait_for 60 curl -sf "http://127.0.0.1:$console_port/healthz"

apns() {
  h2load -c "$CONNECTIONS" -m "$STREAMS" -t 1 -d "$work/payload.json" -H "authorization: bearer $jwt" \
    -H "apns-topic: com.example.bench" -H "apns-push-type: alert" -i "$work/apns-uris" "$@"
}
push() {
  h2load -c "$CONNECTIONS" -m "$STREAMS" -t 1 -d "$work/body.bin" -H "authorization: $authorization" -H "ttl: 3600" \
    -H "content-encoding: aes128gcm" -i "$work/push-uris" "$@"
}
rate_of() { sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p'; }
ok_of() { sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

warm=$(($(apns -n 20000 | ok_of) + $(push -n 20000 | ok_of)))
apns_rates=() push_rates=() apns_ticks=0 push_ticks=0 answered=$warm
for _ in $(seq "$ROUNDS"); do
  for path in apns push; do
    before=$(cpu_ticks "$herald_pid")
    out=$($path -n "$REQUESTS")
    after=$(cpu_ticks "$herald_pid")
    answered=$((answered + $(ok_of <<<"$out")))
    if [ "$path" = apns ]; then
      apns_rates+=("$(rate_of <<<"$out")") apns_ticks=$((apns_ticks + after - before))
    else
      push_rates+=("$(rate_of <<<"$out")") push_ticks=$((push_ticks + after - before))
    fi
  done
done
stored=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from notification").fetchone()[0])' \
  "$data/herald.sqlite")
[ "$stored" -ge "$answered" ] || { echo "LOST: $answered answered 200/201, $stored in the store" >&2; exit 1; }

python3 - <<PY
from statistics import median
apns, push = [float(r) for r in "${apns_rates[*]}".split()], [float(r) for r in "${push_rates[*]}".split()]
cpu = lambda ticks: ticks / $(getconf CLK_TCK) / ($REQUESTS * $ROUNDS) * 1e6
rounds = lambda rates: ", ".join(f"{r:,.0f}" for r in rates)
print(f"APNs path    : {median(apns):9,.0f} notifications/s (rounds {rounds(apns)}), {cpu($apns_ticks):.1f} µs CPU each")
print(f"Web Push     : {median(push):9,.0f} messages/s      (rounds {rounds(push)}), {cpu($push_ticks):.1f} µs CPU each")
print(f"ratio        : {median(push) / median(apns):9.2f} x the APNs path (goal >= 0.8); all {$answered} answered 2xx are in the store ({$stored} rows)")
PY

if [ "${FIREFOX:-1}" = 1 ] && command -v firefox-esr >/dev/null; then
  python=$root/.build/python-clients/webpush/bin/python
  if [ ! -x "$python" ]; then
    python3 -m venv "$root/.build/python-clients/webpush" && "$python" -m pip install -q -r "$root/Tests/Clients/requirements-webpush.txt"
  fi
  "$python" "$root/Tests/Browser/firefox_push_test.py" "$herald" --latency "$PUSHES" | tail -1
fi
