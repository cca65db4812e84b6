# What the benchmark and screenshot scripts share. Source it first thing:
#
#   source "$(dirname "$0")/lib.sh"
#   start_work bench-presented            # $work: a new /tmp/herald-bench-presented.XXXXXX, removed at exit
#   herald serve … & stop_at_exit $!      # stopped (SIGTERM) at exit, whatever the outcome
#
# $root is the repository. KEEP=1 keeps $work and says where it is.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=""
exit_pids=()

start_work() {
  work=$(mktemp -d "/tmp/herald-$1.XXXXXX")
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
