#!/usr/bin/env bash
# Provider client throughput: HeraldClient (as `herald send --count`) beside aioapns and h2load, each sending
# into the same local Herald gateway (TLS, SQLite) in the same run.
#
#   scripts/bench-client.sh                          # defaults below
#   REQUESTS=400000 CONCURRENCY=500 scripts/bench-client.sh
#   HERALD_BIN=/tmp/a SENDER_BIN=/tmp/b scripts/bench-client.sh   # the gateway from /tmp/a/herald, `herald send` from
#                                                                 # /tmp/b/herald (A/B of two clients): nothing is built
#
# 1. Builds the release `herald`; makes a Python venv under .bench-venv/ with aioapns (PyPI) if missing.
# 2. Creates a key and TOKENS device tokens, starts `herald serve` with a high per-device rate limit.
# 3. aioapns: AIOAPNS_REQUESTS notifications, CONCURRENCY in flight, CONNECTIONS connections (its host patched to
#    the gateway; it is slow, so it sends fewer).
# 4. h2load (nghttp2's C load generator) as the ceiling: CONNECTIONS connections x STREAMS streams.
# 5. HeraldClient: `herald send --devices … --count REQUESTS --concurrency CONCURRENCY --connections CONNECTIONS`,
#    last, into the fullest store.
# Goal: HeraldClient >= 10x aioapns and >= 0.8x h2load (issue 40). The machine's cores are shared by gateway and sender.
set -euo pipefail

REQUESTS=${REQUESTS:-200000}
AIOAPNS_REQUESTS=${AIOAPNS_REQUESTS:-20000}
CONNECTIONS=${CONNECTIONS:-2}
STREAMS=${STREAMS:-100}
CONCURRENCY=${CONCURRENCY:-$((CONNECTIONS * STREAMS))}
TOKENS=${TOKENS:-50}
PROVIDER_PORT=${PROVIDER_PORT:-13197}
CONSOLE_PORT=${CONSOLE_PORT:-13080}

source "$(dirname "$0")/lib.sh"
command -v h2load >/dev/null || { echo "installing nghttp2-client" >&2; apt-get update -qq && apt-get install -y -qq nghttp2-client >/dev/null; }
venv="$root/.bench-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import aioapns' 2>/dev/null; then
  echo "installing aioapns into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q aioapns >&2
fi

if [ -n "${HERALD_BIN:-}" ]; then
  herald="$HERALD_BIN/herald"
else
  echo "building release herald" >&2
  (cd "$root" && swift build -c release --product herald >&2)
  herald="$root/.build/release/herald"
fi
sender="${SENDER_BIN:-$(dirname "$herald")}/herald"

start_work bench-client

data="$work/data"
topic=com.example.bench
"$herald" keys create --data-dir "$data" --team-id BENCHTEAM1 --key-id BENCHKEY01 --out "$work/key.p8" >/dev/null
"$herald" tokens issue --data-dir "$data" --topic "$topic" --count "$TOKENS" > "$work/tokens"
sed "s|^|https://localhost:$PROVIDER_PORT/3/device/|" "$work/tokens" > "$work/uris"
payload='{"aps":{"alert":{"title":"Benchmark","body":"Hello from a provider"},"badge":1,"sound":"default"},"id":42}'
echo "$payload" > "$work/payload.json"

"$herald" serve --data-dir "$data" --provider-port "$PROVIDER_PORT" --console-port "$CONSOLE_PORT" --channels-port 0 --webpush-port 0 \
  --device-rate-limit 1000000 --quiet 2>"$work/gateway.log" &
gateway_pid=$!
stop_at_exit "$gateway_pid"
for _ in $(seq 200); do curl -sf "http://127.0.0.1:$CONSOLE_PORT/healthz" >/dev/null && break; sleep 0.05; done

send() { # send COUNT
  "$sender" send --gateway "https://localhost:$PROVIDER_PORT" --ca "$data/tls/ca.pem" --p8 "$work/key.p8" \
    --key-id BENCHKEY01 --team-id BENCHTEAM1 --topic "$topic" --devices "$work/tokens" \
    --count "$1" --concurrency "$CONCURRENCY" --connections "$CONNECTIONS" "$work/payload.json" 2>/dev/null
}
rate_of_send() { sed -n 's/^sent .* (\([0-9]*\)\/s)$/\1/p'; }
ok_of_send() { sed -n 's/^200 accepted *\([0-9]*\)$/\1/p'; }

send 20000 >/dev/null                        # warm up: gateway caches, SQLite pages

cat > "$work/aioapns_bench.py" <<'PY'
import asyncio, ssl, sys, time
from aioapns import APNs, NotificationRequest
from aioapns.connection import APNsDevelopmentClientProtocol

port, ca, key, tokens_file, n, concurrency, connections, topic = sys.argv[1:9]
n, concurrency, connections = int(n), int(concurrency), int(connections)
APNsDevelopmentClientProtocol.APNS_SERVER = "localhost"
APNsDevelopmentClientProtocol.APNS_PORT = int(port)
tokens = [line.strip() for line in open(tokens_file) if line.strip()]
message = {"aps": {"alert": {"title": "Benchmark", "body": "Hello from a provider"}, "badge": 1, "sound": "default"}, "id": 42}

async def main():
    context = ssl.create_default_context(cafile=ca)
    context.set_alpn_protocols(["h2"])
    client = APNs(key=open(key).read(), key_id="BENCHKEY01", team_id="BENCHTEAM1", topic=topic,
                  use_sandbox=True, ssl_context=context, max_connections=connections)
    semaphore = asyncio.Semaphore(concurrency)
    accepted = 0

    async def one(i):
        nonlocal accepted
        async with semaphore:
            result = await client.send_notification(NotificationRequest(device_token=tokens[i % len(tokens)], message=message))
            accepted += result.is_successful

    await asyncio.gather(*(one(i) for i in range(min(2000, n))))  # warm up: connections
    accepted = 0
    start = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(n)))
    elapsed = time.perf_counter() - start
    print(f"{n / elapsed:.0f} {accepted}")

asyncio.run(main())
PY
# Into a file, not a process substitution: bash would reap that process later, and its CPU would count in the
# next `time` (h2load's).
"$venv/bin/python" "$work/aioapns_bench.py" "$PROVIDER_PORT" "$data/tls/ca.pem" "$work/key.p8" \
  "$work/tokens" "$AIOAPNS_REQUESTS" "$CONCURRENCY" "$CONNECTIONS" "$topic" >"$work/aioapns.out" 2>"$work/aioapns.log"
read -r aioapns_rate aioapns_ok <"$work/aioapns.out"

# The sender's own CPU (user + system seconds, from bash's `time`), per notification: the steadier figure on a
# shared machine, where the gateway and the sender take turns on the same cores.
TIMEFORMAT='%U %S'
cpu_per_notification() { # cpu_per_notification TIME-FILE COUNT -> µs
  python3 -c "import sys; user, system = map(float, open(sys.argv[1]).read().split()[-2:]); print(f'{(user + system) / int(sys.argv[2]) * 1e6:.1f}')" "$1" "$2"
}

jwt=$("$herald" jwt --p8 "$work/key.p8" --key-id BENCHKEY01 --team-id BENCHTEAM1)
{ time h2load -c "$CONNECTIONS" -m "$STREAMS" -t 1 -n "$REQUESTS" -d "$work/payload.json" \
  -H "authorization: bearer $jwt" -H "apns-topic: $topic" -H "apns-push-type: alert" -i "$work/uris" >"$work/h2load.out"; } 2>"$work/h2load.time"
h2load_out=$(cat "$work/h2load.out")
h2load_cpu=$(cpu_per_notification "$work/h2load.time" "$REQUESTS")
h2load_rate=$(sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p' <<<"$h2load_out")
h2load_ok=$(sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p' <<<"$h2load_out")

# HeraldClient last: the store has grown by the others' notifications, so its figure is the conservative one.
{ time send "$REQUESTS" >"$work/herald.out"; } 2>"$work/herald.time"
herald_out=$(cat "$work/herald.out")
herald_cpu=$(cpu_per_notification "$work/herald.time" "$REQUESTS")
herald_rate=$(rate_of_send <<<"$herald_out")
herald_ok=$(ok_of_send <<<"$herald_out")

python3 - <<PY
herald, aioapns, h2load = float("$herald_rate"), float("$aioapns_rate"), float("$h2load_rate")
print(f"machine        : $(nproc) cores, shared by the gateway and the sender")
print(f"HeraldClient   : {herald:10,.0f} notifications/s  ({$herald_ok} of $REQUESTS answered 200; $CONNECTIONS connections, $CONCURRENCY in flight)")
print(f"aioapns        : {aioapns:10,.0f} notifications/s  ({$aioapns_ok} of $AIOAPNS_REQUESTS answered 200)")
print(f"h2load         : {h2load:10,.0f} requests/s       ({$h2load_ok} of $REQUESTS answered 2xx; $CONNECTIONS x $STREAMS streams)")
print(f"HeraldClient   : {herald / aioapns:10.1f} x aioapns (goal >= 10), {herald / h2load:.2f} x h2load (goal >= 0.8)")
print(f"sender's CPU   : HeraldClient $herald_cpu µs per notification, h2load $h2load_cpu µs (user + system, start-up included)")
PY
