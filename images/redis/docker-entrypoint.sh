#!/usr/bin/env bash
# Entrypoint of platform-local/redis:7.0. `redis-server [ARGS...]` runs with a config file made
# here: the password from REDIS_PASSWORD (required; written into a 0600 file, never on argv),
# AOF persistence (appendonly yes, appendfsync everysec) in /data, protected mode off (the
# password guards it; only the stack's network reaches it). Any other command runs as it is.
set -Eeuo pipefail

if [ "${1:-redis-server}" = redis-server ]; then
  [ $# -gt 0 ] && shift
  : "${REDIS_PASSWORD:?REDIS_PASSWORD is required}"
  conf=/run/redis.conf
  umask 077
  {
    echo "bind * -::*"
    echo "port 6379"
    echo "protected-mode no"
    echo "dir /data"
    echo "appendonly yes"
    echo "appendfsync everysec"
    echo "appenddirname appendonly"
    echo "save \"\""
    echo "maxmemory-policy noeviction"
    printf 'requirepass "%s"\n' "$REDIS_PASSWORD"
  } >"$conf"
  if [ "$(id -u)" = 0 ]; then
    chown -R redis:redis /data "$conf"
    unset REDIS_PASSWORD REDISCLI_AUTH
    exec setpriv --reuid=redis --regid=redis --init-groups redis-server "$conf" "$@"
  fi
  unset REDIS_PASSWORD REDISCLI_AUTH
  exec redis-server "$conf" "$@"
fi
exec "$@"
