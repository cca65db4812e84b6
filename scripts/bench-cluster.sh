#!/usr/bin/env bash
# Cluster benchmarks: the provider API's accept rate on PostgreSQL against SQLite, and delivery from one node to a
# device linked to another.
#
#   scripts/bench-cluster.sh                       # both parts, defaults below
#   PARTS=accept scripts/bench-cluster.sh          # one part: accept or latency
#   REQUESTS=500000 ROUNDS=5 scripts/bench-cluster.sh
#
# Starts a throwaway PostgreSQL on this machine (scripts/postgres-test-server.sh: fsync on, synchronous_commit on).
# 1. accept: pgbench first, as the anchor of what this machine's PostgreSQL commits: TPC-B-like (`pgbench -i -s 10`,
#    then -c 10 -j 2 -T PGBENCH_SECONDS) and a one-row insert per transaction (a custom script, the same clients).
#    Then two `herald serve` nodes, one on SQLite (its data directory) and one on PostgreSQL, both TLS and otherwise
#    default; h2load as scripts/bench-gateway.sh drives them (10 connections x 100 streams, round-robin over 50
#    tokens), ROUNDS rounds alternating, each rate the median of its rounds. Prints both rates, their ratio (goal
#    >= 0.5x SQLite), each gateway's CPU per notification (/proc/PID/stat), and PostgreSQL's CPU per notification
#    (all its processes, exited ones included through the postmaster's cutime/cstime). Checks that each store holds
#    as many notifications as were answered 200 (fails otherwise).
# 2. latency: two nodes A and B on a new database; `herald-bench latency` links DEVICES devices to B and sends to A
#    open-loop at RATE/s for SECONDS_EACH; each notification timed from the moment it was due to be sent to A (so
#    A's commit and 200 included) to the device's handler on B, and from A's 200 to the device. Then the devices on
#    A, the same-node baseline, alternating, LATENCY_ROUNDS each. Goal: cross-node p99 < 50 ms.
# Installs h2load and PostgreSQL (server, client, pgbench) from Debian when they are missing.
set -euo pipefail

PARTS=${PARTS:-"accept latency"}
REQUESTS=${REQUESTS:-200000}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-10}
STREAMS=${STREAMS:-100}
TOKENS=${TOKENS:-50}
PGBENCH_SECONDS=${PGBENCH_SECONDS:-10}
RATE=${RATE:-1000}
SECONDS_EACH=${SECONDS_EACH:-10}
DEVICES=${DEVICES:-100}
LATENCY_ROUNDS=${LATENCY_ROUNDS:-2}
BASE_PORT=${BASE_PORT:-15000}  # SQLite node BASE+11.., PostgreSQL node BASE+21.., latency nodes A BASE+31.., B BASE+41..
TOPIC=com.example.bench

need=()
command -v h2load >/dev/null || need+=(nghttp2-client)
command -v psql >/dev/null || need+=(postgresql-client)
command -v pgbench >/dev/null || need+=(postgresql-contrib)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null || need+=(postgresql)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}" >&2
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
PGBENCH=$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench | sort -V | tail -n 1)

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/herald-bench-cluster.XXXXXX)
chmod 755 "$work"  # PostgreSQL runs as another user when this runs as root
echo "building release herald and herald-bench" >&2
(cd "$root" && swift build -c release --product herald && swift build -c release --product herald-bench) >"$work/build.log" 2>&1 \
  || { cat "$work/build.log" >&2; exit 1; }
herald="$root/.build/release/herald"
bench="$root/.build/release/herald-bench"
pgserver="$root/scripts/postgres-test-server.sh"

pids=()
pg_started=0
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ $pg_started = 1 ] && "$pgserver" stop "$work/pg" || true
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

maintenance=$("$pgserver" start "$work/pg")
pg_started=1
database() { # database NAME: creates it, prints its URL
  psql "$maintenance" -qc "CREATE DATABASE $1" >/dev/null
  echo "${maintenance%/postgres}/$1"
}
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); PostgreSQL $(psql "$maintenance" -tAc 'SHOW server_version'), fsync $(psql "$maintenance" -tAc 'SHOW fsync'), synchronous_commit $(psql "$maintenance" -tAc 'SHOW synchronous_commit')"

# serve NAME STORE PORT-BASE [flags]: starts a node (provider PORT-BASE+0, device +1, console +2), waits for /healthz.
serve() {
  local name=$1 store=$2 port=$3; shift 3
  "$herald" serve --store "$store" --data-dir "$work/$name" --node-name "$name" --provider-port "$port" \
    --device-port $((port + 1)) --console-port $((port + 2)) --channels-port 0 --webpush-port 0 --quiet "$@" 2>>"$work/$name.log" &
  pids+=($!)
  last_pid=$!
  for _ in $(seq 300); do curl -sf "http://127.0.0.1:$((port + 2))/healthz" >/dev/null && return; sleep 0.05; done
  echo "$name did not start; see $work/$name.log" >&2
  exit 1
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }  # user + system time of a process, in clock ticks
# PostgreSQL's CPU so far: the postmaster's own and its reaped children's, and each live child's.
pg_ticks() {
  python3 - "$(head -n 1 "$work/pg/data/postmaster.pid")" <<'PY'
import os, sys
main = int(sys.argv[1])
def fields(pid):  # /proc/PID/stat from the state (field 3) on
    text = open(f"/proc/{pid}/stat").read()
    return text[text.rindex(")") + 2:].split()
own = fields(main)
total = sum(int(value) for value in own[11:15])  # utime stime cutime cstime
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        child = fields(pid)
    except OSError:
        continue
    if int(child[1]) == main:
        total += int(child[11]) + int(child[12])
print(total)
PY
}
per_notification() { python3 -c "import sys; print(f'{int(sys.argv[1]) / $(getconf CLK_TCK) / int(sys.argv[2]) * 1e6:.1f}')" "$1" "$2"; }

accept_part() {
  echo "accept: pgbench, then SQLite and PostgreSQL nodes alternating, $ROUNDS rounds of $REQUESTS" >&2
  local pgbench_url
  pgbench_url=$(database pgbench)
  "$PGBENCH" -i -q -s 10 "$pgbench_url" >"$work/pgbench-init.log" 2>&1
  pgbench_tpcb=$("$PGBENCH" -c 10 -j 2 -T "$PGBENCH_SECONDS" "$pgbench_url" 2>&1 | sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
  psql "$pgbench_url" -qc "CREATE TABLE one_row (id bigserial PRIMARY KEY, payload text NOT NULL)" >/dev/null
  echo "INSERT INTO one_row (payload) VALUES (repeat('x', 200));" >"$work/insert.sql"
  pgbench_insert=$("$PGBENCH" -n -c 10 -j 2 -T "$PGBENCH_SECONDS" -f "$work/insert.sql" "$pgbench_url" 2>&1 | sed -n 's/^tps = \([0-9.]*\) .*/\1/p')

  local store_url
  store_url=$(database herald)
  local name store
  for name in sqlite postgres; do
    store=sqlite
    [ $name = postgres ] && store=$store_url
    "$herald" keys create --store "$store" --data-dir "$work/$name" --team-id BENCHTEAM1 --key-id BENCHKEY01 \
      --out "$work/$name-key.p8" >/dev/null
    jwt[$name]=$("$herald" jwt --p8 "$work/$name-key.p8" --key-id BENCHKEY01 --team-id BENCHTEAM1)
  done
  serve sqlite sqlite $((BASE_PORT + 11))
  pid[sqlite]=$last_pid
  serve postgres "$store_url" $((BASE_PORT + 21))
  pid[postgres]=$last_pid
  for name in sqlite postgres; do
    store=sqlite port=$((BASE_PORT + 11))
    [ $name = postgres ] && store=$store_url port=$((BASE_PORT + 21))
    "$herald" tokens issue --store "$store" --data-dir "$work/$name" --topic "$TOPIC" --count "$TOKENS" |
      sed "s|^|https://localhost:$port/3/device/|" >"$work/$name-uris"
  done
  echo '{"aps":{"alert":{"title":"Benchmark","body":"Hello from h2load"},"badge":1,"sound":"default"},"id":42}' >"$work/payload.json"

  load() { # load NAME [extra h2load flags...]
    local name=$1; shift
    h2load -c "$CONNECTIONS" -m "$STREAMS" -t 1 -d "$work/payload.json" \
      -H "authorization: bearer ${jwt[$name]}" -H "apns-topic: $TOPIC" -H "apns-push-type: alert" \
      "$@" -i "$work/$name-uris"
  }
  rate_of() { sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p'; }
  ok_of() { sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p'; }

  declare -A rates ok ticks
  for name in sqlite postgres; do
    ok[$name]=$(load $name -n 20000 | ok_of)  # warm up: connections, caches, the stores' pages
    rates[$name]="" ticks[$name]=0
  done
  pg_total=0
  local round out before after pg_before pg_after
  for round in $(seq "$ROUNDS"); do
    for name in sqlite postgres; do
      before=$(cpu_ticks "${pid[$name]}")
      pg_before=$(pg_ticks)
      out=$(load $name -n "$REQUESTS")
      after=$(cpu_ticks "${pid[$name]}")
      pg_after=$(pg_ticks)
      rates[$name]+="$(rate_of <<<"$out") "
      ok[$name]=$((ok[$name] + $(ok_of <<<"$out")))
      ticks[$name]=$((ticks[$name] + after - before))
      [ $name = postgres ] && pg_total=$((pg_total + pg_after - pg_before))
      echo "  round $round $name: $(rate_of <<<"$out")/s" >&2
    done
  done

  # Every 200 (warm-up and rounds) must be a row.
  stored[sqlite]=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from notification").fetchone()[0])' "$work/sqlite/herald.sqlite")
  stored[postgres]=$(psql "$store_url" -tAc "SELECT count(*) FROM notification")
  for name in sqlite postgres; do
    if [ "${stored[$name]}" -lt "${ok[$name]}" ]; then
      echo "LOST on $name: ${ok[$name]} notifications answered 200, ${stored[$name]} in the store" >&2
      exit 1
    fi
  done
  local sent=$((REQUESTS * ROUNDS))
  python3 - <<PY
from statistics import median
sqlite_rates, pg_rates = [float(r) for r in "${rates[sqlite]}".split()], [float(r) for r in "${rates[postgres]}".split()]
sqlite, pg = median(sqlite_rates), median(pg_rates)
rounds = lambda rates: ", ".join(f"{r:,.0f}" for r in rates)
print(f"pgbench TPC-B   : {float('$pgbench_tpcb'):10,.0f} transactions/s (scale 10, -c 10 -j 2 -T $PGBENCH_SECONDS)")
print(f"pgbench insert  : {float('$pgbench_insert'):10,.0f} one-row inserts/s, each its own commit (-c 10 -j 2 -T $PGBENCH_SECONDS)")
print(f"herald SQLite   : {sqlite:10,.0f} notifications/s, median of $ROUNDS rounds ({rounds(sqlite_rates)}); {${ok[sqlite]}:,} answered 200 incl. warm-up, {${stored[sqlite]}:,} in the store")
print(f"herald Postgres : {pg:10,.0f} notifications/s, median of $ROUNDS rounds ({rounds(pg_rates)}); {${ok[postgres]}:,} answered 200 incl. warm-up, {${stored[postgres]}:,} in the store")
print(f"ratio           : {pg / sqlite:10.3f} x SQLite   (goal >= 0.5)")
print(f"gateway CPU     : {$(per_notification "${ticks[sqlite]}" $sent):10.1f} µs per notification on SQLite, {$(per_notification "${ticks[postgres]}" $sent):.1f} µs on PostgreSQL (user + system, all threads)")
print(f"PostgreSQL CPU  : {$(per_notification "$pg_total" $sent):10.1f} µs per notification (all its processes)")
PY
  for name in sqlite postgres; do kill "${pid[$name]}"; wait "${pid[$name]}" 2>/dev/null || true; done
}

latency_part() {
  echo "latency: nodes A and B on one PostgreSQL, $RATE/s for $SECONDS_EACH s to A, $DEVICES devices on B, then on A" >&2
  local store_url
  store_url=$(database latency)
  "$herald" keys create --store "$store_url" --data-dir "$work/a" --team-id BENCHTEAM1 --key-id BENCHKEY01 \
    --out "$work/latency-key.p8" >/dev/null
  local jwt_latency
  jwt_latency=$("$herald" jwt --p8 "$work/latency-key.p8" --key-id BENCHKEY01 --team-id BENCHTEAM1)
  serve a "$store_url" $((BASE_PORT + 31)) --device-rate-limit 1000000
  serve b "$store_url" $((BASE_PORT + 41)) --device-rate-limit 1000000
  local round where device_port
  for round in $(seq "$LATENCY_ROUNDS"); do
    for where in cross same; do
      device_port=$((BASE_PORT + 42))
      [ $where = same ] && device_port=$((BASE_PORT + 32))
      "$bench" latency --provider "https://localhost:$((BASE_PORT + 31))" --ca "$work/a/tls/ca.pem" --jwt "$jwt_latency" \
        --topic "$TOPIC" --device-gateway "https://localhost:$device_port" --devices "$DEVICES" --rate "$RATE" \
        --seconds "$SECONDS_EACH" >"$work/latency-$where-$round.txt"
      sed "s/^/  $where-node round $round: /" "$work/latency-$where-$round.txt" >&2
    done
  done
  python3 - "$work" "$LATENCY_ROUNDS" <<'PY'
import re, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def figures(where, label):
    out = []
    for round in range(1, rounds + 1):
        for line in open(f"{work}/latency-{where}-{round}.txt"):
            if line.startswith(label):
                marks = dict(re.findall(r"(p50|p99|max) ([0-9.]+) ms", line))
                out.append(f"p50 {marks['p50']} ms, p99 {marks['p99']} ms, max {marks['max']} ms")
    return "; ".join(out)
def delivered(where):
    out = []
    for round in range(1, rounds + 1):
        for line in open(f"{work}/latency-{where}-{round}.txt"):
            match = re.match(r"timed (\d+) in .* accepted (\d+), delivered (\d+)", line)
            if match:
                out.append(f"{match[3]} of {match[2]}")
    return ", ".join(out)
print(f"cross-node (send to A, device on B), per round:")
print(f"  sent → A's 200       : {figures('cross', 'provider 200')}")
print(f"  sent → on the device : {figures('cross', 'provider→device')}   (goal p99 < 50 ms)")
print(f"  A's 200 → the device : {figures('cross', '200→device')}")
print(f"  delivered            : {delivered('cross')}")
print(f"same node (send to A, device on A), per round:")
print(f"  sent → A's 200       : {figures('same', 'provider 200')}")
print(f"  sent → on the device : {figures('same', 'provider→device')}")
print(f"  A's 200 → the device : {figures('same', '200→device')}")
print(f"  delivered            : {delivered('same')}")
PY
}

declare -A jwt pid stored
last_pid=""
for part in $PARTS; do
  case $part in
    accept) accept_part ;;
    latency) latency_part ;;
    *) echo "unknown part $part (accept or latency)" >&2; exit 1 ;;
  esac
done
"$root/scripts/disk-sync.py" "$work"
