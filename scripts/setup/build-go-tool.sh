#!/usr/bin/env bash
# Builds one Go main package from the module proxy into OUT, through a throw-away wrapper
# module (ENVIRONMENT.md: a dependency's own replace directives do not apply, so the ones
# that matter are repeated here). Usage:
#   build-go-tool.sh OUT MAIN_PKG "REQUIRE..." "REPLACE..." "TAGS" "LDFLAGS"
set -euo pipefail
out=$1 pkg=$2 requires=$3 replaces=$4 tags=$5 ldflags=$6
command -v go >/dev/null || { echo "Go is needed to build $pkg from modules: install Go >= 1.22 (apt-get install golang) or install Pulumi from its official installer" >&2; exit 3; }
work=$(mktemp -d "${TMPDIR:-/tmp}/platform-gobuild.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0 GONOSUMDB=${GONOSUMDB:-github.com/pulumi}
go mod init platform.local/buildtool >/dev/null 2>&1
printf 'package tools\n\nimport _ "%s"\n' "$pkg" > tools.go
for r in $requires; do go mod edit -require="$r"; done
for r in $replaces; do go mod edit -replace="$r"; done
go mod tidy >/dev/null 2>"$work/tidy.log" || { cat "$work/tidy.log" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
go build -trimpath -tags "$tags" -ldflags "$ldflags" -o "$out.tmp" "$pkg"
mv "$out.tmp" "$out"
