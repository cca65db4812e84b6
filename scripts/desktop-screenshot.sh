#!/usr/bin/env bash
# A push from a provider, shown by a real notification server, photographed.
#
#   scripts/desktop-screenshot.sh [OUT.png]        # default: docs/images/desktop-notification.png
#
# Starts Xvfb, a private D-Bus session bus and dunst on it (Debian `xvfb`, `dbus-daemon`, `dunst`; installed when
# missing, with ImageMagick for the cover and the screenshot), `herald serve`, the podcast example installed with an
# icon, and `herald device --presenter desktop`. It pushes a new-episode notification whose service extension
# attaches a cover image, waits for dunst to draw the bubble (title, body, the cover, the app's icon and name, "(A)"
# for its actions), and takes a screenshot of the screen (ImageMagick `import`). Everything runs in a temporary
# directory and stops at the end.
set -euo pipefail

source "$(dirname "$0")/lib.sh"
out=$(realpath -m "${1:-$root/docs/images/desktop-notification.png}")

need=()
for package in xvfb x11-xserver-utils dunst imagemagick dbus-daemon; do dpkg -s "$package" >/dev/null 2>&1 || need+=("$package"); done
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
fi

cd "$root"
swift build --product herald >/dev/null
swift build --product PodcastApp >/dev/null
swift build --product PodcastServiceExtension >/dev/null
bin=$(swift build --show-bin-path)

start_work desktop

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { # wait_for SECONDS COMMAND...: until COMMAND succeeds
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { echo "timed out waiting for: $*" >&2; return 1; }
    sleep 0.1
  done
}

# The desktop: a screen, a session bus, a notification server.
display=:$((RANDOM % 400 + 100))
Xvfb "$display" -screen 0 720x200x24 -nolisten tcp &
stop_at_exit $!
export DISPLAY=$display
wait_for 10 test -e "/tmp/.X11-unix/X${display#:}"
command -v xsetroot >/dev/null && xsetroot -solid '#d8dee9'
dbus-daemon --session --nofork --nopidfile --address="unix:path=$work/bus" 2>/dev/null &
stop_at_exit $!
export DBUS_SESSION_BUS_ADDRESS="unix:path=$work/bus"
wait_for 10 test -S "$work/bus"
cat >"$work/dunstrc" <<'EOF'
[global]
    monitor = 0
    follow = none
    width = 460
    height = 160
    origin = top-right
    offset = 16x16
    notification_limit = 3
    padding = 12
    horizontal_padding = 14
    frame_width = 2
    frame_color = "#5e81ac"
    separator_color = frame
    corner_radius = 10
    font = DejaVu Sans 11
    markup = full
    format = "<small>%a</small>\n<b>%s</b>\n%b"
    alignment = left
    icon_position = left
    min_icon_size = 64
    max_icon_size = 96
    show_indicators = yes
    sticky_history = yes
[urgency_normal]
    background = "#2e3440"
    foreground = "#eceff4"
    timeout = 0
EOF
dunst -config "$work/dunstrc" 2>"$work/dunst.log" &
stop_at_exit $!
wait_for 10 dbus-send --session --dest=org.freedesktop.Notifications --print-reply /org/freedesktop/Notifications \
  org.freedesktop.Notifications.GetServerInformation

# The gateway, a key, the podcast app with an icon.
provider_port=$(free_port) device_port=$(free_port) console_port=$(free_port)
"$bin/herald" serve --data-dir "$work/gateway" --provider-port "$provider_port" --device-port "$device_port" \
  --console-port "$console_port" --channels-port 0 >"$work/serve.log" 2>&1 &
stop_at_exit $!
wait_for 30 test -s "$work/gateway/tls/ca.pem"
"$bin/herald" keys create --data-dir "$work/gateway" --team-id TEAM123456 --key-id KEY1234567 \
  --topic com.example.podcast --out "$work/key.p8" >/dev/null
cp -r Examples/Podcast/Podcast.app "$work/Podcast.app"
convert -size 128x128 radial-gradient:'#b48ead-#5e81ac' -fill white -font DejaVu-Sans-Bold -pointsize 64 \
  -gravity center -annotate +0+4 '🎙' "$work/Podcast.app/AppIcon.png" 2>/dev/null ||
  convert -size 128x128 radial-gradient:'#b48ead-#5e81ac' "$work/Podcast.app/AppIcon.png"
"$bin/herald" apps install "$work/Podcast.app" --executable-dir "$bin" --data-dir "$work/device" >/dev/null
"$bin/herald" device settings --app com.example.podcast --allow --data-dir "$work/device" >/dev/null

# The device daemon on the desktop; the app runs once (its categories: Listen, Later) and says its token.
"$bin/herald" device --gateway "https://localhost:$device_port" --ca "$work/gateway/tls/ca.pem" \
  --data-dir "$work/device" --presenter desktop --json >"$work/device.log" 2>"$work/device.err" &
stop_at_exit $!
wait_for 30 grep -q '"registered"' "$work/device.log"
token=$(grep '"registered"' "$work/device.log" | head -1 | sed 's/.*"deviceToken":"\([0-9a-f]*\)".*/\1/')
HERALD_DATA_DIR="$work/device" PODCAST_LIFETIME=0 "$bin/PodcastApp" >/dev/null

# The episode's cover, attached by the service extension.
convert -size 256x256 gradient:'#ebcb8b-#d08770' -fill '#2e3440' -font DejaVu-Sans-Bold -pointsize 56 \
  -gravity center -annotate +0+0 'EP 42' "$work/cover.png"
cat >"$work/episode.json" <<EOF
{"aps":{"alert":{"title":"New episode","body":"Compilers, coffee & the history of the Analytical Engine"},
 "mutable-content":1,"category":"new-episode","sound":"default"},
 "podcast-guest":"Ada Lovelace","podcast-image":"file://$work/cover.png"}
EOF
"$bin/herald" send --gateway "https://localhost:$provider_port" --ca "$work/gateway/tls/ca.pem" --p8 "$work/key.p8" \
  --key-id KEY1234567 --team-id TEAM123456 --topic com.example.podcast --device "$token" "$work/episode.json" >/dev/null

wait_for 30 grep -q 'desktop notifications: dunst' "$work/device.err"
sleep 2  # the extension downloads the cover; dunst draws
mkdir -p "$(dirname "$out")"
import -display "$display" -window root "$out"
echo "saved $out"
grep -h . "$work/device.err" "$work/dunst.log" || true
