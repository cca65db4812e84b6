#!/usr/bin/env bash
# Refreshes the console's screenshots in docs/images: the browser test (Tests/Browser/console_test.py) takes them
# from a real `herald serve` in headless Chromium as it checks each page.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build
herald="$(swift build --show-bin-path)/herald"
/usr/bin/python3 Tests/Browser/console_test.py "$herald" docs/images
/usr/bin/python3 Tests/Browser/keys_and_devices_test.py "$herald" docs/images
/usr/bin/python3 Tests/Browser/log_test.py "$herald" docs/images
