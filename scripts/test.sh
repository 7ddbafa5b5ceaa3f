#!/usr/bin/env bash
# npm test: the set-up first when needed (fast when warm), then the unit and integration
# tests on the real engines. A missing engine fails the run; nothing is skipped.
# The pieces only some tests need are set up when those tests run: Chromium (Studio's
# browser tests), Pebble (the public edge's ACME tests), versitygw (the backups' S3 test),
# OpenSSH's server (the remote-engine tests) and the Kubernetes test cluster's toolchain
# (built once, cached by version).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
home=${PLATFORM_HOME:-$HOME/.platform}

# Does this run include the Kubernetes tests? A run that names no file does.
needs_kubernetes=1
named=()
for arg in "$@"; do case $arg in -*) ;; *) named+=("$arg") ;; esac; done
if [ ${#named[@]} -gt 0 ]; then
  needs_kubernetes=0
  for f in "${named[@]}"; do
    case $f in *cluster*|*kubernetes*|test|test/|test/integration|test/integration/) needs_kubernetes=1 ;; esac
  done
fi

if [ "${PLATFORM_SKIP_SETUP:-}" != "1" ]; then bash "$here/setup.sh"; fi
bash "$here/setup/chromium.sh"
# The ACME test server (Pebble) for the public-edge tests: built once from Go modules, cached by version.
bash "$here/setup/pebble.sh"
# versitygw (an S3-compatible server) for the backup tests' bucket: built once from Go modules, cached by version.
bash "$here/setup/versitygw.sh"
# The OpenSSH server for the remote-engine tests (an engine reached over DOCKER_HOST=ssh://):
# Debian's sshd binary only; the tests run their own, the machine's service stays off.
bash "$here/setup/openssh.sh"
# The Kubernetes toolchain (about 27 minutes cold, a moment warm) builds in the background while
# the Docker tests run, on the CPU time they leave idle (SCHED_IDLE, so it never takes CPU they want);
# a sequencer (test/integration/helpers/sequencer.ts) puts the cluster's tests last, and they
# wait for the build's exit code in this file.
if [ "${PLATFORM_SKIP_SETUP:-}" != "1" ] && [ "$needs_kubernetes" != 0 ]; then
  mkdir -p "$home/logs"
  export PLATFORM_KUBERNETES_SETUP_RC="$home/logs/setup-kubernetes.rc"
  rm -f "$PLATFORM_KUBERNETES_SETUP_RC"
  idle=(nice -n 19)
  if chrt --idle 0 true 2>/dev/null; then idle=(chrt --idle 0 nice -n 19); fi
  ( "${idle[@]}" bash "$here/setup/kubernetes.sh" >"$home/logs/setup-kubernetes.log" 2>&1
    echo $? >"$PLATFORM_KUBERNETES_SETUP_RC.tmp" && mv "$PLATFORM_KUBERNETES_SETUP_RC.tmp" "$PLATFORM_KUBERNETES_SETUP_RC" ) </dev/null &
  echo "Kubernetes toolchain: building in the background (log: $home/logs/setup-kubernetes.log)"
fi
# shellcheck disable=SC1091
source "$home/env.sh"
cd "$root"
exec ./node_modules/.bin/vitest run "$@"
