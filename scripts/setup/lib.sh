# Shared helpers for the set-up steps: versions, paths, and a `step` runner that prints
# what each step does, how long it took, and whether it reused a cache.
# shellcheck shell=bash
PLATFORM_HOME=${PLATFORM_HOME:-$HOME/.platform}
PULUMI_VERSION=3.259.0
LANGHOST_SDK_VERSION=3.68.0     # last sdk/v3 that still contains the Node.js language host
NODE_VERSION=24.21.0
NODE_MIN_MAJOR=22
TOOLCHAIN=$PLATFORM_HOME/toolchain
NODE_DIR=$TOOLCHAIN/node-$NODE_VERSION
PULUMI_DIR=$TOOLCHAIN/pulumi-$PULUMI_VERSION
ENV_FILE=$PLATFORM_HOME/env.sh
REPO_ROOT=${REPO_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
mkdir -p "$TOOLCHAIN" "$PLATFORM_HOME/logs"
chmod 700 "$PLATFORM_HOME"   # state, credentials, records and logs are the user's alone
# npm on the host trusts only Node's bundled CAs; a proxy or company CA installed system-wide
# is in the system bundle, which Node reads when told to.
if [ -z "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
fi

STEP_STATUS=""   # a step sets this to "reused" when it found its cache
fail() { printf '\n✖ %s\n' "$*" >&2; exit 1; }

step() {  # step "what it does" function-name
  local label=$1 fn=$2 t0 t1
  printf '→ %s ...\n' "$label"
  STEP_STATUS="done"
  t0=$(date +%s.%N)
  "$fn" || fail "$label failed (see the lines above)"
  t1=$(date +%s.%N)
  printf '  ✓ %s: %s in %ss\n' "$label" "$STEP_STATUS" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
}

# A step that runs beside the next ones: its lines go to a log until join_step prints them,
# and the variables named after its function come back with them. A set-up that
# stops early stops it too.
BACKGROUND_PIDS=()
step_in_background() {  # step_in_background NAME "what it does" function-name [VARIABLE...]
  local name=$1 label=$2 fn=$3
  shift 3
  (
    step "$label" "$fn"
    for v in "$@"; do printf '%s=%q\n' "$v" "${!v}"; done >"$PLATFORM_HOME/logs/setup-$name.vars"
  ) >"$PLATFORM_HOME/logs/setup-$name.log" 2>&1 &
  BACKGROUND_PIDS+=("$!")
  printf -v "BACKGROUND_$name" '%s' "$!"
  trap 'kill "${BACKGROUND_PIDS[@]}" 2>/dev/null || true' EXIT
}

join_step() {  # join_step NAME: waits for it, prints its lines, fails when it failed, takes its variables
  local name=$1 pid_var="BACKGROUND_$1" rc=0
  wait "${!pid_var}" || rc=$?
  cat "$PLATFORM_HOME/logs/setup-$name.log"
  [ "$rc" = 0 ] || exit "$rc"
  # shellcheck disable=SC1090
  source "$PLATFORM_HOME/logs/setup-$name.vars"
}

version_ge() {  # version_ge A B: true when A >= B
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

# The Go that builds the wrapper modules MODDIR...: the highest go directive of their go.mod,
# said with why. Every build runs with GOTOOLCHAIN=local, so an older Go refuses the module
# instead of fetching a newer one: a hint read from the go.mod cannot send users to a Go that fails.
go_needed() {  # go_needed MODDIR...: e.g. 1.25.11
  local d
  for d in "$@"; do sed -n 's/^go \([0-9][0-9.]*\)[[:space:]]*$/\1/p' "$d/go.mod"; done | sort -V | tail -n1
}
go_hint() {  # go_hint MODDIR...: "Go >= V (...)", for a message that says what to install
  local d need where=""
  need=$(go_needed "$@")
  for d in "$@"; do [ -n "$where" ] || [ "$(go_needed "$d")" != "$need" ] || where=${d#"$REPO_ROOT"/}/go.mod; done
  echo "Go >= $need (the go directive of $where; the set-up builds with GOTOOLCHAIN=local, which never fetches a newer Go)"
}

check_disk() {  # fail early and clearly when the disk is full
  local need_mb=$1 dir=$2 avail
  avail=$(df -Pm "$dir" | awk 'NR==2 {print $4}')
  [ "$avail" -ge "$need_mb" ] || fail "only ${avail} MB free on $(df -P "$dir" | awk 'NR==2 {print $6}'); set-up needs about ${need_mb} MB. Free some space (docker system prune, rm -rf ~/.cache) and run npm run setup again."
}
