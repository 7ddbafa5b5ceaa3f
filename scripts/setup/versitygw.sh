#!/usr/bin/env bash
# versitygw, an S3-compatible server over a plain directory, for the backup tests that store
# backups in a bucket. Built from the committed wrapper module scripts/setup/go/versitygw (no
# release binary may be downloaded here), cached outside the repo under
# $PLATFORM_HOME/toolchain/versitygw-v<version>/ keyed by version, so a second run takes a
# moment. Records the binary's path in $PLATFORM_HOME/versitygw.json for the tests. Idempotent.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VERSITYGW_VERSION=1.8.0   # github.com/versity/versitygw, pinned in scripts/setup/go/versitygw/go.mod
moddir=$REPO_ROOT/scripts/setup/go/versitygw
dir=$TOOLCHAIN/versitygw-v$VERSITYGW_VERSION
log=$PLATFORM_HOME/logs/build-versitygw.log
record=$PLATFORM_HOME/versitygw.json

write_record() {
  printf '{\n  "version": "%s",\n  "versitygw": "%s"\n}\n' "$VERSITYGW_VERSION" "$dir/versitygw" >"$record.tmp" && mv "$record.tmp" "$record"
}

t0=$(date +%s.%N)
if [ -x "$dir/versitygw" ]; then
  write_record
  echo "  ✓ versitygw $VERSITYGW_VERSION for the backup tests: reused $dir"
  exit 0
fi
grep -Eq "github.com/versity/versitygw v$VERSITYGW_VERSION\$" "$moddir/go.mod" \
  || fail "scripts/setup/go/versitygw/go.mod does not pin versitygw v$VERSITYGW_VERSION (versitygw.sh): update it with go mod tidy"
command -v go >/dev/null || fail "Go is needed to build versitygw $VERSITYGW_VERSION from modules: install $(go_hint "$moddir")"
check_disk 300 "$PLATFORM_HOME"
mkdir -p "$dir" "$(dirname "$log")"
echo "  building versitygw $VERSITYGW_VERSION from Go modules (a few minutes on 2 cores with a cold Go build cache; log: $log) ..."
"$REPO_ROOT/scripts/setup/build-go-tool.sh" "$moddir" "$dir/versitygw" github.com/versity/versitygw/cmd/versitygw "" "-s -w" >"$log" 2>&1 \
  || fail "building versitygw failed; last lines of $log:
$(tail -n 20 "$log")"
write_record
echo "  ✓ versitygw $VERSITYGW_VERSION for the backup tests: built in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')s ($dir)"
