#!/usr/bin/env bash
# The test command: installs what the build and tests need on a bare Debian machine, then runs every suite.
set -euo pipefail
cd "$(dirname "$0")/.."

# The build itself needs only the toolchain image (libsqlite3-dev and zlib1g-dev are in it; listed for a machine
# without). dbus-daemon runs the desktop tests' session bus; chromium, chromium-driver and python3-selenium drive the
# console's and the device's pages in a real browser (Tests/Browser); postgresql is the server the PostgreSQL store's
# tests run against (a throwaway one, below).
packages=(libsqlite3-dev zlib1g-dev dbus-daemon chromium chromium-driver python3-selenium curl postgresql)
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

# The tree stays formatted (.swift-format; `swift format format -i -r --parallel Sources Tests Examples Package.swift Fuzz`).
swift format lint --strict --parallel -r Sources Tests Examples Package.swift Fuzz/Package.swift Fuzz/Sources
# No C header or system library beyond the toolchain image's, so `swift run herald` builds on a bare machine.
scripts/check-build-needs.sh
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
# In parallel (about 25 s on 2 cores; 80 s serially). Child processes start through CSpawn's posix_spawn, not
# Foundation's Process.run(), which crashed now and then with many descriptors open (swift-corelibs-foundation#5472),
# and protocol timers are tested on virtual time: 12 of 12 parallel runs green, 2 of them with one core kept busy.
# `scripts/test.sh --no-parallel` runs one test at a time. A stalled run fails after 10 minutes instead of holding CI.
# The suites that hold calls to wall-clock deadlines of a second or two (PostgreSQL going away, a silent server, a busy
# SQLite file) run afterwards one test at a time (about 15 s): on 2 cores the parallel run can starve a test for more
# than 3 s, and a deadline then looks missed (CI failed that way twice).
# The suites on the PostgreSQL server run in a parallel run of their own (about 10 s): beside the 700 others, the
# server (fsync on, a database per test) was starved past the store's 5 s deadlines now and then.
deadline_suites='PostgresOutageTests|PostgresErrorTests|PostgresSchemaTests|ClusterOutageTests|StoreBusyTests'
postgres_suites='ClusterTests|MigrateCommandTests|PostgresCommitTests|PostgresDeliveryLogTests|PostgresLoggingTests|PostgresStoreConformanceTests|QuickStartTests'
timeout 600 swift test --skip-build --skip "$deadline_suites|$postgres_suites" "$@"
timeout 300 swift test --skip-build --filter "$postgres_suites" "$@"
timeout 300 swift test --skip-build --filter "$deadline_suites" --no-parallel
# The console, the browser device and the device's notification center in headless Chromium against a real
# `herald serve` (and `herald device`); about 20 s each. Debian's python3 has Debian's selenium.
# `scripts/console-screenshots.sh` runs them to refresh docs/images.
herald="$(swift build --show-bin-path)/herald"
timeout 300 /usr/bin/python3 Tests/Browser/console_test.py "$herald"
timeout 300 /usr/bin/python3 Tests/Browser/keys_and_devices_test.py "$herald"
timeout 300 /usr/bin/python3 Tests/Browser/log_test.py "$herald"
timeout 300 /usr/bin/python3 Tests/Browser/notification_center_test.py "$herald"
# Every fuzz target for 15 s on its seed corpus (docs/reliability.md), so a parser that now crashes on them, or on
# what 15 s of mutation finds, fails CI: about 3 minutes of build (every module instrumented) and 2.5 of runs.
scripts/fuzz.sh all 15
