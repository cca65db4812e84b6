#!/usr/bin/env bash
# Provider → presented latency through the device daemon, with and without a service extension.
#
#   scripts/bench-presented.sh              # 200 notifications each way
#   COUNT=1000 INTERVAL_MS=10 scripts/bench-presented.sh
#
# 1. Builds release herald, herald-bench and the podcast example (app and service extension), starts `herald serve`
#    (TLS, SQLite), installs Examples/Podcast/Podcast.app into a device data dir and allows its notifications.
# 2. `herald-bench presented` starts `herald device --json` and sends COUNT notifications one after another, each
#    timed from just before its request to the moment the daemon prints it presented: gateway (durable commit),
#    device link, the daemon's inbox commit, the service extension (a process per notification, with
#    --mutable-content), the delivered-list commit and the presenter.
set -euo pipefail

COUNT=${COUNT:-200}
INTERVAL_MS=${INTERVAL_MS:-20}
PROVIDER_PORT=${PROVIDER_PORT:-15197}
DEVICE_PORT=${DEVICE_PORT:-15223}
CONSOLE_PORT=${CONSOLE_PORT:-15080}
TOPIC=com.example.podcast

source "$(dirname "$0")/lib.sh"
start_work presented

echo "building release herald, herald-bench and the podcast example" >&2
(cd "$root" && for product in herald herald-bench PodcastApp PodcastServiceExtension; do swift build -c release --product "$product" || exit 1; done) \
  >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
bin="$root/.build/release"

data="$work/gateway"
device="$work/device"
"$bin/herald" keys create --data-dir "$data" --team-id BENCHTEAM1 --key-id BENCHKEY01 --out "$work/key.p8" >/dev/null
jwt=$("$bin/herald" jwt --p8 "$work/key.p8" --key-id BENCHKEY01 --team-id BENCHTEAM1)
"$bin/herald" serve --data-dir "$data" --provider-port "$PROVIDER_PORT" --device-port "$DEVICE_PORT" \
  --console-port "$CONSOLE_PORT" --channels-port 0 --webpush-port 0 --quiet 2>"$work/gateway.log" &
gateway_pid=$!
stop_at_exit "$gateway_pid"
for _ in $(seq 200); do curl -sf "http://127.0.0.1:$CONSOLE_PORT/healthz" >/dev/null && break; sleep 0.05; done

"$bin/herald" apps install "$root/Examples/Podcast/Podcast.app" --executable-dir "$bin" --data-dir "$device" >/dev/null
"$bin/herald" device settings --app "$TOPIC" --allow --data-dir "$device" >/dev/null

echo "machine: $(nproc) cores; $COUNT notifications each way, one every $INTERVAL_MS ms"
for mode in "" --mutable-content; do
  "$bin/herald-bench" presented --provider "https://localhost:$PROVIDER_PORT" --ca "$data/tls/ca.pem" --jwt "$jwt" \
    --topic "$TOPIC" --connections 1 --herald "$bin/herald" --device-gateway "https://localhost:$DEVICE_PORT" \
    --data-dir "$device" --count "$COUNT" --interval "$INTERVAL_MS" $mode
done
