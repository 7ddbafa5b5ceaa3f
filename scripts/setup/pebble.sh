#!/usr/bin/env bash
# Pebble (Let's Encrypt's ACME test CA) and pebble-challtestsrv (the DNS it validates through),
# for the public-edge tests: Caddy obtains real ACME certificates from it. Built from the
# committed wrapper module scripts/setup/go/pebble (no release binary may be downloaded here),
# cached outside the repo under $PLATFORM_HOME/toolchain/pebble-v<version>/ keyed by version,
# so a second run takes a moment. Also copies the test certificates that ship inside the
# Pebble module (its minica root, and the localhost certificate Pebble's own HTTPS API serves),
# and records every path in $PLATFORM_HOME/pebble.json for the tests. Idempotent.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PEBBLE_VERSION=2.10.1   # github.com/letsencrypt/pebble/v2, pinned in scripts/setup/go/pebble/go.mod
moddir=$REPO_ROOT/scripts/setup/go/pebble
dir=$TOOLCHAIN/pebble-v$PEBBLE_VERSION
log=$PLATFORM_HOME/logs/build-pebble.log
record=$PLATFORM_HOME/pebble.json
files=(pebble pebble-challtestsrv pebble.minica.pem localhost/cert.pem localhost/key.pem)

complete() { local f; for f in "${files[@]}"; do [ -s "$dir/$f" ] || return 1; done; }

write_record() {  # the tests read the paths from here, never from the module cache
  local tmp=$record.tmp
  printf '{\n  "version": "%s",\n  "pebble": "%s",\n  "challtestsrv": "%s",\n  "minicaRoot": "%s",\n  "cert": "%s",\n  "key": "%s"\n}\n' \
    "$PEBBLE_VERSION" "$dir/pebble" "$dir/pebble-challtestsrv" "$dir/pebble.minica.pem" \
    "$dir/localhost/cert.pem" "$dir/localhost/key.pem" >"$tmp" && mv "$tmp" "$record"
}

t0=$(date +%s.%N)
if complete; then
  write_record
  echo "  ✓ Pebble $PEBBLE_VERSION for the ACME tests: reused $dir"
  exit 0
fi

grep -Eq "github.com/letsencrypt/pebble/v2 v$PEBBLE_VERSION\$" "$moddir/go.mod" \
  || fail "scripts/setup/go/pebble/go.mod does not pin pebble v$PEBBLE_VERSION (pebble.sh): update it with go mod tidy"
command -v go >/dev/null || fail "Go is needed to build Pebble $PEBBLE_VERSION from modules: install $(go_hint "$moddir")"
check_disk 200 "$PLATFORM_HOME"
mkdir -p "$dir/localhost"
echo "  building Pebble $PEBBLE_VERSION from Go modules (about 45 s on 2 cores with a cold Go build cache; log: $log) ..."
: >"$log"
for bin in pebble pebble-challtestsrv; do
  # the same checked build as Caddy's and Pulumi's: go.sum decides every module's hash
  "$REPO_ROOT/scripts/setup/build-go-tool.sh" "$moddir" "$dir/$bin" \
    "github.com/letsencrypt/pebble/v2/cmd/$bin" "" "-s -w" >>"$log" 2>&1 \
    || fail "building $bin failed; last lines of $log:
$(tail -n 20 "$log")"
done

# The certificates come from the module cache the build just filled (go.sum verified that
# module's hash), so they are exactly the ones this Pebble version ships.
src=$(cd "$moddir" && GOFLAGS=-mod=readonly GOWORK=off GOSUMDB=off GOTOOLCHAIN=local \
  go list -m -f '{{.Dir}}' github.com/letsencrypt/pebble/v2 2>>"$log") || true
[ -n "$src" ] && [ -f "$src/test/certs/pebble.minica.pem" ] \
  || fail "the Pebble module directory (go list -m -f '{{.Dir}}' github.com/letsencrypt/pebble/v2 in $moddir) has no test/certs/pebble.minica.pem; see $log"
for f in pebble.minica.pem localhost/cert.pem localhost/key.pem; do
  cp "$src/test/certs/$f" "$dir/$f.tmp" && chmod 600 "$dir/$f.tmp" && mv "$dir/$f.tmp" "$dir/$f"
done
# The module cache is read-only; the copies are the user's own, readable by the tests.
chmod 644 "$dir/pebble.minica.pem" "$dir/localhost/cert.pem"
complete || fail "Pebble's toolchain in $dir is incomplete after the build; see $log"
write_record
echo "  ✓ Pebble $PEBBLE_VERSION for the ACME tests: built in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')s ($dir)"
