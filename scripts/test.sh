#!/usr/bin/env bash
# npm test: the set-up when needed, then every test on the real engines, in stages that fail
# fast, each with its own time limit (docs/internals/tests.md). A missing engine fails the run;
# nothing is skipped (a skipped test fails its stage).
#   1. unit:    the type check, lint, the docs site (no broken link or anchor) and the unit
#               tests (minutes), while the rest of the set-up and the Kubernetes toolchain
#               build in the background;
#   2. docker:  the integration files on the Docker engine, side by side (test/runner/stage.ts);
#   3. cluster: the integration files on the Kubernetes test cluster, once its toolchain is built.
# The pieces only some tests need are set up in the background too: Chromium (Studio's browser
# tests), Pebble (the public edge's ACME tests), versitygw (the backups' S3 tests), OpenSSH's
# server (the remote-engine tests) and the Kubernetes toolchain (built once, cached by version).
# With file names (npm test -- test/integration/x.test.ts), one vitest run over those files.
# Every run keeps its logs and a per-file timing table under $PLATFORM_HOME/logs/tests/.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
home=${PLATFORM_HOME:-$HOME/.platform}
skip_setup=${PLATFORM_SKIP_SETUP:-0}
cd "$root"

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

# The disk the engines write to: the whole run builds images and starts clusters on it. Near
# full, a kubelet frees space by deleting unused images (the pause image with them: nothing
# starts after), and builds fail part way: said now, with what to clean, not 20 minutes later.
free_gb=$(df -Pk "$(dirname "$home")" | awk 'NR==2 {print int($4 / 1048576)}')
if [ "${free_gb:-0}" -lt "${PLATFORM_TEST_MIN_FREE_GB:-4}" ]; then
  echo "✖ only ${free_gb} GiB free on the disk of $home: the tests need about ${PLATFORM_TEST_MIN_FREE_GB:-4} GiB at least (docker builder prune and docker image prune free the build cache and unused images; old platform homes can go)" >&2
  exit 1
fi
[ "${free_gb:-0}" -lt 10 ] && echo "⚠ ${free_gb} GiB free on the disk of $home: a whole run can fill it (docker builder prune frees the build cache)" >&2

out=$home/logs/tests/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
t_run=$(date +%s)
since() { local s=$(( $(date +%s) - $1 )); printf '%d min %02d s' $((s / 60)) $((s % 60)); }
# shellcheck source=setup/background.sh
source "$here/setup/background.sh"
trap stop_background EXIT

if [ "$skip_setup" != 1 ]; then
  bash "$here/setup.sh" --part base
  # The engines and the test-only pieces: apt, Go and image builds, beside the unit stage.
  export PLATFORM_ENGINES_SETUP_RC=$out/setup-engines.rc
  in_background setup-engines bash -c "bash '$here/setup.sh' --part engines && bash '$here/setup/chromium.sh' &&
    bash '$here/setup/pebble.sh' && bash '$here/setup/versitygw.sh' && bash '$here/setup/openssh.sh'"
  echo "set-up of the engines and the tests' pieces: in the background (log: $out/setup-engines.log)"
  if [ "$needs_kubernetes" != 0 ]; then
    # About 25 minutes cold, a moment warm. At nice 10: the unit and Docker stages come first,
    # yet it is ready in time for the cluster stage.
    export PLATFORM_KUBERNETES_SETUP_RC=$out/setup-kubernetes.rc
    in_background setup-kubernetes nice -n 10 bash "$here/setup/kubernetes.sh"
    PLATFORM_KUBERNETES_SETUP_PID=$(bg_pid setup-kubernetes)
    export PLATFORM_KUBERNETES_SETUP_PID
    echo "Kubernetes toolchain: building in the background (log: $out/setup-kubernetes.log)"
  fi
fi
# shellcheck disable=SC1091
source "$here/setup/lib.sh"
# shellcheck disable=SC1091
source "$here/setup/node.sh"
setup_node >/dev/null
export PATH="$NODE_BIN:$root/node_modules/.bin:$PATH"

join_engines() {
  [ "$skip_setup" = 1 ] && return 0
  await_background setup-engines "the set-up of the engines" || return 1
  cat "$out/setup-engines.log"
}

# With file names: one vitest run over them, once the set-up is done.
if [ ${#named[@]} -gt 0 ] || [ $# -gt 0 ]; then
  join_engines
  # shellcheck disable=SC1091
  source "$home/env.sh"
  exec vitest run "$@"
fi

stage_limit() { local v="PLATFORM_TEST_LIMIT_${1^^}"; echo "${!v:-$2}"; }
fail_run() { echo "✖ $1 ($(since "$t_run") into the run)"; node_modules/.bin/tsx test/runner/summary.ts "$out" || true; exit 1; }

# The cluster stage starts at once, beside the unit and docker stages, and runs as soon as the
# engines' set-up and its toolchain are ready (the cluster shares no engine with the docker
# stage: it runs its own containerd); PLATFORM_TEST_CLUSTER_OVERLAP=0 runs it after the docker
# stage. Its lines are printed as they come, marked [cluster]; a failure in any stage stops all.
cluster_stage() {
  local t
  t=$(date +%s)
  if [ "$skip_setup" != 1 ]; then await_background setup-engines "the set-up of the engines" >/dev/null || return 1; fi
  # shellcheck disable=SC1091
  source "$home/env.sh"
  if [ -n "${PLATFORM_KUBERNETES_SETUP_PID:-}" ]; then
    echo "waiting for the Kubernetes toolchain's build (log: $out/setup-kubernetes.log)"
    await_background setup-kubernetes "the Kubernetes toolchain's build" || return 1
    echo "Kubernetes toolchain ready after $(since "$t") of waiting"
  fi
  tsx test/runner/stage.ts cluster "$out"
}
overlap=${PLATFORM_TEST_CLUSTER_OVERLAP:-1}
if [ "$overlap" = 1 ]; then
  echo "━━ stage cluster: the integration tests on the Kubernetes test cluster, beside the others (log: $out/stage-cluster.log)"
  export -f cluster_stage since await_background bg_pid tail_of
  export out home skip_setup
  in_background stage-cluster bash -c cluster_stage
  # Ends by itself with the stage (--pid), or with this script, which stops the stage when it fails.
  tail -n +1 -F --pid="$(bg_pid stage-cluster)" "$out/stage-cluster.log" 2>/dev/null | sed -u 's/^/[cluster] /' &
  tail_pid=$!
fi

echo "━━ stage unit: type check, lint, the docs site, unit tests (limit $(stage_limit unit 10) min)"
t=$(date +%s)
timeout "$(stage_limit unit 10)m" bash -c "npm run --silent typecheck && npm run --silent lint && npm run --silent docs" \
  || fail_run "stage unit: the type check, lint or the docs site failed, or exceeded $(stage_limit unit 10) min"
tsx test/runner/stage.ts unit "$out" || fail_run "stage unit failed"
echo "━━ stage unit passed in $(since "$t")"

join_engines || fail_run "the set-up failed"
# shellcheck disable=SC1091
source "$home/env.sh"

t_docker=$(date +%s)
echo "━━ stage docker: the integration tests on the Docker engine"
tsx test/runner/stage.ts docker "$out" || fail_run "stage docker failed"
echo "━━ stage docker passed in $(since "$t_docker")"
if [ "$overlap" = 1 ]; then
  await_background stage-cluster "stage cluster" || { wait "$tail_pid" || true; fail_run "stage cluster failed"; }
  wait "$tail_pid" || true
else
  echo "━━ stage cluster: the integration tests on the Kubernetes test cluster"
  cluster_stage || fail_run "stage cluster failed"
fi
echo "━━ stage cluster passed ($(since "$t_run") into the run)"

echo "━━ all stages passed in $(since "$t_run")"
tsx test/runner/summary.ts "$out"
