#!/usr/bin/env bash
# Entrypoint of platform-local/postgres:15, compatible with the official postgres image:
#   POSTGRES_USER (default postgres), POSTGRES_PASSWORD (required unless
#   POSTGRES_HOST_AUTH_METHOD=trust), POSTGRES_DB (default: the user), POSTGRES_INITDB_ARGS,
#   POSTGRES_HOST_AUTH_METHOD (default scram-sha-256), VAR_FILE variants of the first four,
#   and *.sh / *.sql / *.sql.gz in /docker-entrypoint-initdb.d, run once at initialisation.
# The database is initialised only when $PGDATA holds none; the server then runs as the
# postgres user. PostgreSQL 15's cluster is the volume's root, another major's is pg<major>/ in
# it: a major upgrade (the platform's deploy) leaves the older cluster where it was, and writes
# platform-upgrade-<major>.dump (pg_dump -Fc of the older server) that the new cluster is
# initialised from. An empty $PGDATA beside another major's cluster and no dump is refused: that
# would start an empty database where data is.
# The server then runs as the postgres user, exec'd so that it receives the signals (dumb-init, PID 1, turns SIGTERM into
# SIGINT: a fast shutdown).
set -Eeuo pipefail

log() { printf '%s [entrypoint] %s\n' "$(date -u '+%Y-%m-%d %H:%M:%S UTC')" "$*"; }
die() { printf '%s [entrypoint] error: %s\n' "$(date -u '+%Y-%m-%d %H:%M:%S UTC')" "$*" >&2; exit 1; }

file_env() {  # file_env VAR [DEFAULT]: VAR from itself, or from the file named by VAR_FILE
  local var=$1 file_var="${1}_FILE" def=${2:-} val
  if [ -n "${!var:-}" ] && [ -n "${!file_var:-}" ]; then die "both $var and $file_var are set; they are exclusive"; fi
  val=$def
  if [ -n "${!var:-}" ]; then val=${!var}
  elif [ -n "${!file_var:-}" ]; then val=$(<"${!file_var}")
  fi
  export "$var=$val"
  unset "$file_var"
}

[ $# -gt 0 ] || set -- postgres
if [ "${1:0:1}" = '-' ]; then set -- postgres "$@"; fi   # `docker run IMAGE -c x=y`

if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
  # as root: give the data and socket directories to postgres, then start again as postgres
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 0700 "$PGDATA" || :
  chmod 3777 /var/run/postgresql
  find "$PGDATA" \! -user postgres -exec chown postgres:postgres '{}' +
  HOME=/var/lib/postgresql exec setpriv --reuid=postgres --regid=postgres --init-groups \
    "$(readlink -f "${BASH_SOURCE[0]}")" "$@"
fi

VOLUME_ROOT=/var/lib/postgresql/data
UPGRADE_DUMP=$VOLUME_ROOT/platform-upgrade-${PG_MAJOR:-}.dump

other_cluster() {  # another major's cluster in this volume: "DIR (PostgreSQL N)"
  local d
  for d in "$VOLUME_ROOT" "$VOLUME_ROOT"/pg*; do
    if [ "$d" != "$PGDATA" ] && [ -s "$d/PG_VERSION" ]; then echo "$d (PostgreSQL $(cat "$d/PG_VERSION"))"; return 0; fi
  done
  return 1
}

restore_upgrade_dump() {  # in the temporary server of init_database: the older major's data
  local psql_user=$1
  log "restoring $UPGRADE_DUMP ($(du -h "$UPGRADE_DUMP" | cut -f1)) into PostgreSQL $PG_MAJOR"
  if ! pg_restore --exit-on-error --no-password --username "$psql_user" --dbname "$POSTGRES_DB" "$UPGRADE_DUMP"; then
    pg_ctl -D "$PGDATA" -m fast -w stop || :
    # nothing half-restored may look like a cluster on the next start
    rm -rf "${PGDATA:?}"/* "${PGDATA:?}"/.[!.]* 2>/dev/null || :
    die "restoring the upgrade dump failed (above); the older cluster is untouched, and the dump is kept at $UPGRADE_DUMP"
  fi
  rm -f "$UPGRADE_DUMP"
  log "upgrade dump restored and removed"
}

init_database() {
  local auth=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256} sockdir f
  if [ -z "$POSTGRES_PASSWORD" ] && [ "$auth" != trust ]; then
    die "the database is not initialised and no password is set.
  Set POSTGRES_PASSWORD (e.g. -e POSTGRES_PASSWORD=...) to a non-empty value for the
  superuser '$POSTGRES_USER', or POSTGRES_HOST_AUTH_METHOD=trust to allow every connection
  without a password (not recommended)."
  fi
  [ -w "$PGDATA" ] || die "$PGDATA is not writable by $(id -un) (uid $(id -u)); fix the volume's owner"
  log "initialising a new database cluster in $PGDATA (superuser $POSTGRES_USER, database $POSTGRES_DB)"
  if [ -n "$POSTGRES_PASSWORD" ]; then
    eval 'initdb --username="$POSTGRES_USER" --pwfile=<(printf "%s\n" "$POSTGRES_PASSWORD") '"$POSTGRES_INITDB_ARGS"
  else
    eval 'initdb --username="$POSTGRES_USER" '"$POSTGRES_INITDB_ARGS"
  fi

  # local socket connections stay as initdb made them (trust); network ones need a password
  if [ "$auth" = trust ]; then log "warning: POSTGRES_HOST_AUTH_METHOD=trust: network connections need no password"; fi
  printf '\n# added by the entrypoint: every other network client\nhost all all all %s\n' "$auth" >>"$PGDATA/pg_hba.conf"

  # A temporary server on a private socket only: pg_isready on the default socket (and TCP)
  # answers "no response" until the real server is up, so nobody connects mid-initialisation.
  sockdir=$(mktemp -d /tmp/pg-init.XXXXXX)
  pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -c unix_socket_directories=$sockdir -p 5432" start
  export PGHOST=$sockdir PGPORT=5432 PGUSER=$POSTGRES_USER PGPASSWORD=$POSTGRES_PASSWORD
  local psql=(psql -v ON_ERROR_STOP=1 --no-psqlrc --no-password --username "$POSTGRES_USER")
  if [ "$POSTGRES_DB" != postgres ]; then
    if [ -z "$("${psql[@]}" --dbname postgres -tA --set db="$POSTGRES_DB" <<<"SELECT 1 FROM pg_database WHERE datname = :'db';")" ]; then
      "${psql[@]}" --dbname postgres -q --set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db";'
      log "created database $POSTGRES_DB"
    fi
  fi
  if [ -s "$UPGRADE_DUMP" ]; then restore_upgrade_dump "$POSTGRES_USER"; fi
  for f in /docker-entrypoint-initdb.d/*; do
    [ -e "$f" ] || continue
    # shellcheck disable=SC1090  # sources the user's init scripts
    case "$f" in
      *.sh) log "running $f"; if [ -x "$f" ]; then "$f"; else . "$f"; fi ;;
      *.sql) log "running $f"; "${psql[@]}" --dbname "$POSTGRES_DB" -f "$f" ;;
      *.sql.gz) log "running $f"; gunzip -c "$f" | "${psql[@]}" --dbname "$POSTGRES_DB" ;;
      *) log "ignoring $f" ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop
  unset PGHOST PGPORT PGUSER PGPASSWORD
  rm -rf "$sockdir"
  log "initialisation complete; starting the server"
}

wants_help() {  # postgres --version, --help, -C ...: answer without initialising anything
  local a
  for a in "$@"; do
    case $a in -'?'|--help|--describe-config|-V|--version|-C|-C*) return 0 ;; esac
  done
  return 1
}

if [ "$1" = postgres ] && ! wants_help "$@"; then
  file_env POSTGRES_PASSWORD
  file_env POSTGRES_USER postgres
  file_env POSTGRES_DB "$POSTGRES_USER"
  file_env POSTGRES_INITDB_ARGS
  if [ -s "$PGDATA/PG_VERSION" ]; then
    log "$PGDATA already holds a database cluster (PostgreSQL $(cat "$PGDATA/PG_VERSION")); skipping initialisation"
  else
    if [ ! -s "$UPGRADE_DUMP" ] && other=$(other_cluster); then
      die "this volume holds another major version's cluster, $other, and $PGDATA (PostgreSQL $PG_MAJOR) is empty.
  A major version goes up through the platform's deploy (a backup, then a copy into the new
  version) and never down: deploy the version the data has, or restore a backup into a new database."
    fi
    init_database
  fi
fi

exec "$@"
