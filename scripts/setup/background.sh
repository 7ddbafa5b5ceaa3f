# Steps that run in the background while npm test goes on (scripts/test.sh): each in a session
# of its own, its output in OUT/NAME.log, its session's pid in OUT/NAME.pid and its exit code in
# OUT/NAME.rc, whatever it ends with (set -e is off there, so a failed step still writes its
# code: before, a failed build left no code and the tests that waited for it polled until their
# hooks timed out). `out` must be set.
# shellcheck shell=bash

bg_names=()

tail_of() { echo "--- last lines of $1:"; tail -n "${2:-30}" "$1" 2>/dev/null || echo "(no log)"; }

in_background() {  # in_background NAME command...
  local name=$1 i; shift
  rm -f "$out/$name.rc" "$out/$name.pid"
  # shellcheck disable=SC2016
  setsid -f bash -c 'echo $$ >"$1.pid"; set +e; "${@:2}" >"$1.log" 2>&1 </dev/null; echo $? >"$1.rc.tmp"; mv "$1.rc.tmp" "$1.rc"' \
    _ "$out/$name" "$@" >/dev/null 2>&1 </dev/null
  for i in $(seq 100); do [ -s "$out/$name.pid" ] && break; sleep 0.05; done
  bg_names+=("$name")
}

bg_pid() { cat "$out/$1.pid" 2>/dev/null || echo 0; }

# Stops every background step with all its children: for a run that ends before them.
stop_background() {
  local n
  for n in "${bg_names[@]}"; do [ -f "$out/$n.rc" ] || kill -- "-$(bg_pid "$n")" 2>/dev/null || true; done
}

# Waits for a background step; fails at once, with its log's tail, when it failed or died.
await_background() {  # await_background NAME WHAT
  local name=$1 what=$2
  while [ ! -f "$out/$name.rc" ]; do
    if ! kill -0 "$(bg_pid "$name")" 2>/dev/null && [ ! -f "$out/$name.rc" ]; then
      echo "✖ $what ended without an exit code; log: $out/$name.log"; tail_of "$out/$name.log"; return 1
    fi
    sleep 1
  done
  if [ "$(cat "$out/$name.rc")" != 0 ]; then
    echo "✖ $what failed (exit $(cat "$out/$name.rc")); log: $out/$name.log"; tail_of "$out/$name.log"; return 1
  fi
}
