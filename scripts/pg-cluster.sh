#!/usr/bin/env bash
# A throwaway PostgreSQL server for the store's PostgreSQL tests: a new
# cluster in a temporary directory, listening on 127.0.0.1 only, on a free
# port, with a random password, page checksums and fsync on. Nothing of the
# machine's own PostgreSQL (its `main` cluster, /var/run/postgresql) is used.
#
#   pg_env=$(bash scripts/pg-cluster.sh up) && eval "$pg_env"
#       starts one and prints the two variables to export:
#       M1ND_TEST_PG (the URL the tests connect to) and M1ND_PG_CLUSTER (its directory)
#   bash scripts/pg-cluster.sh up --until-exit PID
#       the same, and the cluster is stopped and removed once process PID has exited
#       (the tests start their servers so: none outlives the test run)
#   bash scripts/pg-cluster.sh down [DIR]
#       stops it and removes its directory (DIR defaults to $M1ND_PG_CLUSTER)
#   bash scripts/pg-cluster.sh restart [DIR]
#       a fast restart on the same port (every session is cut), for fault tests
#   bash scripts/pg-cluster.sh pause SECONDS [DIR]
#       a fast stop, SECONDS with no server, then a start on the same port, for fault tests
#
# Needs Debian's postgresql package (initdb, pg_ctl). initdb refuses to run as
# root, so as root the server runs as the package's unprivileged `postgres`
# user; as anyone else it runs as that user. Progress goes to stderr; stdout
# holds only the exports.
set -euo pipefail

bindir() {
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [[ -z "$found" || ! -x "$found/initdb" ]]; then
    echo "pg-cluster: no PostgreSQL server binaries under /usr/lib/postgresql; install Debian's postgresql package" >&2
    exit 2
  fi
  echo "$found"
}

# Run a server program as the unprivileged owner of the cluster.
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

up() {
  local owner="" bin dir password port url
  if [[ "${1:-}" == --until-exit ]]; then
    owner="${2:-}"
    [[ "$owner" =~ ^[0-9]+$ ]] || {
      echo "pg-cluster: --until-exit needs a process id" >&2
      exit 2
    }
  fi
  bin=$(bindir)
  dir=$(mktemp -d /tmp/m1nd-pg.XXXXXX)
  password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  printf '%s\n' "$password" >"$dir/password"
  chmod 600 "$dir/password"
  if [[ $(id -u) -eq 0 ]]; then chown -R postgres "$dir"; fi
  echo "pg-cluster: initdb in $dir ($("$bin/postgres" --version))" >&2
  as_owner "$bin/initdb" -D "$dir/data" -U m1nd -A scram-sha-256 --pwfile="$dir/password" \
    -E UTF8 --locale=C --data-checksums >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    exit 1
  }
  # A free port can be taken between asking and binding: try a few.
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c fsync=on" \
      start >&2; then
      url="postgres://m1nd:$password@127.0.0.1:$port/m1nd"
      echo "$port" >"$dir/port"
      PGPASSWORD="$password" "$bin/createdb" -h 127.0.0.1 -p "$port" -U m1nd m1nd >&2
      echo "pg-cluster: listening on 127.0.0.1:$port, database m1nd" >&2
      if [[ -n "$owner" ]]; then
        # Detached, and holding none of this script's output open, so that whoever reads the
        # exports is not kept waiting for the watcher.
        setsid bash "$0" watch "$owner" "$dir" </dev/null >/dev/null 2>&1 &
      fi
      printf "export M1ND_TEST_PG='%s'\nexport M1ND_PG_CLUSTER='%s'\n" "$url" "$dir"
      return 0
    fi
  done
  tail -20 "$dir/server.log" >&2 || true
  echo "pg-cluster: the server did not start" >&2
  exit 1
}

# The cluster's directory: the argument, or $M1ND_PG_CLUSTER; empty, after saying why, if
# neither names one.
cluster_dir() {
  local what="$1" dir="${2:-${M1ND_PG_CLUSTER:-}}"
  if [[ -z "$dir" || ! -d "$dir/data" ]]; then
    echo "pg-cluster: no cluster to $what (give its directory, or set M1ND_PG_CLUSTER)" >&2
    return
  fi
  echo "$dir"
}

down() {
  local dir
  dir=$(cluster_dir stop "${1:-}")
  [[ -n "$dir" ]] || return 0
  as_owner "$(bindir)/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
  rm -rf "$dir"
  echo "pg-cluster: stopped and removed $dir" >&2
}

restart() {
  local dir
  dir=$(cluster_dir restart "${1:-}")
  [[ -n "$dir" ]] || exit 2
  # pg_ctl restart starts the server with the options it was started with.
  as_owner "$(bindir)/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 60 restart >&2
}

pause() {
  local seconds="$1" dir bin
  dir=$(cluster_dir pause "${2:-}")
  [[ -n "$dir" && "$seconds" =~ ^[0-9]+(\.[0-9]+)?$ ]] || exit 2
  bin=$(bindir)
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2
  sleep "$seconds"
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$(cat "$dir/port") -c unix_socket_directories=$dir -c fsync=on" \
    start >&2
}

# Wait for process PID to exit, then stop and remove the cluster in DIR.
watch() {
  local pid="$1" dir="$2"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.5; done
  down "$dir"
}

case "${1:-}" in
  up) up "${2:-}" "${3:-}" ;;
  watch) watch "$2" "$3" ;;
  down) down "${2:-}" ;;
  restart) restart "${2:-}" ;;
  pause) pause "${2:-}" "${3:-}" ;;
  *)
    echo "usage: $0 up [--until-exit PID] | down [DIR] | restart [DIR] | pause SECONDS [DIR]" >&2
    exit 2
    ;;
esac
