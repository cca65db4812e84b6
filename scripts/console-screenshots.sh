#!/usr/bin/env bash
# Refreshes the pages' screenshots in docs/images: the browser tests (Tests/Browser) take them from a real
# `herald serve` (and `herald device --ui-port`) in headless Chromium as they check each page.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build
herald="$(swift build --show-bin-path)/herald"
/usr/bin/python3 Tests/Browser/console_test.py "$herald" docs/images
/usr/bin/python3 Tests/Browser/keys_and_devices_test.py "$herald" docs/images
/usr/bin/python3 Tests/Browser/log_test.py "$herald" docs/images
/usr/bin/python3 Tests/Browser/notification_center_test.py "$herald" docs/images
/usr/bin/python3 Tests/Browser/live_activity_test.py "$herald" docs/images
/usr/bin/python3 Tests/Browser/faults_test.py "$herald" docs/images
/usr/bin/python3 Tests/Browser/webpush_console_test.py "$herald" docs/images
.build/python-clients/webpush/bin/python Tests/Browser/firefox_push_test.py "$herald" docs/images  # its environment: scripts/test.sh makes it
