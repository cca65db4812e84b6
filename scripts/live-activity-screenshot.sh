#!/usr/bin/env bash
# A Live Activity started and updated by a provider, drawn by a real notification server, photographed.
#
#   scripts/live-activity-screenshot.sh [OUT.png]        # default: docs/images/live-activity-desktop.png
#
# Starts the desktop of scripts/desktop-screenshot.sh (Xvfb, a private session bus, dunst), `herald serve`, a delivery
# app that declares NSSupportsLiveActivities, and `herald device --presenter desktop`. With `herald send
# --live-activity`, it starts an activity on the app's push-to-start token (asking for the activity's own token), then
# updates it on that token without an alert: dunst redraws the one bubble in place, with the progress bar it draws
# from the `value` hint. Then it takes a screenshot of the screen. Everything runs in a temporary directory.
set -euo pipefail

source "$(dirname "$0")/lib.sh"
need_desktop
out=$(realpath -m "${1:-$root/docs/images/live-activity-desktop.png}")

cd "$root"
swift build --product herald >/dev/null
bin=$(swift build --show-bin-path)
start_work live-activity
start_desktop 720x200

start_gateway "$bin/herald" com.example.delivery

# The app: it never runs here (its activity starts by push), so its executable is a stub.
mkdir -p "$work/Delivery.app"
cat >"$work/Delivery.app/Info.plist" <<'PLIST'
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
  <key>CFBundleIdentifier</key><string>com.example.delivery</string>
  <key>CFBundleExecutable</key><string>delivery</string>
  <key>CFBundleDisplayName</key><string>Delivery</string>
  <key>NSSupportsLiveActivities</key><true/>
</dict></plist>
PLIST
printf '#!/bin/sh\n' >"$work/Delivery.app/delivery" && chmod +x "$work/Delivery.app/delivery"
convert -size 128x128 radial-gradient:'#a3be8c-#5e81ac' -fill white -font DejaVu-Sans-Bold -pointsize 70 \
  -gravity center -annotate +0+4 'D' "$work/Delivery.app/AppIcon.png"
"$bin/herald" apps install "$work/Delivery.app" --data-dir "$work/device" >/dev/null

"$bin/herald" device --gateway "https://localhost:$device_port" --ca "$work/gateway/tls/ca.pem" \
  --data-dir "$work/device" --presenter desktop --json >"$work/device.log" 2>"$work/device.err" &
stop_at_exit $!
token_of() { grep "\"kind\":\"$1\"" "$work/device.log" | head -1 | sed 's/.*"deviceToken":"\([0-9a-f]*\)".*/\1/'; }
wait_for 30 grep -q '"kind":"pushToStart"' "$work/device.log"
send() { # send EVENT TOKEN JSON [FLAGS…]
  local event=$1 token=$2 json=$3; shift 3
  echo "$json" | "$bin/herald" send --gateway "https://localhost:$provider_port" --ca "$work/gateway/tls/ca.pem" \
    --p8 "$work/key.p8" --key-id KEY1234567 --team-id TEAM123456 --topic com.example.delivery --device "$token" \
    --live-activity "$event" "$@" - >/dev/null
}
now=$(date +%s)
send start "$(token_of pushToStart)" "{\"aps\":{\"timestamp\":$now,\"attributes\":{\"name\":\"Order #4417\",\"store\":\"Corner Bakery\"},
  \"content-state\":{\"progress\":0.3,\"status\":\"Baking\",\"eta\":\"12 min\"},
  \"alert\":{\"title\":\"Your order is in the oven\",\"body\":\"About 12 minutes\"},\"input-push-token\":1}}" \
  --attributes-type DeliveryAttributes
wait_for 30 grep -q '"kind":"activity"' "$work/device.log"
send update "$(token_of activity)" "{\"aps\":{\"timestamp\":$((now + 1)),
  \"content-state\":{\"progress\":0.7,\"status\":\"Out for delivery\",\"eta\":\"4 min\"}}}"
wait_for 30 grep -q '"change":"updated"' "$work/device.log"
sleep 1  # dunst draws
mkdir -p "$(dirname "$out")"
import -display "$display" -window root "$out"
echo "saved $out"
grep -h . "$work/device.err" "$work/dunst.log" || true
