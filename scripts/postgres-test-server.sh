#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: a new cluster (initdb) in DIR, listening on a free loopback port with
# trust authentication, fsync on (as a real server: the store's durability is what is tested).
#
#   scripts/postgres-test-server.sh start DIR    creates DIR, starts the server, prints its maintenance URL
#                                                (postgres://herald@127.0.0.1:PORT/postgres), also kept in DIR/url
#   scripts/postgres-test-server.sh halt DIR     stops the server and keeps its data (a test of an outage)
#   scripts/postgres-test-server.sh resume DIR   starts a halted server again, on the same port
#   scripts/postgres-test-server.sh stop DIR     stops the server and removes DIR
#
# PostgreSQL refuses to run as root: run as root, the server runs as the `postgres` user (Debian's package makes it)
# or else `nobody`, and DIR is made theirs. The binaries are PostgreSQL's newest under /usr/lib/postgresql (Debian's
# layout), else those on PATH.
set -euo pipefail

usage() {
  echo "usage: $0 start|halt|resume|stop DIR" >&2
  exit 64
}
[ $# -eq 2 ] || usage
command=$1
dir=$2

bin_dir() {
  local newest
  newest=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$newest" ] && [ -x "$newest/initdb" ]; then
    echo "$newest"
  elif command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
  else
    echo "no PostgreSQL server binaries (initdb, pg_ctl): install Debian's postgresql package" >&2
    exit 69
  fi
}

# The user the server runs as, and how to run a command as them.
if [ "$(id -u)" -eq 0 ]; then
  if id postgres >/dev/null 2>&1; then server_user=postgres; else server_user=nobody; fi
  as_server() { runuser -u "$server_user" -- "$@"; }
else
  server_user=$(id -un)
  as_server() { "$@"; }
fi

bin=$(bin_dir)
data="$dir/data"
log="$dir/server.log"

pg_ctl_start() {
  # -w: return once the server accepts connections; the log says why when it does not.
  if ! as_server "$bin/pg_ctl" -D "$data" -l "$log" -w -t 30 start >/dev/null; then
    echo "PostgreSQL did not start; its log ($log) ends with:" >&2
    tail -n 20 "$log" >&2 || true
    return 1
  fi
}

# A port nothing listens on now (the server may still lose a race for it: start tries again).
free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  echo "no free port found" >&2
  exit 75
}

case "$command" in
  start)
    if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
      echo "$dir exists and is not empty: give a new directory" >&2
      exit 73
    fi
    mkdir -p "$dir"
    chmod 700 "$dir"
    chown "$server_user" "$dir"
    as_server "$bin/initdb" -D "$data" --username=herald --auth=trust --encoding=UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 || {
      cat "$dir/initdb.log" >&2
      exit 1
    }
    for attempt in 1 2 3 4 5; do
      port=$(free_port)
      cat >>"$data/postgresql.conf" <<EOF
# scripts/postgres-test-server.sh (attempt $attempt)
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
fsync = on
synchronous_commit = on
max_connections = 400
EOF
      if pg_ctl_start; then
        url="postgres://herald@127.0.0.1:$port/postgres"
        echo "$port" >"$dir/port"
        echo "$url" >"$dir/url"
        echo "$url"
        exit 0
      fi
      grep -q "could not bind" "$log" 2>/dev/null || exit 1
    done
    exit 1
    ;;
  halt)
    as_server "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
    ;;
  resume)
    pg_ctl_start
    ;;
  stop)
    if [ -f "$data/postmaster.pid" ]; then
      as_server "$bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  *)
    usage
    ;;
esac
