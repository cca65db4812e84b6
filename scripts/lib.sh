# What the benchmark and screenshot scripts share. Source it first thing:
#
#   source "$(dirname "$0")/lib.sh"
#   start_work bench-presented            # $work: a new /tmp/herald-bench-presented.XXXXXX (under $WORK_BASE if
#                                         # set), removed at exit
#   herald serve … & stop_at_exit $!      # stopped (SIGTERM) at exit, whatever the outcome
#
# $root is the repository. KEEP=1 keeps $work and says where it is.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=""
exit_pids=()

start_work() {
  work=$(mktemp -d "${WORK_BASE:-/tmp}/herald-$1.XXXXXX")
  trap finish_work EXIT
}

stop_at_exit() {
  exit_pids+=("$@")
}

finish_work() {
  for pid in "${exit_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}

# need_desktop: installs what start_desktop uses (Debian's xvfb, dbus-daemon, dunst, ImageMagick) when missing.
need_desktop() {
  need=()
  for package in xvfb x11-xserver-utils dunst imagemagick dbus-daemon; do dpkg -s "$package" >/dev/null 2>&1 || need+=("$package"); done
  if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
  fi
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

wait_for() { # wait_for SECONDS COMMAND...: until COMMAND succeeds
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { echo "timed out waiting for: $*" >&2; return 1; }
    sleep 0.1
  done
}

# start_desktop WIDTHxHEIGHT: a screen (Xvfb; $display, DISPLAY), a private session bus (DBUS_SESSION_BUS_ADDRESS) and
# dunst on it, drawing bubbles at the top right; all stopped at exit. Needs start_work first.
start_desktop() {
  display=:$((RANDOM % 400 + 100))
  Xvfb "$display" -screen 0 "$1"x24 -nolisten tcp &
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
[urgency_low]
    background = "#2e3440"
    foreground = "#eceff4"
    timeout = 0
[urgency_normal]
    background = "#2e3440"
    foreground = "#eceff4"
    timeout = 0
EOF
  dunst -config "$work/dunstrc" 2>"$work/dunst.log" &
  stop_at_exit $!
  wait_for 10 dbus-send --session --dest=org.freedesktop.Notifications --print-reply /org/freedesktop/Notifications \
    org.freedesktop.Notifications.GetServerInformation
}

# start_gateway HERALD TOPIC: `herald serve` on free ports with its data in $work/gateway (its CA in
# $work/gateway/tls/ca.pem; $provider_port, $device_port), stopped at exit, and a key for TOPIC in $work/key.p8
# (team TEAM123456, key KEY1234567). Needs start_work first.
start_gateway() {
  provider_port=$(free_port) device_port=$(free_port)
  "$1" serve --data-dir "$work/gateway" --provider-port "$provider_port" --device-port "$device_port" \
    --console-port "$(free_port)" --channels-port 0 --webpush-port 0 >"$work/serve.log" 2>&1 &
  stop_at_exit $!
  wait_for 30 test -s "$work/gateway/tls/ca.pem"
  "$1" keys create --data-dir "$work/gateway" --team-id TEAM123456 --key-id KEY1234567 --topic "$2" --out "$work/key.p8" >/dev/null
}
