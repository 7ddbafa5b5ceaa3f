#!/usr/bin/env bash
# Builds one Go main package into OUT from a committed wrapper module (go.mod, go.sum,
# tools.go under scripts/setup/go/<tool>/). Usage:
#   build-go-tool.sh MODULE_DIR OUT MAIN_PKG "TAGS" "LDFLAGS"
# The committed go.sum is the authority: -mod=readonly never edits go.mod or go.sum, and
# GOSUMDB=off means no checksum database is needed (none may be reachable), so a module
# whose hash differs from go.sum, or one go.sum lacks, fails the build instead of being
# trusted. To change a version: edit go.mod, run `go mod tidy` there where the checksum
# database answers (it verifies the new lines), review and commit both files.
set -euo pipefail
moddir=$1 out=$2 pkg=$3 tags=$4 ldflags=$5
[ -f "$moddir/go.mod" ] && [ -f "$moddir/go.sum" ] || { echo "no go.mod and go.sum in $moddir" >&2; exit 2; }
# The Go the module's go directive names: GOTOOLCHAIN=local (below) never fetches a newer one.
command -v go >/dev/null || { echo "Go is needed to build $pkg from modules: install Go >= $(sed -n 's/^go //p' "$moddir/go.mod") (the go directive of $moddir/go.mod)" >&2; exit 3; }
# Ambient settings must not change what is checked: GOINSECURE allows plain-http fetches,
# GONOSUMDB/GOPRIVATE mean nothing without a checksum database, and a go.work above the
# repository would replace this module's go.sum with its own.
unset GONOSUMDB GOPRIVATE GOINSECURE
export GOFLAGS=-mod=readonly GOSUMDB=off GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0
case $out in /*) ;; *) out=$PWD/$out ;; esac
mkdir -p "$(dirname "$out")"
cd "$moddir"
# Patched sources (MODULE_DIR/patches.txt: "module file patch" per line): the build runs in a
# temporary copy of the module with its dependencies vendored (go.sum verifies each) and those
# files patched there; Go refuses to overlay files of the module cache, which stays untouched.
# Module "std" is Go's standard library: its file (under GOROOT/src) is copied, patched, and
# given to the build as an overlay (go build -overlay), GOROOT untouched. A patch that no longer
# applies to the pinned version (or to this Go's library) fails the build.
overlay=()
if [ -f patches.txt ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir "$work/mod" "$work/std"
  cp ./* "$work/mod/"
  cd "$work/mod"
  go mod vendor
  replace=()
  while read -r mod file patchfile; do
    case $mod in ''|'#'*) continue ;; esac
    if [ "$mod" = std ]; then
      src=$(go env GOROOT)/src/$file
      [ -f "$src" ] || { echo "patches.txt: Go's library has no $file" >&2; exit 2; }
      mkdir -p "$work/std/$(dirname "$file")"
      cp "$src" "$work/std/$file"
      patch --quiet --forward "$work/std/$file" "$patchfile" || { echo "patches.txt: $patchfile does not apply to $(go version)'s $file" >&2; exit 2; }
      replace+=("\"$src\": \"$work/std/$file\"")
      continue
    fi
    [ -f "vendor/$mod/$file" ] || { echo "patches.txt: the build uses no $file of $mod" >&2; exit 2; }
    patch --quiet --forward "vendor/$mod/$file" "$patchfile" || { echo "patches.txt: $patchfile does not apply to $mod's $file" >&2; exit 2; }
  done < patches.txt
  export GOFLAGS=-mod=vendor
  if [ ${#replace[@]} -gt 0 ]; then
    (IFS=,; echo "{\"Replace\": {${replace[*]}}}") > "$work/overlay.json"
    overlay=(-overlay "$work/overlay.json")
  fi
fi
go build -trimpath "${overlay[@]}" -tags "$tags" -ldflags "$ldflags" -o "$out.tmp" "$pkg"
mv "$out.tmp" "$out"
