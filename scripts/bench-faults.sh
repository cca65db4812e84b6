#!/usr/bin/env bash
# What fault rules cost the gateway: its accept rate and CPU per notification with 0, 10 and 1,000 rules loaded that
# match none of the load's requests (each request is checked against every rule), in alternating rounds.
#
#   scripts/bench-faults.sh                          # 100,000 requests a run, 3 rounds
#   REQUESTS=300000 ROUNDS=5 scripts/bench-faults.sh
#   HERALD_BIN=.build/release scripts/bench-faults.sh   # a build of your own (default: builds release)
#   MATCH=prefix scripts/bench-faults.sh             # the rules name a token prefix instead of a topic
#
# Goal (issue 42): under 5% lost at 1,000 rules, nothing measurable at 0 (0 rules is the gateway as it runs without
# any: compare it with scripts/bench-gateway.sh's figure of the same day).
set -euo pipefail

REQUESTS=${REQUESTS:-100000}
ROUNDS=${ROUNDS:-3}
COUNTS=(${COUNTS:-0 10 1000})
MATCH=${MATCH:-topic}
source "$(dirname "$0")/lib.sh"
command -v h2load >/dev/null || { apt-get update -qq && apt-get install -y -qq nghttp2-client >/dev/null; }
if [ -n "${HERALD_BIN:-}" ]; then
  herald="$HERALD_BIN/herald"
else
  (cd "$root" && swift build -c release --product herald >&2)
  herald="$root/.build/release/herald"
fi
start_work bench-faults
echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); herald from $herald"

# One data directory per rule count, each with its key and tokens; its rules are persistent (a gateway's start removes
# the others) and match a topic no request has (or, MATCH=prefix, token prefixes of 6 digits, spread over the first
# two digits as rules for many devices would be).
for count in "${COUNTS[@]}"; do
  data="$work/data-$count"
  "$herald" keys create --data-dir "$data" --team-id BENCHTEAM1 --key-id BENCHKEY01 --out "$work/key-$count.p8" >/dev/null
  "$herald" tokens issue --data-dir "$data" --topic com.example.bench --count 50 > "$work/tokens-$count"
  if [ "$count" -gt 0 ]; then
    python3 - "$data/herald.sqlite" "$count" "$MATCH" <<'PY'
import json, sqlite3, sys, time
path, count, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
db = sqlite3.connect(path)
now = time.time()
for i in range(count):
    # Prefixes of 6 digits that no token of the load starts with (the load's tokens are random: one in 16 million).
    match = {"topic": f"com.example.nomatch{i}"} if kind == "topic" else {"tokenPrefix": f"{i * 4099 % 65536:04x}ff"}
    rule = {"id": f"fbench{i:04d}", "match": match,
            "action": {"kind": "answer", "status": 500}, "createdAt": now, "expiresAt": now + 86400, "persistent": True}
    db.execute("INSERT INTO fault_rule (id, rule, created_at, expires_at, persistent) VALUES (?, ?, ?, ?, 1)",
               (rule["id"], json.dumps(rule), now, now + 86400))
db.commit()
PY
  fi
done

run() { # run COUNT: one h2load run against a fresh gateway on that data; prints "RATE CPU_US_PER_NOTIFICATION"
  local count=$1 port console
  port=$(free_port); console=$(free_port)
  "$herald" serve --data-dir "$work/data-$count" --provider-port "$port" --console-port "$console" --device-port 0 --channels-port 0 --webpush-port 0 \
    --quiet 2>"$work/serve-$count.log" &
  local pid=$!
  wait_for 60 curl -sf "http://127.0.0.1:$console/healthz" -o /dev/null
  local rules
  rules=$(curl -sf -H "authorization: bearer $(cat "$work/data-$count/admin-token")" "http://127.0.0.1:$console/v1/faults" |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["rules"]))')
  [ "$rules" = "$count" ] || { echo "the gateway has $rules rules, not $count" >&2; exit 1; }
  local jwt
  jwt=$("$herald" jwt --p8 "$work/key-$count.p8" --key-id BENCHKEY01 --team-id BENCHTEAM1)
  sed "s|^|https://localhost:$port/3/device/|" "$work/tokens-$count" > "$work/uris-$count"
  echo '{"aps":{"alert":{"title":"Benchmark","body":"Hello from h2load"},"badge":1}}' > "$work/payload.json"
  h2load -c 10 -m 100 -t 1 -n 20000 -d "$work/payload.json" -H "authorization: bearer $jwt" -H "apns-topic: com.example.bench" \
    -i "$work/uris-$count" >/dev/null  # warm up
  local before after out
  before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  out=$(h2load -c 10 -m 100 -t 1 -n "$REQUESTS" -d "$work/payload.json" -H "authorization: bearer $jwt" -H "apns-topic: com.example.bench" \
    -i "$work/uris-$count")
  after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  local ok rate
  ok=$(echo "$out" | sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p')
  [ "$ok" = "$REQUESTS" ] || { echo "only $ok of $REQUESTS answered 200 with $count rules" >&2; exit 1; }
  rate=$(echo "$out" | sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p')
  echo "$rate $(python3 -c "print(round(($after - $before) / $(getconf CLK_TCK) * 1e6 / $REQUESTS, 1))")"
}

declare -A rates cpus
for round in $(seq "$ROUNDS"); do
  for count in "${COUNTS[@]}"; do
    read -r rate cpu < <(run "$count")
    rates[$count]+="$rate "; cpus[$count]+="$cpu "
    echo "round $round, $count rules: $rate notifications/s, $cpu µs CPU each"
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
base=$(echo "${rates[${COUNTS[0]}]}" | median)
echo
echo "rules  median rate (notifications/s)  vs ${COUNTS[0]} rules  median CPU (µs/notification)"
for count in "${COUNTS[@]}"; do
  rate=$(echo "${rates[$count]}" | median)
  printf "%5s  %30s  %+11.1f%%  %28s\n" "$count" "$rate" "$(python3 -c "print(($rate / $base - 1) * 100)")" "$(echo "${cpus[$count]}" | median)"
done
