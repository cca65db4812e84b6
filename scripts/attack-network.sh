#!/usr/bin/env bash
# Known network attacks on a real TLS gateway, each measured by what it does to well-behaved traffic.
#
#   scripts/attack-network.sh                                   # builds release herald + herald-bench, runs every attack
#   HERALD_BIN=/path/to/release scripts/attack-network.sh       # use herald and herald-bench from there (no build)
#   ATTACKS=rapid-reset,device-bad-hello scripts/attack-network.sh   # a subset
#   SECONDS_EACH=20 scripts/attack-network.sh                   # attack duration (default 10 s; device-idle ≥ 15 s)
#
# Starts `herald serve` (TLS on the provider and device ports, its own local CA) in a temporary directory on free
# ports, then scripts/attack-network.py runs a baseline `herald-bench latency` (10 devices, 500/s) and, for each
# attack, the same bench while a niced attacker process attacks one port. Each attack gets a new gateway (and a
# 2 s warm-up bench, not counted), so that what one attack leaves behind (memory, stored notifications) does not
# show up in the next; ISOLATE=0 runs them all against one gateway. The attacks (attack-network.py has details):
#   provider port (HTTP/2 over TLS): rapid-reset, continuation-flood, hpack-bomb, settings-flood, ping-flood,
#     zero-window, zero-window-hold, no-read, slow-tls, idle-connections
#   device port (WebSocket over TLS): device-slow-tls, device-slow-upgrade, device-header-bomb, device-ping-flood,
#     device-continuation-flood, device-oversized, device-bad-hello, device-idle
# Per attack it prints what the gateway did to the attacking connections (closed how many, after how long, with
# what GOAWAY / RST_STREAM / WebSocket close / HTTP status / TCP FIN or RST), the bench's provider-200 and
# provider→device p99 and accepted/delivered counts, the gateway's RSS (peak through VmHWM), CPU seconds,
# descriptors and the herald_* metrics that changed; then a summary table. Exits 1 if any attack made the
# provider p99 ≥ 20 ms, lost a notification, killed the gateway, or left attacking connections open 15 s after it.
#
# Other knobs: ATTACK_CONNECTIONS (8, per flood), SLOW_CONNECTIONS (200, slowloris), IDLE_CONNECTIONS (2000,
# half TCP-only and half TLS + HTTP/2 preface), DEVICE_IDLE_CONNECTIONS (2000 of each kind), GRACE (15 s),
# ATTACKER_NICE (10: the attacker's Python yields the shared CPU to the gateway and the bench, as an attacker on
# another machine would; 0 to compete), MAX_GATEWAY_RSS_MIB (4096: an attack is aborted, and fails, when the
# gateway's RSS passes it, so a gateway that grows without bound does not take the machine's memory),
# PROVIDER_PORT / DEVICE_PORT / CONSOLE_PORT (default: free ports),
# KEEP=1 keeps the temporary directory (gateway log, data) for a look afterwards.
set -euo pipefail

SECONDS_EACH=${SECONDS_EACH:-10}
ATTACKS=${ATTACKS:-}
ATTACK_CONNECTIONS=${ATTACK_CONNECTIONS:-8}
SLOW_CONNECTIONS=${SLOW_CONNECTIONS:-200}
IDLE_CONNECTIONS=${IDLE_CONNECTIONS:-2000}
DEVICE_IDLE_CONNECTIONS=${DEVICE_IDLE_CONNECTIONS:-2000}
GRACE=${GRACE:-15}
ATTACKER_NICE=${ATTACKER_NICE:-10}
MAX_GATEWAY_RSS_MIB=${MAX_GATEWAY_RSS_MIB:-4096}
ISOLATE=${ISOLATE:-1}
KEEP=${KEEP:-0}

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/herald-attack.XXXXXX)
gateway_pid=""
cleanup() {
  if [ -n "$gateway_pid" ]; then kill -9 "$gateway_pid" 2>/dev/null || true; wait "$gateway_pid" 2>/dev/null || true; fi
  if [ "$KEEP" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

if [ -n "${HERALD_BIN:-}" ]; then
  bin=$HERALD_BIN
else
  echo "building release herald and herald-bench" >&2
  (cd "$root" && swift build -c release --product herald && swift build -c release --product herald-bench) >"$work/build.log" 2>&1 \
    || { cat "$work/build.log" >&2; exit 1; }
  bin="$root/.build/release"
fi
herald="$bin/herald"
bench="$bin/herald-bench"
for binary in "$herald" "$bench"; do
  [ -x "$binary" ] || { echo "no executable $binary" >&2; exit 1; }
done

# Thousands of attacking connections: one descriptor each in the gateway and in the attacker.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
needed=$(( 2 * DEVICE_IDLE_CONNECTIONS + IDLE_CONNECTIONS + SLOW_CONNECTIONS + 1000 ))
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$needed" ]; then
  echo "warning: open-file limit $(ulimit -n) is below the $needed the idle attacks want; expect connect failures" >&2
fi

attacks=${ATTACKS:-$(python3 "$root/scripts/attack-network.py" list | paste -sd, -)}
known=$(python3 "$root/scripts/attack-network.py" list)
for attack in ${attacks//,/ }; do
  grep -qx -- "$attack" <<<"$known" || { echo "unknown attack $attack; known: $(echo $known)" >&2; exit 2; }
done
results="$work/results.jsonl"
: >"$results"

# A gateway on free ports (asked of the kernel) in a new data directory: sets gateway_pid, the ports, data, jwt.
gateways=0
start_gateway() {
  gateways=$((gateways + 1))
  local dir="$work/gateway-$gateways" free
  mkdir -p "$dir"
  free=$(python3 -c '
import socket
socks = [socket.socket() for _ in range(3)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))')
  read -r provider_port device_port console_port <<<"$free"
  provider_port=${PROVIDER_PORT:-$provider_port}
  device_port=${DEVICE_PORT:-$device_port}
  console_port=${CONSOLE_PORT:-$console_port}
  data="$dir/data"
  gateway_log="$dir/gateway.log"
  "$herald" keys create --data-dir "$data" --team-id ATTACKTEAM --key-id ATTACKKEY1 --out "$dir/key.p8" >/dev/null 2>&1
  jwt=$("$herald" jwt --p8 "$dir/key.p8" --key-id ATTACKKEY1 --team-id ATTACKTEAM)
  "$herald" serve --data-dir "$data" --provider-port "$provider_port" --device-port "$device_port" \
    --console-port "$console_port" --channels-port 0 --webpush-port 0 --device-rate-limit 1000000 --quiet 2>"$gateway_log" &
  gateway_pid=$!
  local healthy=0
  for _ in $(seq 200); do
    if curl -sf "http://127.0.0.1:$console_port/healthz" >/dev/null; then healthy=1; break; fi
    kill -0 "$gateway_pid" 2>/dev/null || break
    sleep 0.05
  done
  if [ "$healthy" != 1 ]; then
    echo "the gateway did not become healthy; its log:" >&2
    cat "$gateway_log" >&2
    exit 1
  fi
  echo "gateway $gateways: pid $gateway_pid, provider https://localhost:$provider_port, device https://localhost:$device_port, console http://127.0.0.1:$console_port"
}

stop_gateway() {
  [ -n "$gateway_pid" ] || return 0
  kill "$gateway_pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$gateway_pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$gateway_pid" 2>/dev/null || true
  wait "$gateway_pid" 2>/dev/null || true
  gateway_pid=""
}

# run_attacks [--baseline] ATTACK,…: the Python side against the current gateway; its rows go to $results.
run_attacks() {
  local baseline=() list=$1
  [ "$list" = baseline ] && { baseline=(--baseline); list=""; }
  python3 "$root/scripts/attack-network.py" run "${baseline[@]}" --attacks "$list" \
    --provider-port "$provider_port" --device-port "$device_port" --console-port "$console_port" \
    --gateway-pid "$gateway_pid" --data "$data" --jwt "$jwt" --bench "$bench" --gateway-log "$gateway_log" \
    --seconds "$SECONDS_EACH" --connections "$ATTACK_CONNECTIONS" --slow-connections "$SLOW_CONNECTIONS" \
    --idle-connections "$IDLE_CONNECTIONS" --device-idle-connections "$DEVICE_IDLE_CONNECTIONS" --grace "$GRACE" \
    --attacker-nice "$ATTACKER_NICE" --max-rss-mib "$MAX_GATEWAY_RSS_MIB" --results "$results" || true
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); open-file limit $(ulimit -n); binaries from $bin"
echo "attacks: $attacks; ${SECONDS_EACH} s each; $( [ "$ISOLATE" = 1 ] && echo "a new gateway for each" || echo "one gateway for all")"
start_gateway
run_attacks baseline
if [ "$ISOLATE" = 1 ]; then
  for attack in ${attacks//,/ }; do
    stop_gateway
    start_gateway
    run_attacks "$attack"
  done
else
  run_attacks "$attacks"
fi
stop_gateway

status=0
python3 "$root/scripts/attack-network.py" summary --results "$results" --expect "(baseline),$attacks" || status=$?
echo "run took $SECONDS s"
exit "$status"
