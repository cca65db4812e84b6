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
need_desktop
out=$(realpath -m "${1:-$root/docs/images/desktop-notification.png}")

cd "$root"
swift build --product herald >/dev/null
swift build --product PodcastApp >/dev/null
swift build --product PodcastServiceExtension >/dev/null
bin=$(swift build --show-bin-path)

start_work desktop

start_desktop 720x200

# The gateway, a key, the podcast app with an icon.
start_gateway "$bin/herald" com.example.podcast
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
