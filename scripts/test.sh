#!/usr/bin/env bash
# The test command: installs what the build and tests need on a bare Debian machine, then runs every suite.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(libsqlite3-dev zlib1g-dev)
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

swift build --build-tests
# A stalled test run fails after 10 minutes instead of holding CI (a full run takes about 10 s).
timeout 600 swift test --skip-build "$@"
