#!/usr/bin/env bash
# A message from a person, shown by a real notification server as iOS 15 shows a communication notification — the
# sender's name and avatar in place of the app's — and photographed; then dunst's own pause holding a Focus on.
#
#   scripts/communication-screenshot.sh [OUT.png [SUMMARY.png]]
#                      # defaults: docs/images/desktop-communication.png, docs/images/desktop-summary.png
#
# Starts Xvfb, a private D-Bus session bus and dunst (lib.sh's start_desktop), `herald serve`, the messaging example
# installed (Examples/Messaging: its service extension makes each message an INSendMessageIntent from its sender) and
# `herald device --presenter desktop`. It pushes a message from "Ada Lovelace" with an avatar, waits for dunst to
# draw it and takes a screenshot. Then `dunstctl set-paused true` must turn on the device's Focus (it follows the
# desktop) and `set-paused false` turn it off, as the device's --json lines say. Last, two ordinary messages wait for
# the scheduled summary, which arrives as one quiet bubble when it is turned off: photographed too. Everything runs in
# a temporary directory and stops at the end.
set -euo pipefail

source "$(dirname "$0")/lib.sh"
need_desktop
out=$(realpath -m "${1:-$root/docs/images/desktop-communication.png}")
summary_out=$(realpath -m "${2:-$root/docs/images/desktop-summary.png}")

cd "$root"
for product in herald MessagingApp MessagingServiceExtension; do swift build --product "$product" >/dev/null; done
bin=$(swift build --show-bin-path)

start_work communication
start_desktop 720x200
start_gateway "$bin/herald" com.example.messaging
cp -r Examples/Messaging/Messaging.app "$work/Messaging.app"
convert -size 128x128 radial-gradient:'#88c0d0-#5e81ac' "$work/Messaging.app/AppIcon.png"
"$bin/herald" apps install "$work/Messaging.app" --executable-dir "$bin" --data-dir "$work/device" >/dev/null
"$bin/herald" device settings --app com.example.messaging --allow --data-dir "$work/device" >/dev/null

"$bin/herald" device --gateway "https://localhost:$device_port" --ca "$work/gateway/tls/ca.pem" \
  --data-dir "$work/device" --presenter desktop --json >"$work/device.log" 2>"$work/device.err" &
stop_at_exit $!
wait_for 30 grep -q '"registered"' "$work/device.log"
token=$(grep '"registered"' "$work/device.log" | head -1 | sed 's/.*"deviceToken":"\([0-9a-f]*\)".*/\1/')
HERALD_DATA_DIR="$work/device" MESSAGING_LIFETIME=0 "$bin/MessagingApp" >/dev/null

# Ada's avatar: a round portrait-ish picture.
convert -size 160x160 radial-gradient:'#ebcb8b-#bf616a' -fill '#2e3440' -font DejaVu-Sans-Bold -pointsize 72 \
  -gravity center -annotate +0+4 'AL' "$work/ada.png" 2>/dev/null || convert -size 160x160 radial-gradient:'#ebcb8b-#bf616a' "$work/ada.png"
cat >"$work/message.json" <<JSON
{"aps":{"alert":{"title":"Ada Lovelace","body":"The engine computed the Bernoulli numbers. Coffee to celebrate?"},
 "mutable-content":1,"thread-id":"chat-ada","category":"message","sound":"default"},
 "sender":{"name":"Ada Lovelace","handle":"ada@example.com","avatar":"file://$work/ada.png"}}
JSON
send() {
  "$bin/herald" send --gateway "https://localhost:$provider_port" --ca "$work/gateway/tls/ca.pem" --p8 "$work/key.p8" \
    --key-id KEY1234567 --team-id TEAM123456 --topic com.example.messaging --device "$token" "$1" >/dev/null
}
send "$work/message.json"
wait_for 30 grep -q 'desktop notifications: dunst' "$work/device.err"
sleep 2  # the extension runs; dunst draws
mkdir -p "$(dirname "$out")"
import -display "$display" -window root "$out"
echo "saved $out"

# dunst's pause is the desktop's do-not-disturb: the Focus follows it, both ways.
dunstctl set-paused true
wait_for 10 grep -q '"event":"focus".*"on":true.*"reason":"desktop"\|"event":"focus".*"reason":"desktop".*"on":true' "$work/device.log" ||
  { grep -h . "$work/device.log" "$work/device.err"; exit 1; }
dunstctl set-paused false
wait_for 10 grep -q '"event":"focus","on":false\|"on":false,"event":"focus"\|"event":"focus".*"on":false' "$work/device.log"
echo "dunst paused and resumed: the device's Focus followed ($(grep -c '"event":"focus"' "$work/device.log") focus lines)"

# The scheduled summary: two ordinary messages wait, then arrive together as one quiet bubble.
"$bin/herald" device summary on --add com.example.messaging --data-dir "$work/device" >/dev/null
for text in "Standup moved to 10:30|0.9" "The build is green again|0.4"; do
  cat >"$work/plain.json" <<JSON
{"aps":{"alert":{"title":"Team","body":"${text%|*}"},"relevance-score":${text#*|}}}
JSON
  send "$work/plain.json"
done
wait_for 10 sh -c "'$bin/herald' device summary --json --data-dir '$work/device' | grep -q '\"waiting\":2'"
dunstctl close-all
"$bin/herald" device summary off --data-dir "$work/device" >/dev/null
sleep 2  # the daemon releases it within a second; dunst draws
import -display "$display" -window root "$summary_out"
echo "saved $summary_out"
grep -h . "$work/device.err" "$work/dunst.log" || true
