#!/usr/bin/env bash
# Traefik v3 (the proxy Coolify and Dokploy put in front of apps): the Kubernetes test cluster's
# ingress controller (its front door, src/test-cluster/front-door.ts) and a peer in bench/edge.
# Built from Go modules as the other Go tools are (no release binary may be downloaded here), cached under $PLATFORM_HOME/toolchain/traefik-v<version>/
# keyed by version, so a second run takes a moment. Prints the binary's path. Idempotent.
#
# Traefik cannot be built as a dependency of a wrapper module as Caddy is: its go.mod replaces
# modules (its forks of go-http-auth and mux, and the nested module dynamic/ext by a local path),
# and a dependency's replace directives are ignored. So the committed wrapper
# scripts/setup/go/traefik pins and verifies Traefik's own module (its go.sum holds Traefik's
# hash), and Traefik is built inside a copy of that module, whose own go.sum decides every
# dependency's hash. Two changes to the copy, because the module proxy here lacks them:
# - the nested module github.com/traefik/traefik/dynamic/ext (not in the module's zip, not on the
#   proxy) is written here: in Traefik's open-source build it holds empty extension types only;
# - lego's DNS-01 providers (several of their SDKs are not on the proxy) are left out: ACME over
#   DNS then fails with an error. The benchmark serves a fixed certificate, no ACME;
# - Traefik's fork of go-http-auth is not on the proxy either: the basicAuth and digestAuth
#   middlewares are left out (a router that uses one fails with an error). The benchmark uses none.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TRAEFIK_VERSION=3.7.13   # github.com/traefik/traefik/v3, pinned in scripts/setup/go/traefik/go.mod
module=github.com/traefik/traefik/v3
moddir=$REPO_ROOT/scripts/setup/go/traefik
dir=$TOOLCHAIN/traefik-v$TRAEFIK_VERSION
log=$PLATFORM_HOME/logs/build-traefik.log

if [ -x "$dir/traefik" ]; then
  echo "$dir/traefik"
  exit 0
fi
grep -Eq "$module v$TRAEFIK_VERSION\$" "$moddir/go.mod" \
  || fail "scripts/setup/go/traefik/go.mod does not pin traefik v$TRAEFIK_VERSION (traefik.sh)"
command -v go >/dev/null || fail "Go is needed to build Traefik $TRAEFIK_VERSION from modules: install $(go_hint "$moddir")"
check_disk 500 "$PLATFORM_HOME"
mkdir -p "$dir" "$(dirname "$log")"
: >"$log"
echo "  building Traefik $TRAEFIK_VERSION from Go modules (minutes on 2 cores with a cold Go build cache; log: $log) ..." >&2

# Traefik's module, checked against the wrapper's go.sum (GOSUMDB=off: go.sum is the authority).
src=$(cd "$moddir" && GOFLAGS=-mod=readonly GOWORK=off GOSUMDB=off GOTOOLCHAIN=local \
  go mod download -json "$module@v$TRAEFIK_VERSION" 2>>"$log" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[ -n "$src" ] && [ -f "$src/go.sum" ] || fail "could not download $module@v$TRAEFIK_VERSION as go.sum pins it; see $log"

work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
cp -r "$src/." "$work/" && chmod -R u+w "$work"
mkdir -p "$work/pkg/config/dynamic/ext"
printf 'module github.com/traefik/traefik/dynamic/ext\n\ngo 1.24.0\n' >"$work/pkg/config/dynamic/ext/go.mod"
cat >"$work/pkg/config/dynamic/ext/ext.go" <<'GO'
// Package ext: the extension points of Traefik's dynamic configuration, empty in the open-source build.
package ext

type HTTP struct{}

type Router struct{}

type RouterIng struct{}

func (RouterIng) ToRouter() Router { return Router{} }
GO
acme=$work/pkg/provider/acme/provider.go
grep -q '"github.com/go-acme/lego/v5/providers/dns"' "$acme" && grep -q 'dns.NewDNSChallengeProviderByName(' "$acme" \
  || fail "Traefik $TRAEFIK_VERSION's pkg/provider/acme/provider.go is not as traefik.sh expects"
sed -i -e '/"github.com\/go-acme\/lego\/v5\/providers\/dns"/d' \
  -e 's/dns\.NewDNSChallengeProviderByName(\(p\.DNSChallenge\.Provider\))/nil, fmt.Errorf("DNS challenge provider %s: not in this build (scripts\/setup\/traefik.sh)", \1)/' "$acme"
grep -q '^	"fmt"$' "$acme" || sed -i 's/^import (/import (\n\t"fmt"/' "$acme"

auth=$work/pkg/middlewares/auth
rm "$auth/basic_auth.go" "$auth/digest_auth.go" "$auth"/basic_auth_test.go "$auth"/digest_auth*_test.go
cat >"$auth/basic_digest_stub.go" <<'GO'
package auth

import (
	"context"
	"errors"
	"net/http"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
)

var errNotBuilt = errors.New("basicAuth and digestAuth are not in this build (scripts/setup/traefik.sh)")

func NewBasic(context.Context, http.Handler, dynamic.BasicAuth, string) (http.Handler, error) {
	return nil, errNotBuilt
}

func NewDigest(context.Context, http.Handler, dynamic.DigestAuth, string) (http.Handler, error) {
	return nil, errNotBuilt
}
GO
# Nothing imports go-http-auth now; without the replace, its fork is not even looked up.
go mod edit -dropreplace github.com/abbot/go-http-auth "$work/go.mod"

"$REPO_ROOT/scripts/setup/build-go-tool.sh" "$work" "$dir/traefik" ./cmd/traefik "" \
  "-s -w -X $module/pkg/version.Version=$TRAEFIK_VERSION" >>"$log" 2>&1 \
  || fail "building Traefik failed; last lines of $log:
$(tail -n 20 "$log")"
echo "$dir/traefik"
