#!/usr/bin/env bash
# The test command: installs what the build and tests need on a bare Debian machine, then runs every suite.
set -euo pipefail
cd "$(dirname "$0")/.."

# The build itself needs only the toolchain image (libsqlite3-dev and zlib1g-dev are in it; listed for a machine
# without). dbus-daemon runs the desktop tests' session bus; chromium, chromium-driver and python3-selenium drive the
# console's and the device's pages in a real browser (Tests/Browser); postgresql is the server the PostgreSQL store's
# tests run against (a throwaway one, below); nodejs checks the pages' scripts parse; nghttp2-server's nghttpd is the
# reference HTTP/2 server the provider client is tested against (NghttpdInteropTests).
# python3-venv makes the environments the third-party APNs clients from PyPI are installed in (Tests/Clients);
# firefox-esr is the browser whose Push API is tested through Herald's Web Push port (Tests/Browser/firefox_push_test.py).
# libglib2.0-bin's gsettings with gsettings-desktop-schemas is GNOME's do-not-disturb switch, which a Focus follows
# (DesktopDaemonTests, on a keyfile backend).
packages=(libsqlite3-dev zlib1g-dev dbus-daemon chromium chromium-driver python3-selenium curl postgresql nodejs nghttp2-server
  python3-venv firefox-esr libglib2.0-bin gsettings-desktop-schemas)
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

# Each phase's start, with the seconds since this script started, so a slow CI run shows where the time went.
phase() { echo "== $1 (at ${SECONDS} s)"; }

phase "lint"
# The tree stays formatted (.swift-format; `swift format format -i -r --parallel Sources Tests Examples Package.swift Fuzz`).
swift format lint --strict --parallel -r Sources Tests Examples Package.swift Fuzz/Package.swift Fuzz/Sources
# No C header or system library beyond the toolchain image's, so `swift run herald` builds on a bare machine; the
# module map in docs/architecture.md holds (each module imports only what is declared above it); no broken doc link.
scripts/check-build-needs.sh
scripts/check-modules.py
scripts/check-doc-links.py
# The pages' scripts parse as the modules browsers load (nodejs, syntax only). Debian's eslint (6.4) is older than the
# syntax they use (top-level await, `??=`) and Debian packages no CSS linter.
for script in Sources/*/Assets/*.js Sources/*/*/Assets/*.js; do
  node --input-type=module --check <"$script" || { echo "$script does not parse" >&2; exit 1; }
done
phase "build"
swift build --build-tests
# A throwaway PostgreSQL server for the PostgreSQL store's tests (each makes a database of its own on it), removed on
# exit whatever the outcome. Its tests are skipped where HERALD_TEST_POSTGRES_URL is unset; here it is always set.
postgres_dir=$(mktemp -d -u "${TMPDIR:-/tmp}/herald-test-postgres.XXXXXX")
trap 'scripts/postgres-test-server.sh stop "$postgres_dir"' EXIT
if ! HERALD_TEST_POSTGRES_URL=$(scripts/postgres-test-server.sh start "$postgres_dir"); then
  echo "the test PostgreSQL server did not start; the PostgreSQL store cannot be tested" >&2
  exit 1
fi
export HERALD_TEST_POSTGRES_URL
# Every Swift suite in one run, at most 8 tests at a time (swift-testing's SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH;
# `swift test` has no flag for it): 753 tests in about 70 s on 2 cores. Unbounded, all 700 started at once and starved
# one another past their TLS handshakes and store deadlines (2 to 5 failures in each of 3 runs on 2026-11-28); at 8,
# none in 5 runs (2 of them every suite, PostgreSQL's too), and faster (without the PostgreSQL suites: 53–57 s at 8,
# 56 s at 16, 67 s at 4). Child processes
# start through CSpawn's posix_spawn, not Foundation's Process.run(), which crashed now and then with many descriptors
# open (swift-corelibs-foundation#5472). `scripts/test.sh --no-parallel` runs one test at a time. A stalled run fails
# after 10 minutes instead of holding CI.
phase "Swift tests"
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=8 timeout 600 swift test --skip-build "$@"
# The console, the browser device and the device's notification center in headless Chromium against a real
# `herald serve` (and `herald device`); about 20 s each. Debian's python3 has Debian's selenium.
# `scripts/console-screenshots.sh` runs them to refresh docs/images.
phase "browser walks"
herald="$(swift build --show-bin-path)/herald"
timeout 300 /usr/bin/python3 Tests/Browser/console_test.py "$herald"
timeout 300 /usr/bin/python3 Tests/Browser/keys_and_devices_test.py "$herald"
timeout 300 /usr/bin/python3 Tests/Browser/log_test.py "$herald"
timeout 300 /usr/bin/python3 Tests/Browser/notification_center_test.py "$herald"
timeout 300 /usr/bin/python3 Tests/Browser/live_activity_test.py "$herald"
timeout 300 /usr/bin/python3 Tests/Browser/faults_test.py "$herald"
timeout 300 /usr/bin/python3 Tests/Browser/webpush_console_test.py "$herald"
# Widely used APNs clients from PyPI against `herald serve --ephemeral` with fault rules (docs/clients.md): each sees
# a 200, an injected 410 and 429 as its own result or error type. Their virtual environments are kept in .build, made
# again when a requirements file changes.
phase "third-party clients"
clients() { # clients NAME REQUIREMENTS: the environment's python, made or reused
  local dir=".build/python-clients/$1" sum
  sum=$(sha256sum "$2" | cut -c1-16)
  if [ ! -x "$dir/bin/python" ] || [ "$(cat "$dir/requirements.sum" 2>/dev/null)" != "$sum" ]; then
    rm -rf "$dir" && /usr/bin/python3 -m venv "$dir" && "$dir/bin/pip" install -q -r "$2" && echo "$sum" >"$dir/requirements.sum"
  fi
  echo "$dir/bin/python"
}
timeout 300 "$(clients apns Tests/Clients/requirements.txt)" Tests/Clients/python_clients_test.py "$herald"
timeout 300 "$(clients django Tests/Clients/requirements-django.txt)" Tests/Clients/python_clients_test.py "$herald" django-push-notifications
# Web Push senders from PyPI (pywebpush, py-vapid) and curl: accepted messages reach the subscriber, and each of Apple's
# refusals reaches the sender as Apple answers it (docs/web-push.md).
timeout 300 "$(clients webpush Tests/Clients/requirements-webpush.txt)" Tests/Clients/webpush_clients_test.py "$herald"
# A real Firefox ESR's Push API through the Web Push port: subscribe, push, offline, unsubscribe.
timeout 300 "$(clients webpush Tests/Clients/requirements-webpush.txt)" Tests/Browser/firefox_push_test.py "$herald"
# A UnifiedPush app's connector (dbus-next) on a session bus of the test's own: `herald device` as its distributor, pushes
# from pywebpush, D-Bus activation, unregistering (docs/unifiedpush.md).
timeout 300 "$(clients unifiedpush Tests/Clients/requirements-unifiedpush.txt)" Tests/Clients/unifiedpush_test.py "$herald"
phase "done"
