#!/usr/bin/env bash
# Provider 200 → desktop bubble: the time from the provider's 200 to the `Notify` call arriving at a notification
# server on D-Bus, through `herald device --presenter desktop`, at a fixed rate; and the daemon's CPU per notification.
#
#   scripts/bench-desktop.sh                    # 100 notifications/s for 30 s
#   RATE=200 DURATION=60 scripts/bench-desktop.sh
#
# 1. Builds release herald, herald-bench and the podcast example, starts `herald serve` (TLS, SQLite, durable commits),
#    installs Examples/Podcast/Podcast.app into a device data dir and allows its notifications.
# 2. `herald-bench desktop` starts a private `dbus-daemon --session` with a recording org.freedesktop.Notifications
#    server (HeraldTesting's ScriptedNotificationServer, every capability) in its own process, then
#    `herald device --presenter desktop --json` on that bus, and sends RATE notifications/s for DURATION s (open
#    loop, each with its apns-id as the body). Each is timed from the instant its 200 reached the provider to the
#    instant the server received its Notify: device link, the daemon's inbox and delivered-list commits, the
#    presenter and one D-Bus call through dbus-daemon. It prints p50/p90/p99/max (also per third of the run), any
#    that never arrived, and the CPU time (utime + stime from /proc/PID/stat) of the daemon and of dbus-daemon per
#    notification.
set -euo pipefail

RATE=${RATE:-100}
DURATION=${DURATION:-30}
PROVIDER_PORT=${PROVIDER_PORT:-15297}
DEVICE_PORT=${DEVICE_PORT:-15323}
CONSOLE_PORT=${CONSOLE_PORT:-15180}
TOPIC=com.example.podcast

source "$(dirname "$0")/lib.sh"
start_work desktop

command -v dbus-daemon >/dev/null || { echo "dbus-daemon is missing (Debian: apt-get install dbus-daemon)" >&2; exit 1; }

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

echo "machine: $(nproc) cores; $RATE notifications/s for $DURATION s"
"$bin/herald-bench" desktop --provider "https://localhost:$PROVIDER_PORT" --ca "$data/tls/ca.pem" --jwt "$jwt" \
  --topic "$TOPIC" --connections 1 --herald "$bin/herald" --device-gateway "https://localhost:$DEVICE_PORT" \
  --data-dir "$device" --rate "$RATE" --duration "$DURATION"
