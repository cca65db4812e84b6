#!/usr/bin/env bash
# Crash test for store-and-forward: a gateway killed with SIGKILL under load and restarted delivers every
# notification it answered 200 to, each exactly once.
#
#   scripts/crash-delivery.sh                 # N=20000 per phase
#   N=50000 scripts/crash-delivery.sh
#
# The app's policy is `all` (cap above N). Two phases, each with a fresh flood of N notifications to one device:
#   online  - `herald device --json` is connected while the flood runs; the gateway is killed once a third of
#             the notifications are answered, then restarted; the device reconnects by itself.
#   offline - the device is stopped before the flood, so everything is stored; the gateway is killed the same
#             way and restarted, then the device is started again with the same data dir (same token).
# herald-bench flood writes every apns-id answered 200 to a file as the answer arrives. The check: each of
# them was printed by the device exactly once, and no notification was printed twice.
set -euo pipefail

N=${N:-20000}
CONCURRENCY=${CONCURRENCY:-64}
PROVIDER_PORT=${PROVIDER_PORT:-13197}
DEVICE_PORT=${DEVICE_PORT:-13223}
CONSOLE_PORT=${CONSOLE_PORT:-13080}
TOPIC=com.example.crash

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/herald-crash.XXXXXX)
echo "building release herald and herald-bench" >&2
(cd "$root" && swift build -c release --product herald && swift build -c release --product herald-bench) >"$work/build.log" 2>&1 \
  || { cat "$work/build.log" >&2; exit 1; }
herald="$root/.build/release/herald"
bench="$root/.build/release/herald-bench"
gateway_pid=""
device_pid=""
cleanup() {
  [ -n "$device_pid" ] && kill "$device_pid" 2>/dev/null || true
  [ -n "$gateway_pid" ] && kill "$gateway_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

data="$work/gateway"
"$herald" keys create --data-dir "$data" --team-id CRASHTEAM1 --key-id CRASHKEY01 --out "$work/key.p8" >/dev/null
"$herald" policy --data-dir "$data" --topic "$TOPIC" all --cap $((N * 3)) >/dev/null
jwt=$("$herald" jwt --p8 "$work/key.p8" --key-id CRASHKEY01 --team-id CRASHTEAM1)

start_gateway() {
  "$herald" serve --data-dir "$data" --provider-port "$PROVIDER_PORT" --device-port "$DEVICE_PORT" \
    --console-port "$CONSOLE_PORT" --channels-port 0 --webpush-port 0 --device-rate-limit 1000000 --quiet 2>>"$work/gateway.log" &
  gateway_pid=$!
  for _ in $(seq 200); do curl -sf "http://127.0.0.1:$CONSOLE_PORT/healthz" >/dev/null && return; sleep 0.05; done
  echo "the gateway did not start; see $work/gateway.log" >&2; exit 1
}

start_device() {
  "$herald" device --gateway "https://localhost:$DEVICE_PORT" --ca "$data/tls/ca.pem" --topic "$TOPIC" \
    --data-dir "$work/device" --json >>"$work/device.jsonl" 2>>"$work/device.log" &
  device_pid=$!
}

stop_device() {
  kill "$device_pid"; wait "$device_pid" 2>/dev/null || true; device_pid=""
}

start_gateway
start_device
for _ in $(seq 200); do grep -q '"registered"' "$work/device.jsonl" 2>/dev/null && break; sleep 0.05; done
token=$(python3 -c 'import json,sys
for line in open(sys.argv[1]):
    event = json.loads(line)
    if event["event"] == "registered": print(event["deviceToken"]); break' "$work/device.jsonl")
[ -n "$token" ] || { echo "the device did not register; see $work/device.log" >&2; exit 1; }

# flood_and_kill PHASE: sends N, SIGKILLs the gateway once N/3 are accepted, restarts it.
flood_and_kill() {
  local accepted="$work/$1-accepted.txt"
  : >"$accepted"
  "$bench" flood --provider "https://localhost:$PROVIDER_PORT" --ca "$data/tls/ca.pem" --jwt "$jwt" --topic "$TOPIC" \
    --device "$token" --count "$N" --concurrency "$CONCURRENCY" --out "$accepted" >"$work/$1-flood.txt" 2>&1 &
  local flood_pid=$!
  while [ "$(wc -l <"$accepted")" -lt $((N / 3)) ] && kill -0 "$flood_pid" 2>/dev/null; do sleep 0.01; done
  kill -9 "$gateway_pid"; wait "$gateway_pid" 2>/dev/null || true
  wait "$flood_pid" || true
  echo "$1: $(cat "$work/$1-flood.txt" | head -1); gateway killed with SIGKILL, restarting" >&2
  start_gateway
}

# check PHASE FIRST_LINE: every accepted id shown exactly once by the device (from FIRST_LINE of its output).
check() {
  python3 "$root/scripts/shown-once.py" "$work/$1-accepted.txt" "$work/device.jsonl" "$2"
}

status=0
echo "online phase: $N notifications while the device is connected" >&2
first_line=$(wc -l <"$work/device.jsonl")
flood_and_kill online
check online "$first_line" || status=1

echo "offline phase: $N notifications stored for a stopped device" >&2
stop_device
first_line=$(wc -l <"$work/device.jsonl")
flood_and_kill offline
start_device
check offline "$first_line" || status=1

if [ $status -eq 0 ]; then echo "PASS: every notification answered 200 reached the device exactly once"; else echo "FAIL"; KEEP=1; fi
exit $status
