# The Pulumi CLI and the Node.js language host: the ones installed when new enough, else the
# cached build, else the official installer (only where Go is missing and its site answers),
# else a build from Go modules (ENVIRONMENT.md), cached under the platform home by version.
# The module versions and their hashes are committed under scripts/setup/go/<tool>/: the
# versions in lib.sh must match those go.mod files (checked below before a build).
# shellcheck shell=bash
PULUMI_LDFLAGS_PKG=github.com/pulumi/pulumi/sdk/v3/go/common/version.Version
GO_TOOLS=$REPO_ROOT/scripts/setup/go

# go_mod_requires DIR MODULE VERSION: true when DIR/go.mod requires MODULE at exactly VERSION.
go_mod_requires() { grep -Eq "^[[:space:]]*(require[[:space:]]+)?$2[[:space:]]+$3([[:space:]]|\$)" "$1/go.mod"; }

pulumi_version_of() { "$1" version 2>/dev/null | sed 's/^v//'; }

setup_pulumi() {
  local found
  found=$(command -v pulumi || true)
  if [ -n "$found" ] && version_ge "$(pulumi_version_of "$found")" "$PULUMI_VERSION" \
     && { [ -x "$(dirname "$found")/pulumi-language-nodejs" ] || command -v pulumi-language-nodejs >/dev/null; }; then
    PULUMI_BIN=$found; STEP_STATUS="reused installed pulumi $(pulumi_version_of "$found") at $found"; return
  fi
  PULUMI_BIN=$PULUMI_DIR/bin/pulumi
  local langhost=$PULUMI_DIR/bin/pulumi-language-nodejs reused=()
  if [ -x "$PULUMI_BIN" ] && [ "$(pulumi_version_of "$PULUMI_BIN")" = "$PULUMI_VERSION" ]; then reused+=("pulumi $PULUMI_VERSION"); fi
  [ -x "$langhost" ] && reused+=("language host")
  if [ ${#reused[@]} -eq 2 ]; then STEP_STATUS="reused ${reused[*]} from $PULUMI_DIR"; return; fi
  # PLATFORM_PULUMI_INSTALLER=never keeps the set-up from even asking get.pulumi.com.
  if ! command -v go >/dev/null && [ "${PLATFORM_PULUMI_INSTALLER:-auto}" != never ] \
     && curl -fsSI --max-time 5 https://get.pulumi.com/ >/dev/null 2>&1; then
    echo "  Go is missing and get.pulumi.com answers: using the official installer ..."
    curl -fsSL https://get.pulumi.com | sh -s -- --version "$PULUMI_VERSION" --install-root "$PULUMI_DIR" --no-edit-path >/dev/null \
      || fail "the official Pulumi installer failed"
    STEP_STATUS="installed pulumi $PULUMI_VERSION with the official installer"; return
  fi
  local modules=("$GO_TOOLS/pulumi" "$GO_TOOLS/pulumi-language-nodejs") have
  command -v go >/dev/null || fail "Pulumi $PULUMI_VERSION is not installed and cannot be built: Go is missing. Install $(go_hint "${modules[@]}") from go.dev/dl, or install Pulumi with its official installer, then run npm run setup again."
  have=$(go env GOVERSION 2>/dev/null || true)
  have=${have#go}
  version_ge "$have" "$(go_needed "${modules[@]}")" || fail "Pulumi $PULUMI_VERSION is not installed and cannot be built with this machine's Go ${have:-(version unknown)}. Install $(go_hint "${modules[@]}") from go.dev/dl, or install Pulumi with its official installer, then run npm run setup again."
  check_disk 3000 "$TOOLCHAIN"
  local build=$REPO_ROOT/scripts/setup/build-go-tool.sh
  if ! go_mod_requires "$GO_TOOLS/pulumi" github.com/pulumi/pulumi/pkg/v3 "v$PULUMI_VERSION" \
     || ! go_mod_requires "$GO_TOOLS/pulumi-language-nodejs" github.com/pulumi/pulumi/sdk/v3 "v$LANGHOST_SDK_VERSION"; then
    fail "scripts/setup/go/*/go.mod do not pin pulumi $PULUMI_VERSION and sdk $LANGHOST_SDK_VERSION (lib.sh): update them with go mod tidy"
  fi
  if [ ! -x "$PULUMI_BIN" ] || [ "$(pulumi_version_of "$PULUMI_BIN")" != "$PULUMI_VERSION" ]; then
    echo "  building the Pulumi CLI $PULUMI_VERSION from Go modules (about 5 minutes on 2 cores; log: $PLATFORM_HOME/logs/build-pulumi.log) ..."
    "$build" "$GO_TOOLS/pulumi" "$PULUMI_BIN" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi \
      "osusergo,grpcnotrace" "-s -w -X $PULUMI_LDFLAGS_PKG=v$PULUMI_VERSION" >"$PLATFORM_HOME/logs/build-pulumi.log" 2>&1 \
      || fail "building the Pulumi CLI failed; last lines of $PLATFORM_HOME/logs/build-pulumi.log:
$(tail -n 20 "$PLATFORM_HOME/logs/build-pulumi.log")"
  fi
  if [ ! -x "$langhost" ]; then
    echo "  building the Node.js language host (sdk/v3 v$LANGHOST_SDK_VERSION) from Go modules ..."
    "$build" "$GO_TOOLS/pulumi-language-nodejs" "$langhost" github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs \
      "" "-s -w -X $PULUMI_LDFLAGS_PKG=v$LANGHOST_SDK_VERSION" \
      >"$PLATFORM_HOME/logs/build-langhost.log" 2>&1 \
      || fail "building the language host failed; see $PLATFORM_HOME/logs/build-langhost.log"
  fi
  STEP_STATUS="built pulumi $PULUMI_VERSION and the language host into $PULUMI_DIR/bin${reused:+ (reused ${reused[*]})}"
}
