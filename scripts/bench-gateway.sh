#!/usr/bin/env bash
# Gateway throughput and latency, measured against nginx on the same machine in the same run.
#
#   scripts/bench-gateway.sh            # defaults below; REQUESTS=500000 scripts/bench-gateway.sh for a longer run
#   HERALD_BIN=/tmp/a scripts/bench-gateway.sh   # the herald in /tmp/a, built by you (alternate two builds' runs)
#   TOKENS=5000 scripts/bench-gateway.sh  # the load spread over 5,000 device tokens (costs that grow with the tokens)
#   PROFILE=1 scripts/bench-gateway.sh  # instead: where herald's CPU goes (perf), and its system calls per notification
#   INSTRUCTIONS=1 scripts/bench-gateway.sh  # instead: herald's instructions per notification, taken apart (valgrind's
#                                            # callgrind; REQUESTS defaults to 20,000 there, about 2 minutes)
#   DISKLESS=1 scripts/bench-gateway.sh   # the store on tmpfs (/dev/shm), where fdatasync costs nothing: the gateway's
#                                         # own share of the latency, without the disk's (its 200s are not durable there)
#
# 1. Builds the release `herald`, creates a key and 50 device tokens, starts `herald serve` (TLS, SQLite, defaults)
#    and nginx answering 200 over HTTP/2 + TLS with the same certificate.
# 2. h2load: 10 connections x 100 streams, round-robin over the 50 tokens -> accepted notifications/s, and the
#    gateway's CPU time per notification (steadier than the rate on a shared machine: compare changes by it);
#    then nginx driven the same way -> responses/s. ROUNDS rounds, alternating, each rate's median counts: on a
#    shared machine one disturbed run would otherwise decide the ratio.
# 3. h2load at a fixed 10,000 requests/s -> p50 / p99 latency from h2load's per-request log, for herald and nginx,
#    with scripts/disk-sync.py probing the disk at 100 syncs/s meanwhile: a disk that stalls during the run (a
#    shared VM's often does) holds every commit, and no p99 is then under its stalls.
# Checks that the SQLite store holds as many notifications as were answered 200 (fails otherwise). Targets: >= 40,000/s, >= 0.45x nginx, p99 < 5 ms at 10,000/s.
set -euo pipefail

if [ "${INSTRUCTIONS:-0}" = 1 ]; then REQUESTS=${REQUESTS:-20000} WARMUP=${WARMUP:-2000}; fi
REQUESTS=${REQUESTS:-300000}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-10}
STREAMS=${STREAMS:-100}
TOKENS=${TOKENS:-50}
RATE=${RATE:-10000}
RATE_SECONDS=${RATE_SECONDS:-10}
PROVIDER_PORT=${PROVIDER_PORT:-12197}
CONSOLE_PORT=${CONSOLE_PORT:-18080}
NGINX_PORT=${NGINX_PORT:-12443}

source "$(dirname "$0")/lib.sh"
need=()
command -v h2load >/dev/null || need+=(nghttp2-client)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)
if [ "${INSTRUCTIONS:-0}" = 1 ]; then
  command -v valgrind >/dev/null || need+=(valgrind)
  command -v objcopy >/dev/null || need+=(binutils)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}" >&2
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

if [ -n "${HERALD_BIN:-}" ]; then
  herald="$HERALD_BIN/herald"  # a build of your own, for A/B runs of two builds: nothing is built
else
  (cd "$root" && swift build -c release --product herald >&2)
  herald="$root/.build/release/herald"
fi

if [ "${DISKLESS:-0}" = 1 ]; then export WORK_BASE=/dev/shm; fi
start_work bench
chmod 755 "$work"

data="$work/data"
"$herald" keys create --data-dir "$data" --team-id BENCHTEAM1 --key-id BENCHKEY01 --out "$work/key.p8" >/dev/null
# A build from before `tokens issue --count` (HERALD_BIN) issues them one call each.
{ "$herald" tokens issue --data-dir "$data" --topic com.example.bench --count "$TOKENS" 2>/dev/null ||
  for _ in $(seq "$TOKENS"); do "$herald" tokens issue --data-dir "$data" --topic com.example.bench; done; } |
  sed "s|^|https://localhost:$PROVIDER_PORT/3/device/|" > "$work/uris"
jwt=$("$herald" jwt --p8 "$work/key.p8" --key-id BENCHKEY01 --team-id BENCHTEAM1)
echo '{"aps":{"alert":{"title":"Benchmark","body":"Hello from h2load"},"badge":1,"sound":"default"},"id":42}' > "$work/payload.json"

launcher=()
if [ "${INSTRUCTIONS:-0}" = 1 ]; then
  # callgrind counts every instruction herald executes once instrumentation is switched on (after the warm-up). valgrind
  # 3.19 cannot read the DWARF 5 debug information Swift writes, so it runs a copy without it (symbols kept), and
  # needs scripts/valgrind-sigsuspend.c preloaded to run Swift concurrency at all.
  objcopy --strip-debug "$herald" "$work/herald-for-valgrind"
  clang -shared -fPIC -O2 "$root/scripts/valgrind-sigsuspend.c" -o "$work/valgrind-sigsuspend.so"
  launcher=(env LD_PRELOAD="$work/valgrind-sigsuspend.so" valgrind -q --tool=callgrind --instr-atstart=no
    --callgrind-out-file="$work/callgrind.out")
  herald_run="$work/herald-for-valgrind"
else
  herald_run=$herald
fi
"${launcher[@]}" "$herald_run" serve --data-dir "$data" --provider-port "$PROVIDER_PORT" --console-port "$CONSOLE_PORT" --channels-port 0 --webpush-port 0 \
  --quiet 2>"$work/herald.log" &
herald_pid=$!
stop_at_exit "$herald_pid"
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$CONSOLE_PORT/healthz" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$CONSOLE_PORT/healthz" >/dev/null || { echo "herald did not start; see $work/herald.log (KEEP=1 keeps it)" >&2; exit 1; }

load() { # load URI-FILE|URI [extra h2load flags...]
  local target=$1; shift
  local input=()
  if [ -f "$target" ]; then input=(-i "$target"); else input=("$target"); fi
  h2load -c "$CONNECTIONS" -m "$STREAMS" -t 1 -d "$work/payload.json" \
    -H "authorization: bearer $jwt" -H "apns-topic: com.example.bench" -H "apns-push-type: alert" \
    "$@" "${input[@]}"
}
rate_of() { sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p'; }
ok_of() { sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p'; }

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }  # user + system time of a process, in clock ticks

cat > "$work/nginx.conf" <<CONF
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/nginx-body;
  keepalive_requests 10000000;
  server {
    listen $NGINX_PORT ssl http2;
    ssl_certificate $data/tls/server.pem;
    ssl_certificate_key $data/tls/server-key.pem;
    location / { return 200; }
  }
}
CONF
"$NGINX" -c "$work/nginx.conf" -g 'daemon off;' &
stop_at_exit $!
nginx_uri="https://localhost:$NGINX_PORT/3/device/x"
sleep 1

warm_ok=$(load "$work/uris" -n "${WARMUP:-20000}" | ok_of)     # warm up: connections, caches, SQLite pages
if [ "${INSTRUCTIONS:-0}" = 1 ]; then
  callgrind_control -i on "$herald_pid" >/dev/null
  ok=$(load "$work/uris" -n "$REQUESTS" | ok_of)
  callgrind_control -d "$herald_pid" >/dev/null
  [ "$ok" = "$REQUESTS" ] || { echo "only $ok of $REQUESTS answered 200" >&2; exit 1; }
  "$root/scripts/instructions-breakdown.py" "$(ls -t "$work"/callgrind.out* | head -1)" "$REQUESTS"
  exit 0
fi
if [ "${PROFILE:-0}" = 1 ]; then
  # perf samples every thread of herald through one load (its CPU measured as in the rounds), then syscall
  # tracepoints count its system calls through another; scripts/profile-breakdown.py prints the table.
  command -v perf >/dev/null || { apt-get update -qq && apt-get install -y -qq linux-perf >/dev/null; }
  perf record -q -g -F 1999 -p "$herald_pid" -o "$work/perf.data" 2>/dev/null &
  perf_pid=$!
  sleep 0.5
  ticks_before=$(cpu_ticks "$herald_pid")
  load "$work/uris" -n "$REQUESTS" >/dev/null
  ticks_after=$(cpu_ticks "$herald_pid")
  kill -INT "$perf_pid" && wait "$perf_pid" || true
  cpu=$(python3 -c "print(($ticks_after - $ticks_before) / $(getconf CLK_TCK) / $REQUESTS * 1e6)")
  calls=()
  for call in read readv write writev sendmsg recvmsg sendto recvfrom pwrite64 pread64 fdatasync fsync epoll_wait futex; do
    calls+=(-e "syscalls:sys_enter_$call")
  done
  perf stat -x, -o "$work/syscalls.csv" -e raw_syscalls:sys_enter "${calls[@]}" -p "$herald_pid" &
  stat_pid=$!
  sleep 0.5
  load "$work/uris" -n "$REQUESTS" >/dev/null
  kill -INT "$stat_pid" && wait "$stat_pid" || true
  "$root/scripts/profile-breakdown.py" "$work/perf.data" "$work/syscalls.csv" "$REQUESTS" "$cpu"
  exit 0
fi
load "$nginx_uri" -n 20000 >/dev/null
herald_rates=() nginx_rates=() herald_ok=0 herald_ticks=0
for _ in $(seq "$ROUNDS"); do
  ticks_before=$(cpu_ticks "$herald_pid")
  herald_out=$(load "$work/uris" -n "$REQUESTS")
  ticks_after=$(cpu_ticks "$herald_pid")
  herald_rates+=("$(rate_of <<<"$herald_out")")
  herald_ok=$((herald_ok + $(ok_of <<<"$herald_out")))
  herald_ticks=$((herald_ticks + ticks_after - ticks_before))
  nginx_rates+=("$(rate_of <<<"$(load "$nginx_uri" -n "$REQUESTS")")")
done
# CPU per request barely depends on what else the machine runs: the figure to compare changes by.
cpu_per_request=$(python3 -c "print(f'{$herald_ticks / $(getconf CLK_TCK) / ($REQUESTS * $ROUNDS) * 1e6:.1f}')")

paced() { # paced URI-FILE|URI LOG: RATE requests/s for RATE_SECONDS, each request's time in LOG
  load "$1" -D "$RATE_SECONDS" --warm-up-time 1 --rps $((RATE / CONNECTIONS)) --log-file "$2" >/dev/null
}
percentiles() { # percentiles LOG -> "p50 p99 count" in ms, from h2load's per-request log
  python3 - "$1" <<'PY'
import sys
times = sorted(int(line.split("\t")[2]) for line in open(sys.argv[1]) if line.strip())
pick = lambda q: times[min(len(times) - 1, int(q * len(times)))] / 1000
print(f"{pick(0.50):.2f} {pick(0.99):.2f} {len(times)}")
PY
}

if [ "${DISKLESS:-0}" != 1 ]; then
  "$root/scripts/disk-sync.py" "$data" $((RATE_SECONDS + 1)) 100 "disk meanwhile" >"$work/disk-meanwhile.txt" &
  probe_pid=$!
fi
paced "$work/uris" "$work/latency.log"
[ -z "${probe_pid:-}" ] || wait "$probe_pid"
read -r p50 p99 served < <(percentiles "$work/latency.log")

stored=$(python3 - "$data/herald.sqlite" <<'PY'
import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("select count(*) from notification").fetchone()[0])
PY
)
# Every 200 (warm-up, rounds, paced run) must be a row. There are more rows: the paced run's first second is not logged.
latency_ok=$(awk -F'\t' '$2 == 200' "$work/latency.log" | wc -l)
answered_ok=$((warm_ok + herald_ok + latency_ok))
if [ "$stored" -lt "$answered_ok" ]; then
  echo "LOST: $answered_ok notifications answered 200, $stored in the store" >&2
  exit 1
fi

# The same pacing against a server that answers at once: what h2load and the shared cores add by themselves.
paced "$nginx_uri" "$work/nginx-latency.log"
read -r nginx_p50 nginx_p99 _ < <(percentiles "$work/nginx-latency.log")

python3 - <<PY
from statistics import median
herald_rates, nginx_rates = [float(r) for r in "${herald_rates[*]}".split()], [float(r) for r in "${nginx_rates[*]}".split()]
herald, nginx = median(herald_rates), median(nginx_rates)
rounds = lambda rates: ", ".join(f"{r:,.0f}" for r in rates)
print(f"herald gateway : {herald:10,.0f} notifications/s, median of $ROUNDS rounds ({rounds(herald_rates)}); {$herald_ok} of {$REQUESTS * $ROUNDS} answered 200, every one of the {$answered_ok} 200s incl. warm-up and latency runs in the store ({$stored} rows)")
print(f"herald CPU     : {$cpu_per_request:10.1f} µs per notification (user + system, all threads)")
print(f"nginx (200)    : {nginx:10,.0f} responses/s, median of $ROUNDS rounds ({rounds(nginx_rates)}), alternating with herald's")
print(f"ratio          : {herald / nginx:10.3f} x nginx   (target >= 0.45; throughput target >= 40,000/s)")
print(f"latency at {$RATE:,}/s: p50 $p50 ms, p99 $p99 ms over $served requests   (target p99 < 5 ms)")
print(f"nginx at {$RATE:,}/s  : p50 $nginx_p50 ms, p99 $nginx_p99 ms   (the same pacing answered at once: the load generator's share)")
PY
if [ "${DISKLESS:-0}" = 1 ]; then
  echo "diskless       : the store was on tmpfs ($data): fdatasync cost nothing, so these are the gateway's own figures"
else
  cat "$work/disk-meanwhile.txt"
  "$root/scripts/disk-sync.py" "$data"
fi
