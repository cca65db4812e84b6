#!/usr/bin/env bash
# Delivery benchmarks: provider → device latency, and many devices on one gateway.
#
#   scripts/bench-delivery.sh                       # latency at 1,000/s and 10,000/s; 10,000 connected devices
#   DEVICES=100000 scripts/bench-delivery.sh        # the fleet part with 100,000 devices (over 4 loopback addresses)
#   DEVICES=100000 ONLINE=19000 scripts/bench-delivery.sh  # ... at most 19,000 online at once, in waves (open-file limit)
#   PARTS=fleet scripts/bench-delivery.sh           # only one part: latency, fleet or broadcast
#   PARTS=broadcast SUBSCRIBERS=10000 scripts/bench-delivery.sh  # one broadcast to 10,000 subscribed devices
#   PLAINTEXT=1 PARTS=fleet scripts/bench-delivery.sh  # the gateway with --plaintext (h2c, ws://): what TLS costs
#   GATEWAY_LINK=1 scripts/bench-delivery.sh        # the devices run GatewayLink, `herald device`'s library
#   GATEWAY_LINK=1 DEVICE_JOURNAL=1 scripts/bench-delivery.sh  # ... and keep its duplicate journal (SQLite)
#
# 1. Builds release `herald` and `herald-bench`, creates a key, starts `herald serve` (TLS on both ports, SQLite,
#    synchronous=FULL: each notification is on disk before its 200 and before it is pushed).
# 2. latency: `herald-bench latency` keeps LATENCY_DEVICES devices on TLS WebSocket links and sends open-loop at
#    each rate in RATES for SECONDS_EACH; each notification is timed from the moment it was due to be sent to the
#    moment the device has decoded it. The devices speak the device link from NIO channel handlers (key, challenge,
#    registration, an ack per notification): they share the gateway's two cores, and GatewayLink's hand-off of
#    every message to a task took a third of the machine at 10,000/s. GATEWAY_LINK=1 runs GatewayLink instead,
#    without its duplicate journal unless DEVICE_JOURNAL=1 (disk work a real device does on its own cores). Above PROBE_RATE*2/s,
#    h2load sends all but PROBE_RATE/s of the load (untimed, to the same devices) and herald-bench times the
#    PROBE_RATE/s probes: on a small machine the Swift sender would otherwise take the CPU the gateway needs.
#    Goal: p99 < 10 ms.
# 3. fleet: `herald-bench fleet` connects DEVICES devices (each its own key, challenge, registration), reads the
#    gateway's RSS from /proc before and after, then sends each device one notification and times the fan-out.
#    Goal: 10,000 devices in < 500 MB. With ONLINE below DEVICES, the devices register in waves of ONLINE, the
#    last wave stays online for the fan-out, and the others reconnect wave by wave for their stored notification:
#    a fleet larger than the open-file limit lets this machine hold links to. Every device must get exactly one.
# 4. broadcast: `herald-bench broadcast` links SUBSCRIBERS devices, each registering and subscribing to one channel
#    (`herald channels create`, storage policy 0), then sends ROUNDS broadcasts to it one after another: the time to
#    the 200 (one commit), until the last device has it, and the gateway's CPU per delivered update.
#    Goal: 10,000 devices in under 3 s.
set -euo pipefail

PARTS=${PARTS:-"latency fleet"}
RATES=${RATES:-"1000 10000"}
SECONDS_EACH=${SECONDS_EACH:-10}
LATENCY_DEVICES=${LATENCY_DEVICES:-100}
PROBE_RATE=${PROBE_RATE:-500}
DEVICES=${DEVICES:-10000}
ONLINE=${ONLINE:-$DEVICES}
PROVIDER_PORT=${PROVIDER_PORT:-14197}
DEVICE_PORT=${DEVICE_PORT:-14223}
CONSOLE_PORT=${CONSOLE_PORT:-14080}
CHANNELS_PORT=${CHANNELS_PORT:-14195}
SUBSCRIBERS=${SUBSCRIBERS:-10000}
ROUNDS=${ROUNDS:-3}
PLAINTEXT=${PLAINTEXT:-0}
GATEWAY_LINK=${GATEWAY_LINK:-0}
DEVICE_JOURNAL=${DEVICE_JOURNAL:-0}
TOPIC=com.example.bench
scheme=https
plaintext=()
[ "$PLAINTEXT" = 1 ] && { scheme=http; plaintext=(--plaintext); }
device_stack=()
[ "$GATEWAY_LINK" = 1 ] && device_stack+=(--gateway-link)
[ "$DEVICE_JOURNAL" = 1 ] && device_stack+=(--device-journal)

source "$(dirname "$0")/lib.sh"
start_work delivery

echo "building release herald and herald-bench" >&2
(cd "$root" && swift build -c release --product herald && swift build -c release --product herald-bench) >"$work/build.log" 2>&1 \
  || { cat "$work/build.log" >&2; exit 1; }
herald="$root/.build/release/herald"
bench="$root/.build/release/herald-bench"

# Each device online is one descriptor in the gateway and one in herald-bench.
links=$(( ONLINE < DEVICES ? ONLINE : DEVICES ))
case " $PARTS " in *" broadcast "*) [ "$SUBSCRIBERS" -gt "$links" ] && links=$SUBSCRIBERS ;; esac
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((links + 1000)) ]; then
  ulimit -n $((links + 1000)) 2>/dev/null || {
    echo "$links devices online need an open-file limit of $((links + 1000)); this shell's hard limit is $(ulimit -Hn) (raise it as root: ulimit -Hn …, or LimitNOFILE= in a systemd unit; or keep fewer online at once: ONLINE=$(( $(ulimit -Hn) - 1000 )))" >&2
    exit 1
  }
fi

# Past ~28,000 connections from one address to one port, loopback's ephemeral ports run out; more devices use
# more destination addresses (127.0.0.2, …), which needs the gateway on 0.0.0.0.
addresses=$(( (DEVICES + 24999) / 25000 ))
host=127.0.0.1
[ "$addresses" -gt 1 ] && host=0.0.0.0

data="$work/data"
"$herald" keys create --data-dir "$data" --team-id BENCHTEAM1 --key-id BENCHKEY01 --out "$work/key.p8" >/dev/null
jwt=$("$herald" jwt --p8 "$work/key.p8" --key-id BENCHKEY01 --team-id BENCHTEAM1)
"$herald" serve --data-dir "$data" --host "$host" --provider-port "$PROVIDER_PORT" --device-port "$DEVICE_PORT" \
  --console-port "$CONSOLE_PORT" --channels-port "$CHANNELS_PORT" --webpush-port 0 --device-rate-limit 1000000 "${plaintext[@]}" --quiet 2>"$work/gateway.log" &
gateway_pid=$!
stop_at_exit "$gateway_pid"
for _ in $(seq 200); do curl -sf "http://127.0.0.1:$CONSOLE_PORT/healthz" >/dev/null && break; sleep 0.05; done

common=(--provider "$scheme://localhost:$PROVIDER_PORT" --ca "$data/tls/ca.pem" --jwt "$jwt" --topic "$TOPIC")
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); gateway pid $gateway_pid"
"$root/scripts/disk-sync.py" "$data"

for part in $PARTS; do
  case $part in
    latency)
      for rate in $RATES; do
        background=()
        if [ "$rate" -gt $((PROBE_RATE * 2)) ]; then
          command -v h2load >/dev/null || { apt-get update -qq && apt-get install -y -qq nghttp2-client >/dev/null; }
          background=(--h2load "$(command -v h2load)" --probe-rate "$PROBE_RATE")
        fi
        echo
        "$bench" latency "${common[@]}" --device-gateway "$scheme://localhost:$DEVICE_PORT" \
          --devices "$LATENCY_DEVICES" --rate "$rate" --seconds "$SECONDS_EACH" "${background[@]}" "${device_stack[@]}"
      done
      ;;
    fleet)
      gateways=()
      if [ "$addresses" -gt 1 ]; then
        for i in $(seq "$addresses"); do gateways+=(--device-gateway "$scheme://127.0.0.$i:$DEVICE_PORT"); done
        gateways+=(--skip-hostname-check)
      else
        gateways+=(--device-gateway "$scheme://localhost:$DEVICE_PORT")
      fi
      echo
      "$bench" fleet "${common[@]}" "${gateways[@]}" --count "$DEVICES" --online "$links" --gateway-pid "$gateway_pid" "${device_stack[@]}"
      ;;
    broadcast)
      channel=$("$herald" channels create --gateway "$scheme://localhost:$CHANNELS_PORT" --ca "$data/tls/ca.pem" --p8 "$work/key.p8" \
        --key-id BENCHKEY01 --team-id BENCHTEAM1 --bundle "$TOPIC" --storage-policy 0)
      echo
      "$bench" broadcast "${common[@]}" --device-gateway "$scheme://localhost:$DEVICE_PORT" --channel "$channel" \
        --count "$SUBSCRIBERS" --rounds "$ROUNDS" --gateway-pid "$gateway_pid"
      ;;
    *) echo "unknown part $part (latency, fleet or broadcast)" >&2; exit 1 ;;
  esac
done
