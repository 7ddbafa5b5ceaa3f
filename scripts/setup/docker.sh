# A Docker engine: the one DOCKER_HOST or the default socket answers on; else Debian's
# docker.io, started in the background. Builds need a BuildKit-capable client: the first
# `docker` on PATH may lack buildx (ENVIRONMENT.md), Debian's 20.10 client runs BuildKit.
# shellcheck shell=bash
engine_answers() { curl -fsS --max-time 3 --unix-socket "${DOCKER_SOCK:-/var/run/docker.sock}" http://d/_ping >/dev/null 2>&1; }

setup_docker() {
  local host=${DOCKER_HOST:-}
  DOCKER_SOCK=/var/run/docker.sock
  case $host in unix://*) DOCKER_SOCK=${host#unix://} ;; esac
  if [ -n "$host" ] && [ "${host#unix://}" = "$host" ]; then
    docker info >/dev/null 2>&1 || fail "DOCKER_HOST=$DOCKER_HOST does not answer. Start that engine, or unset DOCKER_HOST to use a local one."
    STEP_STATUS="reused the engine at $DOCKER_HOST"; find_buildkit_client; return
  fi
  if engine_answers; then STEP_STATUS="reused the running engine on $DOCKER_SOCK"; find_buildkit_client; return; fi
  if ! command -v dockerd >/dev/null; then
    [ "$(id -u)" = 0 ] || fail "no Docker engine answers and installing one needs root: run 'sudo apt-get install docker.io' (or start Docker Desktop) and run again"
    check_disk 1000 /var/lib
    echo "  installing Debian's docker.io (apt-get) ..."
    (apt-get update -qq -o DPkg::Lock::Timeout=300 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 docker.io) >"$PLATFORM_HOME/logs/apt-docker.log" 2>&1 \
      || fail "apt-get install docker.io failed; see $PLATFORM_HOME/logs/apt-docker.log"
  fi
  # A dockerd killed with its session leaves its pid file; a new one refuses to start while the
  # file names a live dockerd, so clear it only when that process is gone or is something else.
  local pidfile=/var/run/docker.pid
  if [ -f "$pidfile" ] && ! grep -qs dockerd "/proc/$(cat "$pidfile")/comm" 2>/dev/null; then rm -f "$pidfile"; fi
  echo "  starting dockerd (log: $PLATFORM_HOME/logs/dockerd.log) ..."
  nohup dockerd --host "unix://$DOCKER_SOCK" >"$PLATFORM_HOME/logs/dockerd.log" 2>&1 &
  local i pid=$!
  # Stop waiting as soon as dockerd has died: its log says why.
  for i in $(seq 1 120); do engine_answers && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  engine_answers || fail "dockerd did not start. Its last lines:
$(tail -n 15 "$PLATFORM_HOME/logs/dockerd.log")
Fix what they say (another dockerd running? no cgroups? full disk?) and run npm run setup again."
  STEP_STATUS="started dockerd $(dockerd --version | awk '{print $3}' | tr -d ,)"
  find_buildkit_client
}

find_buildkit_client() {
  local c
  for c in ${PLATFORM_DOCKER_CLI:-} /usr/bin/docker $(type -ap docker); do
    [ -x "$c" ] || continue
    if DOCKER_BUILDKIT=1 "$c" build --help 2>/dev/null | grep -q -- '--secret'; then PLATFORM_DOCKER_CLI=$c; return; fi
  done
  fail "no Docker client here can run BuildKit builds with secrets. Install Debian's docker.io (it brings /usr/bin/docker) or docker-buildx."
}
