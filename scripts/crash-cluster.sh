#!/usr/bin/env bash
# Crash test for a cluster: three `herald serve` nodes on one PostgreSQL behind HAProxy lose a node (SIGKILL) and
# then PostgreSQL (halted and resumed) under a flood; every notification answered 200 reaches the device exactly once.
#
#   scripts/crash-cluster.sh                  # N=10000 per phase
#   N=30000 scripts/crash-cluster.sh
#   KEEP=1 scripts/crash-cluster.sh           # keep the work directory (logs, flood records) even when it passes
#
# Sets up a throwaway PostgreSQL (scripts/postgres-test-server.sh), three nodes on loopback (each its own data
# directory; they share the CA and admin token through the store) and HAProxy in TCP mode in front of their provider
# and device ports, health-checking each node's /healthz (503 while it cannot reach PostgreSQL). The app's policy is
# `all` (cap above N); one `herald device --json` is linked through HAProxy. Two phases, each a fresh flood of N
# notifications through HAProxy (herald-bench flood --reconnect: a lost connection is replaced through HAProxy, the
# requests in flight on it count as "no answer" and are not resent):
#   node killed        - once a third are answered 200, the node the device is linked to (device_link in the store)
#                        is killed with SIGKILL; the flood goes on against the others, the device reconnects through
#                        HAProxy to another node. Recovery: kill -> the device linked to another node, and -> the
#                        device showing notifications again. The killed node is then restarted for the next phase.
#   PostgreSQL halted  - the flood runs at RATE/s (default N/10, so it outlasts the outage); once a third are answered
#                        PostgreSQL is halted (pg_ctl stop -m fast) until every node's /healthz says 503 (within
#                        10 s) and OUTAGE seconds (default 3) have passed; providers must get 503. Then it is resumed
#                        on the same port and the nodes must recover by themselves. Recovery: resume -> /healthz 200
#                        on all nodes, -> the next 200.
# herald-bench flood writes every apns-id answered 200 to a file as the answer arrives. The check (as
# scripts/crash-delivery.sh): each of them was shown by the device exactly once, and none twice. Exits 1 on any loss
# or duplicate; on a hang (a request left without an answer past the flood's 10 s deadline, a flood still running
# well past its time: what each node does then is printed); when the outage was not seen (no 503, /healthz still
# 200) or the nodes did not recover; or when a node does not stop within 15 s of SIGTERM. Installs HAProxy and
# PostgreSQL from Debian when they are missing.
set -euo pipefail

N=${N:-10000}
CONCURRENCY=${CONCURRENCY:-64}
RATE=${RATE:-$((N / 10))}
OUTAGE=${OUTAGE:-3}
BASE_PORT=${BASE_PORT:-14000}  # nodes: provider BASE+11.., device BASE+21.., console BASE+31..; HAProxy BASE+1, BASE+2
TOPIC=com.example.crash
NODES=(node1 node2 node3)

need=()
command -v haproxy >/dev/null || need+=(haproxy)
command -v psql >/dev/null || need+=(postgresql-client)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null || need+=(postgresql)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}" >&2
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/herald-crash-cluster.XXXXXX)
chmod 755 "$work"  # PostgreSQL runs as another user when this runs as root
echo "building release herald and herald-bench" >&2
(cd "$root" && swift build -c release --product herald && swift build -c release --product herald-bench) >"$work/build.log" 2>&1 \
  || { cat "$work/build.log" >&2; exit 1; }
herald="$root/.build/release/herald"
bench="$root/.build/release/herald-bench"
pgserver="$root/scripts/postgres-test-server.sh"

declare -A node_pid provider_port device_port console_port
for i in 0 1 2; do
  provider_port[${NODES[$i]}]=$((BASE_PORT + 11 + i))
  device_port[${NODES[$i]}]=$((BASE_PORT + 21 + i))
  console_port[${NODES[$i]}]=$((BASE_PORT + 31 + i))
done
lb_provider=$((BASE_PORT + 1))
lb_device=$((BASE_PORT + 2))
haproxy_pid=""
device_pid=""
flood_pid=""
pg_started=0
status=0
# stop PID NAME: SIGTERM, then SIGKILL if it is still there after 15 s (said: a node should stop by itself).
stop() {
  [ -n "$1" ] && kill -0 "$1" 2>/dev/null || return 0
  kill "$1" 2>/dev/null || true
  for _ in $(seq 150); do kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null || true; return 0; }; sleep 0.1; done
  echo "$2 (pid $1) did not stop within 15 s of SIGTERM: killed with SIGKILL" >&2
  kill -9 "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  return 1
}
cleanup() {
  stop "$flood_pid" flood || true
  stop "$device_pid" "herald device" || true
  for name in "${NODES[@]}"; do stop "${node_pid[$name]:-}" "$name" || true; done
  stop "$haproxy_pid" HAProxy || true
  wait 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ] || [ $status -ne 0 ]; then
    [ $pg_started = 1 ] && "$pgserver" halt "$work/pg" 2>/dev/null || true
    echo "kept $work (PostgreSQL halted: scripts/postgres-test-server.sh resume $work/pg; stop $work/pg removes it)" >&2
  else
    [ $pg_started = 1 ] && "$pgserver" stop "$work/pg" || true
    rm -rf "$work"
  fi
}
trap cleanup EXIT

now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$(now)"; }

maintenance=$("$pgserver" start "$work/pg")
pg_started=1
psql "$maintenance" -qc "CREATE DATABASE herald" >/dev/null
store="${maintenance%/postgres}/herald"
sql() { psql "$store" -tAc "$1" 2>/dev/null; }

if "$herald" --help | grep -q "^  migrate "; then "$herald" migrate --store "$store" >/dev/null; fi
"$herald" keys create --store "$store" --data-dir "$work/node1" --team-id CRASHTEAM1 --key-id CRASHKEY01 --out "$work/key.p8" >/dev/null
"$herald" policy --store "$store" --data-dir "$work/node1" --topic "$TOPIC" all --cap $((N * 3)) >/dev/null
jwt=$("$herald" jwt --p8 "$work/key.p8" --key-id CRASHKEY01 --team-id CRASHTEAM1)

healthz() { curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:${console_port[$1]}/healthz" || true; }

start_node() { # start_node NAME: starts it and waits for /healthz 200
  local name=$1
  "$herald" serve --store "$store" --data-dir "$work/$name" --node-name "$name" \
    --provider-port "${provider_port[$name]}" --device-port "${device_port[$name]}" --console-port "${console_port[$name]}" --channels-port 0 --webpush-port 0 \
    --device-rate-limit 1000000 --quiet 2>>"$work/$name.log" &
  node_pid[$name]=$!
}
wait_ready() { # wait_ready NAME...
  for name in "$@"; do
    for _ in $(seq 300); do [ "$(healthz "$name")" = 200 ] && continue 2; sleep 0.05; done
    echo "$name did not become ready; see $work/$name.log" >&2; exit 1
  done
}
start_node node1  # the first one alone: it creates the cluster's CA and admin token
wait_ready node1
start_node node2
start_node node3
wait_ready node2 node3
ca="$work/node1/tls/ca.pem"
for name in node2 node3; do
  cmp -s "$ca" "$work/$name/tls/ca.pem" || { echo "$name has another CA than node1" >&2; exit 1; }
done

cat >"$work/haproxy.cfg" <<CFG
global
    maxconn 2000
defaults
    mode tcp
    timeout connect 2s
    timeout client 1h
    timeout server 1h
    # A connection refused by a dead node is tried again on another.
    retries 3
    option redispatch
frontend provider_api
    bind 127.0.0.1:$lb_provider
    default_backend herald_provider
frontend device_link
    bind 127.0.0.1:$lb_device
    default_backend herald_device
backend herald_provider
    balance leastconn
    option httpchk GET /healthz
    http-check expect status 200
    default-server inter 500ms fall 2 rise 2
$(for name in "${NODES[@]}"; do echo "    server $name 127.0.0.1:${provider_port[$name]} check port ${console_port[$name]}"; done)
backend herald_device
    balance leastconn
    option httpchk GET /healthz
    http-check expect status 200
    default-server inter 500ms fall 2 rise 2
$(for name in "${NODES[@]}"; do echo "    server $name 127.0.0.1:${device_port[$name]} check port ${console_port[$name]}"; done)
CFG
haproxy -f "$work/haproxy.cfg" -db >"$work/haproxy.log" 2>&1 &
haproxy_pid=$!
for _ in $(seq 100); do
  kill -0 "$haproxy_pid" 2>/dev/null || { echo "HAProxy did not start:" >&2; cat "$work/haproxy.log" >&2; exit 1; }
  (exec 3<>"/dev/tcp/127.0.0.1/$lb_device") 2>/dev/null && break
  sleep 0.05
done
sleep 1.2  # two health checks: every node up

"$herald" device --gateway "https://localhost:$lb_device" --ca "$ca" --topic "$TOPIC" \
  --data-dir "$work/device" --json >>"$work/device.jsonl" 2>>"$work/device.log" &
device_pid=$!
for _ in $(seq 200); do grep -q '"registered"' "$work/device.jsonl" 2>/dev/null && break; sleep 0.05; done
token=$(python3 -c 'import json,sys
for line in open(sys.argv[1]):
    event = json.loads(line)
    if event["event"] == "registered": print(event["deviceToken"]); break' "$work/device.jsonl")
[ -n "$token" ] || { echo "the device did not register; see $work/device.log" >&2; exit 1; }

# The live node the device is linked to, from the store (empty while it is linked nowhere).
linked_node() {
  sql "SELECT node.name FROM device_link link JOIN node ON node.id = link.node_id
       WHERE node.lease_until > extract(epoch FROM now()) ORDER BY link.linked_at DESC LIMIT 1"
}
shown_count() { grep -c '"event":"notification"' "$work/device.jsonl" || true; }
accepted_count() { wc -l <"$1"; }

# flood PHASE [extra flood flags]: starts herald-bench flood through HAProxy in the background.
flood() {
  local phase=$1; shift
  : >"$work/$phase-accepted.txt"
  "$bench" flood --provider "https://localhost:$lb_provider" --ca "$ca" --jwt "$jwt" --topic "$TOPIC" \
    --device "$token" --count "$N" --concurrency "$CONCURRENCY" --reconnect --out "$work/$phase-accepted.txt" "$@" \
    >"$work/$phase-flood.txt" 2>&1 &
  flood_pid=$!
}
wait_for_third() { # wait_for_third PHASE
  while [ "$(accepted_count "$work/$1-accepted.txt")" -lt $((N / 3)) ] && kill -0 "$flood_pid" 2>/dev/null; do sleep 0.01; done
}
metric() { # metric NAME METRIC: its value on the node's /metrics
  curl -s -m 2 "http://127.0.0.1:${console_port[$1]}/metrics" | awk -v m="$2" '$1 == m { v = $2 } END { printf "%d", v }'
}
# finish_flood PHASE SECONDS: waits for the flood (at most SECONDS: past that, requests hang somewhere), prints its
# outcome. A flood still running then is a hang: what each node does is printed and kept, and the flood is stopped.
finish_flood() {
  local waited=0
  while kill -0 "$flood_pid" 2>/dev/null && [ $waited -lt $(($2 * 10)) ]; do sleep 0.1; waited=$((waited + 1)); done
  if kill -0 "$flood_pid" 2>/dev/null; then
    echo "  HANG: the flood is still running after $2 s; each node's provider connections and 200s over 5 s:" >&2
    local name before
    for name in "${NODES[@]}"; do
      [ -n "${node_pid[$name]}" ] || continue
      before=$(metric "$name" herald_notifications_accepted_total)
      sleep 5
      echo "    $name: $(metric "$name" herald_provider_open_connections) provider connections open, $(( $(metric "$name" herald_notifications_accepted_total) - before )) answered 200 in 5 s, /healthz $(healthz "$name")" >&2
      curl -s -m 2 "http://127.0.0.1:${console_port[$name]}/metrics" >"$work/$1-$name-metrics.txt" || true
    done
    sql "SELECT application_name, state, wait_event, now() - state_change AS for, left(query, 60) FROM pg_stat_activity
         WHERE datname = 'herald'" >"$work/$1-pg_stat_activity.txt"
    echo "    PostgreSQL sessions kept in $work/$1-pg_stat_activity.txt" >&2
    hung=1
    stop "$flood_pid" flood || true
  fi
  wait "$flood_pid" 2>/dev/null || true
  flood_pid=""
  sed "s/^/  flood: /" "$work/$1-flood.txt" >&2
}
hung=0
statuses() { # statuses PHASE STATUS: how many answers the flood counted with this status (or "no answer")
  awk -v want="$2" '$2 == "×" && ($3 == want || ($3 " " $4) == want) { sum += $1 } END { print sum + 0 }' "$work/$1-flood.txt"
}

# check PHASE FIRST_LINE RECOVERY: every accepted id shown exactly once by the device (from FIRST_LINE of its output),
# the phase's answers and recovery on the same line; a request that got no answer within the flood's deadline fails it.
check() {
  local outcome=0
  local requests_hung
  requests_hung=$(awk '/× no answer: no answer within/ { sum += $1 } END { print sum + 0 }' "$work/$1-flood.txt")
  python3 "$root/scripts/shown-once.py" "$work/$1-accepted.txt" "$work/device.jsonl" "$2" "$1" \
    "503: $(statuses "$1" 503); 500: $(statuses "$1" 500); no answer: $(statuses "$1" "no answer:"); recovery: $3" || outcome=1
  if [ "$requests_hung" != 0 ]; then
    echo "  HANG: requests got no answer within the flood's 10 s deadline (not a lost connection): see the flood's lines"
    outcome=1
  fi
  if [ $hung = 1 ]; then echo "  HANG: the flood had to be stopped" >&2; hung=0; outcome=1; fi
  return $outcome
}

echo "node killed: $N notifications through HAProxy; the device's node is killed with SIGKILL after a third" >&2
first_line=$(wc -l <"$work/device.jsonl")
victim=$(linked_node)
[ -n "$victim" ] || { echo "the device is not linked to any node" >&2; exit 1; }
flood node-killed
wait_for_third node-killed
victim=$(linked_node)
kill -9 "${node_pid[$victim]}"
killed_at=$(now)
wait "${node_pid[$victim]}" 2>/dev/null || true
node_pid[$victim]=""
echo "  killed $victim with $(accepted_count "$work/node-killed-accepted.txt") answered 200" >&2
relinked="not within 30 s" showing=""
for _ in $(seq 600); do
  linked=$(linked_node)
  if [ -n "$linked" ] && [ "$linked" != "$victim" ]; then relinked="$(since "$killed_at") s (to $linked)"; break; fi
  sleep 0.05
done
shown_at_relink=$(shown_count)  # all the killed node had sent: the link to the new one came after it
for _ in $(seq 600); do
  [ "$(shown_count)" -gt "$shown_at_relink" ] && { showing="$(since "$killed_at") s"; break; }
  kill -0 "$flood_pid" 2>/dev/null || { showing="(the flood ended first)"; break; }
  sleep 0.05
done
finish_flood node-killed $((60 + N / 500))
check node-killed "$first_line" "kill -> device linked to another node $relinked, showing notifications again ${showing:-not within 30 s}" \
  || status=1

echo "restarting $victim" >&2
start_node "$victim"
wait_ready "$victim"
sleep 1.2  # HAProxy's two health checks

echo "PostgreSQL halted: $N notifications at $RATE/s; PostgreSQL halted for $OUTAGE s after a third" >&2
first_line=$(wc -l <"$work/device.jsonl")
flood postgres-halted --rate "$RATE"
wait_for_third postgres-halted
halted_at=$(now)
"$pgserver" halt "$work/pg"
echo "  halted PostgreSQL ($(since "$halted_at") s to stop it) with $(accepted_count "$work/postgres-halted-accepted.txt") answered 200" >&2
not_ready=""
for _ in $(seq 200); do
  down=0
  for name in "${NODES[@]}"; do [ "$(healthz "$name")" = 503 ] && down=$((down + 1)); done
  [ $down = ${#NODES[@]} ] && { not_ready="$(since "$halted_at") s"; break; }
  sleep 0.05
done
echo "  /healthz 503 on every node ${not_ready:+after }${not_ready:-NOT SEEN within 10 s}" >&2
[ -n "$not_ready" ] || status=1
sleep "$(python3 -c "import sys; print(max(0, $OUTAGE - float(sys.argv[1])))" "$(since "$halted_at")")"
"$pgserver" resume "$work/pg"
resumed_at=$(now)
accepted_at_resume=$(accepted_count "$work/postgres-halted-accepted.txt")
ready="" next_200=""
for _ in $(seq 1200); do
  if [ -z "$ready" ]; then
    up=0
    for name in "${NODES[@]}"; do [ "$(healthz "$name")" = 200 ] && up=$((up + 1)); done
    [ $up = ${#NODES[@]} ] && ready="$(since "$resumed_at") s"
  fi
  [ -z "$next_200" ] && [ "$(accepted_count "$work/postgres-halted-accepted.txt")" -gt "$accepted_at_resume" ] \
    && next_200="$(since "$resumed_at") s"
  [ -n "$ready" ] && [ -n "$next_200" ] && break
  kill -0 "$flood_pid" 2>/dev/null || [ -z "$ready" ] || break
  sleep 0.05
done
echo "  resumed PostgreSQL: /healthz 200 on every node after ${ready:-NOT within 60 s}, the next 200 after ${next_200:-none}" >&2
[ -n "$ready" ] || status=1
finish_flood postgres-halted $((60 + 2 * N / RATE))
if [ "$(statuses postgres-halted 503)" -eq 0 ]; then echo "  no 503 during the outage" >&2; status=1; fi
if [ -z "$next_200" ]; then echo "  no 200 after the outage (the flood ended or the nodes did not recover)" >&2; status=1; fi
check postgres-halted "$first_line" \
  "halt -> every /healthz 503 ${not_ready:-never}; resume -> every /healthz 200 ${ready:-never}, the next 200 ${next_200:-never}" \
  || status=1

# A node stops by itself on SIGTERM (graceful shutdown): one that does not is a bug too.
for name in "${NODES[@]}"; do
  if ! stop "${node_pid[$name]}" "$name"; then status=1; fi
  node_pid[$name]=""
done
if [ $status -eq 0 ]; then echo "PASS: every notification answered 200 reached the device exactly once"; else echo "FAIL"; fi
exit $status
