#!/usr/bin/env bash
# Builds the libFuzzer targets (the Fuzz/ package) and runs one or all of them for SECONDS each on their seed
# corpora (Fuzz/Corpus/TARGET), printing per target the runs, the coverage and the crashes. Exits non-zero when a
# target crashed, keeping the input that crashed it. New corpus entries go to a scratch directory, never into the
# repository: $HERALD_FUZZ_DIR, by default ${TMPDIR:-/tmp}/herald-fuzz (TARGET/corpus, TARGET/crashes, TARGET/log).
#
#   scripts/fuzz.sh                      # every target, 60 s each
#   scripts/fuzz.sh FuzzJSON 3600        # one target for an hour
#   scripts/fuzz.sh all 20               # what scripts/test.sh runs
#   Fuzz/.build/debug/FuzzJSON CRASH     # replays one crashing input (after a build)
#
# docs/reliability.md says what each target checks and what it found.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:-all}
seconds=${2:-60}
scratch=${HERALD_FUZZ_DIR:-${TMPDIR:-/tmp}/herald-fuzz}
targets=(
  FuzzJSON FuzzPayload FuzzProviderToken FuzzDeviceLink FuzzSimulatorPushFile FuzzRequestHeaders FuzzDaemonSocket
  FuzzAttachments FuzzInfoPlist
)
if [ "$target" != all ]; then
  if [[ " ${targets[*]} " != *" $target "* ]]; then
    echo "unknown target $target; the targets are: ${targets[*]}" >&2
    exit 2
  fi
  targets=("$target")
fi

# The same dependency versions as the root package (which is a path dependency of Fuzz/).
if [ ! -f Fuzz/Package.resolved ] && [ -f Package.resolved ]; then cp Package.resolved Fuzz/Package.resolved; fi
# A debug build (the root's modules testable, for their package symbols), every module instrumented for coverage and
# AddressSanitizer: about 3 minutes from clean on 2 cores, as the fuzz targets need only HeraldWire, UserNotifications,
# swift-crypto and swift-nio(-http2).
echo "building the fuzz targets"
build=(swift build --package-path Fuzz -Xswiftc -sanitize=fuzzer,address)
if ! "${build[@]}" >"${TMPDIR:-/tmp}/herald-fuzz-build.log" 2>&1; then
  grep -E "error" "${TMPDIR:-/tmp}/herald-fuzz-build.log" | grep -v "Cannot export local symbol" >&2 || true
  echo "the fuzz build failed; its log: ${TMPDIR:-/tmp}/herald-fuzz-build.log" >&2
  exit 1
fi
bin=$("${build[@]}" --show-bin-path)

# Leaks are not crashes: swift-corelibs-foundation's PropertyListSerialization leaks about 400 bytes a call.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
crashed=()
for name in "${targets[@]}"; do
  dir="$scratch/$name"
  mkdir -p "$dir/corpus" "$dir/crashes"
  # The scratch corpus comes first: libFuzzer writes what it finds there and only reads the seeds.
  status=0
  "$bin/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=0 -print_final_stats=1 \
    -artifact_prefix="$dir/crashes/" "$dir/corpus" "Fuzz/Corpus/$name" >"$dir/log" 2>&1 || status=$?
  runs=$(grep -o "stat::number_of_executed_units: [0-9]*" "$dir/log" | grep -o "[0-9]*$" || echo "?")
  coverage=$(grep -oE "cov: [0-9]+ ft: [0-9]+" "$dir/log" | tail -1 || true)
  if [ "$status" -ne 0 ]; then
    crash=$(grep -o "Test unit written to .*" "$dir/log" | sed 's/Test unit written to //' | tail -1)
    echo "$name: ${seconds} s, runs ${runs}, ${coverage:-no coverage line}, CRASHED (exit $status): input ${crash:-?}, log $dir/log"
    grep -E "Fatal error|ERROR: AddressSanitizer|ERROR: libFuzzer|deadly signal" "$dir/log" | head -3 | sed 's/^/  /'
    crashed+=("$name")
  else
    echo "$name: ${seconds} s, runs ${runs}, ${coverage:-no coverage line}, crashes: none"
  fi
done
if [ ${#crashed[@]} -gt 0 ]; then
  echo "crashed: ${crashed[*]}" >&2
  exit 1
fi
