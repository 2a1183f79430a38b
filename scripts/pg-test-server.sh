#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for tests.
#   pg-test-server.sh start DIR PORT   -> prints DATABASE_URL (postgres://postgres@127.0.0.1:PORT/terrarium_test)
#   pg-test-server.sh stop DIR
# Works as root (initdb refuses root, so the cluster runs as the `postgres` OS user) and as any other
# user; running `start` twice on a running cluster only prints the URL again.
set -euo pipefail

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
DB_NAME="terrarium_test"

usage() {
  echo "usage: $0 start DIR PORT | stop DIR" >&2
  exit 64
}

# Runs a command as the cluster's owner: `postgres` when we are root, ourselves otherwise.
as_owner() {
  if [ "$(id -u)" = "0" ]; then
    # runuser keeps no tty and needs no password; --preserve-environment is not wanted here.
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

cmd="${1:-}"
dir="${2:-}"
[ -n "$cmd" ] && [ -n "$dir" ] || usage
[ -x "$PG_BIN/initdb" ] || { echo "PostgreSQL 15 binaries not found in $PG_BIN (apt-get install postgresql)" >&2; exit 69; }

mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
data="$dir/data"

case "$cmd" in
  start)
    port="${3:-}"
    [ -n "$port" ] || usage
    if [ "$(id -u)" = "0" ]; then
      chown postgres: "$dir"
      # The postgres user must be able to reach DIR through every parent (e.g. a folder under /root).
      chmod 0755 "$dir"
      runuser -u postgres -- test -w "$dir" || {
        echo "$dir is not reachable by the postgres user (a parent folder is private?); use a folder under /tmp" >&2
        exit 1
      }
    fi
    if [ ! -s "$data/PG_VERSION" ]; then
      as_owner "$PG_BIN/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    if ! as_owner "$PG_BIN/pg_ctl" -D "$data" status >/dev/null 2>&1; then
      as_owner "$PG_BIN/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c full_page_writes=off" start >/dev/null \
        || { cat "$dir/server.log" >&2; exit 1; }
    fi
    running_port="$(sed -n '4p' "$data/postmaster.pid")"
    if ! as_owner "$PG_BIN/psql" -h "$dir" -p "$running_port" -U postgres -d postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'" | grep -q 1; then
      as_owner "$PG_BIN/createdb" -h "$dir" -p "$running_port" -U postgres "$DB_NAME"
    fi
    echo "postgres://postgres@127.0.0.1:$running_port/$DB_NAME"
    ;;
  stop)
    if [ -s "$data/PG_VERSION" ] && as_owner "$PG_BIN/pg_ctl" -D "$data" status >/dev/null 2>&1; then
      as_owner "$PG_BIN/pg_ctl" -D "$data" -m fast -w stop >/dev/null
    fi
    ;;
  *)
    usage
    ;;
esac
