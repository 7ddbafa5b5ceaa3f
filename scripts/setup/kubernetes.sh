#!/usr/bin/env bash
# The Kubernetes test cluster's toolchain (docs/internals/test-cluster.md). Opt-in, never in the default
# set-up: `npm run setup -- --kubernetes`, PLATFORM_SETUP_KUBERNETES=1, or run this file
# directly (`platform cluster up` and the Kubernetes tests do, when something is missing).
#   - Debian packages: etcd, containerd, runc, the CNI plugins, iptables, conntrack
#   - from Go modules, through the wrapper modules in scripts/setup/go/kubernetes/ whose
#     committed go.sum verifies every module by hash, cached by version under the toolchain
#     (Kubernetes, CoreDNS, metrics-server and the provider share one module, k8s/, so their
#     common libraries compile once):
#       kubernetes-v1.34.2/bin/  kube-apiserver, kube-controller-manager, kube-scheduler,
#                                kubelet, kube-proxy, kubectl, and a pause binary + image
#       coredns-v1.12.4/         coredns and its image archive
#       pulumi-kubernetes-4.25.0/  the Pulumi Kubernetes provider, installed as a plugin
#       registry-ggcr-v0.22.1/   the test cluster's image registry (go-containerregistry)
#       traefik-v3.7.13/         the test cluster's ingress controller (scripts/setup/traefik.sh;
#                                a cold build takes many minutes, a warm run a moment)
#       metrics-server-v0.8.0/   metrics-server, the resource metrics API (HPAs, kubectl top)
#       cert-manager-v1.21.2/    cert-manager's controller and HTTP-01 solver (our own mains over its
#                                packages), its CRDs, and the solver's image archive
#   - $PLATFORM_HOME/kubernetes.json: where all of it is, read by src/test-cluster/.
# Images are docker-archive tars written here (no registry, no Docker engine needed), which
# `platform cluster up` imports into the cluster's containerd.
# shellcheck shell=bash

KUBERNETES_VERSION=1.34.2
COREDNS_VERSION=1.12.4
PULUMI_KUBERNETES_VERSION=4.25.0
REGISTRY_GGCR_VERSION=0.22.1
METRICS_SERVER_VERSION=0.8.0
CERT_MANAGER_VERSION=1.21.2
KUBERNETES_APT_PACKAGES="etcd-server containerd runc containernetworking-plugins iptables conntrack"

k8s_init_paths() {
  KUBERNETES_DIR=$TOOLCHAIN/kubernetes-v$KUBERNETES_VERSION
  COREDNS_DIR=$TOOLCHAIN/coredns-v$COREDNS_VERSION
  PULUMI_KUBERNETES_DIR=$TOOLCHAIN/pulumi-kubernetes-$PULUMI_KUBERNETES_VERSION
  REGISTRY_DIR=$TOOLCHAIN/registry-ggcr-v$REGISTRY_GGCR_VERSION
  METRICS_SERVER_DIR=$TOOLCHAIN/metrics-server-v$METRICS_SERVER_VERSION
  CERT_MANAGER_DIR=$TOOLCHAIN/cert-manager-v$CERT_MANAGER_VERSION
  KUBERNETES_GO=$REPO_ROOT/scripts/setup/go/kubernetes
  KUBERNETES_MOD=$KUBERNETES_GO/k8s   # the module Kubernetes, CoreDNS, metrics-server and the provider share
  KUBERNETES_JSON=$PLATFORM_HOME/kubernetes.json
}

# A build is complete when its stamp holds the hash of the wrapper module it came from, so an
# interrupted build, or a changed go.mod/go.sum or main, builds again.
k8s_module_hash() { cat "$1"/go.mod "$1"/go.sum "$1"/*.go "$1"/*/*.go 2>/dev/null | sha256sum | cut -c1-16; }
k8s_is_built() { [ -f "$1/.built" ] && [ "$(cat "$1/.built")" = "$(k8s_module_hash "$2")" ]; }
k8s_mark_built() { k8s_module_hash "$2" >"$1/.built"; }

# Builds PKG of the wrapper module in DIR into OUT. -mod=readonly: go.sum must already pin
# every module, so nothing unverified is ever built. Pulumi's pseudo-versions are not in the
# checksum database (ENVIRONMENT.md), which is why GONOSUMDB names them; go.sum still pins them.
k8s_go_build() {  # k8s_go_build DIR OUT PKG LDFLAGS
  (cd "$1" && GOFLAGS=-mod=readonly GOTOOLCHAIN=local CGO_ENABLED=0 GONOSUMDB=github.com/pulumi \
    go build -trimpath -ldflags "$4" -o "$2.tmp" "$3") && mv "$2.tmp" "$2"
}

# A docker-archive tar (the format of `docker save`) holding one layer made of ROOTFS. USER: the
# image's user (a numeric uid), for pods that must run as non-root; root when absent.
k8s_image_archive() {  # k8s_image_archive OUT REF ENTRYPOINT_JSON ROOTFS [USER]
  local out=$1 ref=$2 entry=$3 rootfs=$4 user=${5:-} work diff cfg
  work=$(mktemp -d "${TMPDIR:-/tmp}/platform-image.XXXXXX")
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$rootfs" -cf "$work/layer.tar" .
  diff=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
  mkdir "$work/$diff" && mv "$work/layer.tar" "$work/$diff/layer.tar"
  printf '{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z","config":{%s"Entrypoint":%s},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created":"1970-01-01T00:00:00Z","created_by":"platform set-up (scripts/setup/kubernetes.sh)"}]}' \
    "${user:+\"User\":\"$user\",}" "$entry" "$diff" >"$work/config.json"
  cfg=$(sha256sum "$work/config.json" | cut -d' ' -f1)
  mv "$work/config.json" "$work/$cfg.json"
  printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]' "$cfg" "$ref" "$diff" >"$work/manifest.json"
  tar -C "$work" -cf "$out.tmp" manifest.json "$cfg.json" "$diff" && mv "$out.tmp" "$out"
  rm -rf "$work"
}

setup_kubernetes_packages() {
  local missing=() p
  for p in $KUBERNETES_APT_PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then STEP_STATUS="reused Debian packages ($KUBERNETES_APT_PACKAGES)"; return; fi
  [ "$(id -u)" = 0 ] || fail "the test cluster needs root (containerd, kubelet): run as root, or point platform at an existing cluster's kubeconfig (docs/guide/kubernetes.md)"
  local log=$PLATFORM_HOME/logs/apt-kubernetes.log
  echo "  installing ${missing[*]} (apt-get; log: $log) ..."
  # `apt-get update` only when the lists are missing or cannot find a package; wait for a
  # dpkg lock held by another set-up instead of failing.
  {
    if ! apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}" </dev/null; then
      apt-get update -qq -o DPkg::Lock::Timeout=300 && \
        apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}" </dev/null
    fi
  } >"$log" 2>&1 || fail "apt-get install ${missing[*]} failed; last lines of $log:
$(tail -n 15 "$log")"
  STEP_STATUS="installed ${missing[*]}"
}

setup_kubernetes_binaries() {
  local dir=$KUBERNETES_DIR mod=$KUBERNETES_MOD log=$PLATFORM_HOME/logs/build-kubernetes.log b p
  if k8s_is_built "$dir" "$mod" && k8s_is_built "$dir/pause" "$KUBERNETES_GO/pause"; then
    STEP_STATUS="reused Kubernetes v$KUBERNETES_VERSION from $dir/bin"; return
  fi
  command -v go >/dev/null || fail "Go >= 1.24 is needed to build Kubernetes v$KUBERNETES_VERSION from its modules: apt-get install golang-go (or go.dev), or use an existing cluster (docs/guide/kubernetes.md)"
  check_disk 6000 "$TOOLCHAIN"
  mkdir -p "$dir/bin" "$dir/pause" "$dir/images"
  # Version stamps as Kubernetes' own build sets them (hack/lib/version.sh); without them
  # every client reads the server as version 0.0.
  local ld="-s -w" minor=${KUBERNETES_VERSION#1.}; minor=${minor%%.*}
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $p.gitVersion=v$KUBERNETES_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  if ! k8s_is_built "$dir" "$mod"; then
    echo "  building Kubernetes v$KUBERNETES_VERSION from Go modules (about 5 min on 2 cores, more when busy; log: $log) ..."
    : >"$log"
    for b in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl; do
      echo "  - $b" >>"$log"
      k8s_go_build "$mod" "$dir/bin/$b" "k8s.io/kubernetes/cmd/$b" "$ld" >>"$log" 2>&1 \
        || fail "building $b failed; last lines of $log:
$(tail -n 20 "$log")"
    done
    k8s_mark_built "$dir" "$mod"
  fi
  local rootfs; rootfs=$(mktemp -d "${TMPDIR:-/tmp}/platform-pause.XXXXXX")
  k8s_go_build "$KUBERNETES_GO/pause" "$rootfs/pause" . "-s -w" >>"$log" 2>&1 || fail "building pause failed; see $log"
  cp "$rootfs/pause" "$dir/bin/pause"
  k8s_image_archive "$dir/images/pause.tar" "platform-local/pause:$KUBERNETES_VERSION" '["/pause"]' "$rootfs"
  rm -rf "$rootfs"
  k8s_mark_built "$dir/pause" "$KUBERNETES_GO/pause"
  STEP_STATUS="built Kubernetes v$KUBERNETES_VERSION into $dir/bin"
}

setup_coredns() {
  local dir=$COREDNS_DIR mod=$KUBERNETES_MOD log=$PLATFORM_HOME/logs/build-coredns.log rootfs
  if k8s_is_built "$dir" "$mod"; then STEP_STATUS="reused CoreDNS v$COREDNS_VERSION from $dir"; return; fi
  mkdir -p "$dir/bin"
  echo "  building CoreDNS v$COREDNS_VERSION from Go modules (a minute once Kubernetes' binaries are built: they share its libraries; log: $log) ..."
  k8s_go_build "$mod" "$dir/bin/coredns" github.com/coredns/coredns \
    "-s -w -X github.com/coredns/coredns/coremain.GitCommit=v$COREDNS_VERSION" >"$log" 2>&1 \
    || fail "building CoreDNS failed; last lines of $log:
$(tail -n 20 "$log")"
  rootfs=$(mktemp -d "${TMPDIR:-/tmp}/platform-coredns.XXXXXX")
  cp "$dir/bin/coredns" "$rootfs/coredns"
  k8s_image_archive "$dir/coredns-image.tar" "platform-local/coredns:$COREDNS_VERSION" '["/coredns"]' "$rootfs"
  rm -rf "$rootfs"
  k8s_mark_built "$dir" "$mod"
  STEP_STATUS="built CoreDNS v$COREDNS_VERSION and its image archive into $dir"
}

# The image registry that `platform cluster up` runs on 127.0.0.1 (--registry pushes there).
setup_registry() {
  local dir=$REGISTRY_DIR mod=$KUBERNETES_GO/registry log=$PLATFORM_HOME/logs/build-registry.log
  if k8s_is_built "$dir" "$mod"; then STEP_STATUS="reused the registry (go-containerregistry v$REGISTRY_GGCR_VERSION) from $dir"; return; fi
  grep -q "go-containerregistry v$REGISTRY_GGCR_VERSION" "$mod/go.mod" \
    || fail "$mod/go.mod does not pin go-containerregistry v$REGISTRY_GGCR_VERSION (kubernetes.sh): update it with go mod tidy"
  command -v go >/dev/null || fail "Go >= 1.24 is needed to build the test cluster's registry from its module"
  mkdir -p "$dir/bin"
  echo "  building the registry from Go modules (about 30 s; log: $log) ..."
  k8s_go_build "$mod" "$dir/bin/registry" . "-s -w" >"$log" 2>&1 || fail "building the registry failed; last lines of $log:
$(tail -n 20 "$log")"
  k8s_mark_built "$dir" "$mod"
  STEP_STATUS="built the registry (go-containerregistry v$REGISTRY_GGCR_VERSION) into $dir/bin"
}

# metrics-server, which `platform cluster up` runs as a host process (src/test-cluster/metrics-server.ts).
setup_metrics_server() {
  local dir=$METRICS_SERVER_DIR mod=$KUBERNETES_MOD log=$PLATFORM_HOME/logs/build-metrics-server.log
  if k8s_is_built "$dir" "$mod"; then STEP_STATUS="reused metrics-server v$METRICS_SERVER_VERSION from $dir"; return; fi
  grep -q "sigs.k8s.io/metrics-server v$METRICS_SERVER_VERSION" "$mod/go.mod" \
    || fail "$mod/go.mod does not pin metrics-server v$METRICS_SERVER_VERSION (kubernetes.sh): update it with go mod tidy"
  command -v go >/dev/null || fail "Go >= 1.24 is needed to build the test cluster's metrics-server from its module"
  mkdir -p "$dir/bin"
  echo "  building metrics-server v$METRICS_SERVER_VERSION from Go modules (a minute or two once Kubernetes' binaries are built; log: $log) ..."
  # Its version stamp is client-go's, as its own Makefile sets it.
  k8s_go_build "$mod" "$dir/bin/metrics-server" sigs.k8s.io/metrics-server/cmd/metrics-server \
    "-s -w -X k8s.io/client-go/pkg/version.gitVersion=v$METRICS_SERVER_VERSION" >"$log" 2>&1 \
    || fail "building metrics-server failed; last lines of $log:
$(tail -n 20 "$log")"
  k8s_mark_built "$dir" "$mod"
  STEP_STATUS="built metrics-server v$METRICS_SERVER_VERSION into $dir/bin"
}

# cert-manager, which `platform cluster up` runs as a host process (src/test-cluster/cert-manager.ts):
# the controller and the HTTP-01 solver from our wrapper module, the solver's image archive (the
# controller starts a solver pod per challenge; it must run as non-root), and the CRDs that
# cert-manager's root module ships in deploy/crds.
setup_cert_manager() {
  local dir=$CERT_MANAGER_DIR mod=$KUBERNETES_GO/cert-manager log=$PLATFORM_HOME/logs/build-cert-manager.log rootfs src
  local pkg=github.com/cert-manager/cert-manager
  if k8s_is_built "$dir" "$mod"; then STEP_STATUS="reused cert-manager v$CERT_MANAGER_VERSION from $dir"; return; fi
  grep -q "$pkg v$CERT_MANAGER_VERSION" "$mod/go.mod" \
    || fail "$mod/go.mod does not pin cert-manager v$CERT_MANAGER_VERSION (kubernetes.sh): update it with go mod tidy"
  command -v go >/dev/null || fail "Go >= 1.26 is needed to build the test cluster's cert-manager from its module"
  check_disk 2000 "$TOOLCHAIN"
  mkdir -p "$dir/bin" "$dir/crds"
  echo "  building cert-manager v$CERT_MANAGER_VERSION from Go modules (several minutes on 2 cores; log: $log) ..."
  local ld="-s -w -X $pkg/pkg/util.AppVersion=v$CERT_MANAGER_VERSION"
  : >"$log"
  for b in controller acmesolver; do
    echo "  - $b" >>"$log"
    k8s_go_build "$mod" "$dir/bin/cert-manager-$b" "./$b" "$ld" >>"$log" 2>&1 \
      || fail "building cert-manager's $b failed; last lines of $log:
$(tail -n 20 "$log")"
  done
  src=$(cd "$mod" && GOFLAGS=-mod=readonly GOTOOLCHAIN=local go list -m -f '{{.Dir}}' "$pkg") && [ -d "$src/deploy/crds" ] \
    || fail "cert-manager's module has no deploy/crds (go list -m $pkg in $mod)"
  rm -f "$dir/crds/"*.yaml && cp "$src/deploy/crds/"*.yaml "$dir/crds/" && chmod 644 "$dir/crds/"*.yaml
  rootfs=$(mktemp -d "${TMPDIR:-/tmp}/platform-acmesolver.XXXXXX")
  # mktemp's 0700 would become the image's / and keep the non-root user out of it.
  chmod 755 "$rootfs"
  cp "$dir/bin/cert-manager-acmesolver" "$rootfs/acmesolver"
  # 65532: the "nonroot" user of distroless images, which cert-manager's own solver image uses.
  k8s_image_archive "$dir/acmesolver-image.tar" "platform-local/cert-manager-acmesolver:v$CERT_MANAGER_VERSION" '["/acmesolver"]' "$rootfs" 65532
  rm -rf "$rootfs"
  k8s_mark_built "$dir" "$mod"
  STEP_STATUS="built cert-manager v$CERT_MANAGER_VERSION (controller, acmesolver and its image archive, CRDs) into $dir"
}

# The provider's main package embeds schema-embed.json and terraform-mapping-embed.json,
# which its module does not ship: they come from its own generator (generate.go, `VERSION`
# stamps the schema). So the main package is copied out of the verified module into a copy
# of the wrapper module, generated there, and built there.
setup_pulumi_kubernetes() {
  local dir=$PULUMI_KUBERNETES_DIR mod=$KUBERNETES_MOD log=$PLATFORM_HOME/logs/build-pulumi-kubernetes.log reinstall=
  local pulumi=${PULUMI_BIN:-}
  # Under npm test the rest of the set-up, which builds the Pulumi CLI, runs beside this build
  # (scripts/test.sh): its exit code file says when toolchain.json is written.
  if [ -z "$pulumi" ] && [ -n "${PLATFORM_ENGINES_SETUP_RC:-}" ]; then
    local waited=0
    while [ ! -f "$PLATFORM_ENGINES_SETUP_RC" ] && [ "$waited" -lt 3600 ]; do sleep 5; waited=$((waited + 5)); done
    [ "$(cat "$PLATFORM_ENGINES_SETUP_RC" 2>/dev/null)" = 0 ] || fail "the set-up beside this build did not finish (its exit code: $(cat "$PLATFORM_ENGINES_SETUP_RC" 2>/dev/null || echo none after ${waited}s))"
  fi
  [ -n "$pulumi" ] || pulumi=$(sed -n 's/.*"pulumiBin": *"\([^"]*\)".*/\1/p' "$PLATFORM_HOME/toolchain.json" 2>/dev/null)
  [ -x "$pulumi" ] || pulumi=$(command -v pulumi || true)
  [ -x "$pulumi" ] || fail "the Pulumi CLI is needed to install the Kubernetes provider plugin: run npm run setup first"
  if ! k8s_is_built "$dir" "$mod"; then
    command -v go >/dev/null || fail "Go >= 1.24 is needed to build the Pulumi Kubernetes provider $PULUMI_KUBERNETES_VERSION from its module"
    check_disk 4000 "$TOOLCHAIN"
    echo "  building the Pulumi Kubernetes provider $PULUMI_KUBERNETES_VERSION from Go modules (about 6 min on 2 cores once Kubernetes' binaries are built; log: $log) ..."
    local work src
    work=$(mktemp -d "${TMPDIR:-/tmp}/platform-pulumi-kubernetes.XXXXXX")
    cp "$mod/go.mod" "$mod/go.sum" "$mod/tools.go" "$work/"
    {
      src=$(cd "$work" && export GOFLAGS=-mod=readonly GOTOOLCHAIN=local GONOSUMDB=github.com/pulumi &&
        go mod download github.com/pulumi/pulumi-kubernetes/provider/v4 &&
        go list -m -f '{{.Dir}}' github.com/pulumi/pulumi-kubernetes/provider/v4) &&
      mkdir -p "$work/cmd" && cp -r "$src/cmd/pulumi-resource-kubernetes" "$work/cmd/" &&
      chmod -R u+w "$work/cmd" &&
      # -trimpath as k8s_go_build: the generator's 630 packages are then the provider's own,
      # compiled once (without it each was compiled twice: about 100 s of CPU on a cold cache).
      (cd "$work/cmd/pulumi-resource-kubernetes" && VERSION=$PULUMI_KUBERNETES_VERSION GOFLAGS=-mod=readonly \
        GOTOOLCHAIN=local CGO_ENABLED=0 GONOSUMDB=github.com/pulumi go run -trimpath generate.go) &&
      mkdir -p "$dir/bin" &&
      k8s_go_build "$work" "$dir/bin/pulumi-resource-kubernetes" ./cmd/pulumi-resource-kubernetes \
        "-s -w -X github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version=$PULUMI_KUBERNETES_VERSION"
    } >"$log" 2>&1 || { rm -rf "$work"; fail "building the Pulumi Kubernetes provider failed; last lines of $log:
$(tail -n 20 "$log")"; }
    rm -rf "$work"
    k8s_mark_built "$dir" "$mod"
    reinstall=--reinstall   # a rebuilt binary replaces the installed plugin of the same version
  elif PULUMI_SKIP_UPDATE_CHECK=true "$pulumi" plugin ls 2>/dev/null | grep -Eq "^kubernetes +resource +$PULUMI_KUBERNETES_VERSION "; then
    STEP_STATUS="reused the Pulumi Kubernetes provider $PULUMI_KUBERNETES_VERSION (plugin installed)"; return
  fi
  PULUMI_SKIP_UPDATE_CHECK=true "$pulumi" plugin install resource kubernetes "$PULUMI_KUBERNETES_VERSION" \
    --file "$dir/bin/pulumi-resource-kubernetes" ${reinstall:+"$reinstall"} >>"$log" 2>&1 || fail "pulumi plugin install failed; see $log"
  STEP_STATUS="installed the Pulumi Kubernetes provider $PULUMI_KUBERNETES_VERSION as a plugin"
}

# The test cluster's ingress controller (its front door): Traefik, built by traefik.sh (cached by version).
setup_traefik() {
  TRAEFIK_BIN=$(bash "$REPO_ROOT/scripts/setup/traefik.sh") || fail "building Traefik failed (scripts/setup/traefik.sh)"
  STEP_STATUS="Traefik at $TRAEFIK_BIN"
}

write_kubernetes_json() {
  cat >"$KUBERNETES_JSON.tmp" <<JSON
{
  "kubernetesVersion": "$KUBERNETES_VERSION",
  "binDir": "$KUBERNETES_DIR/bin",
  "pauseImage": { "ref": "platform-local/pause:$KUBERNETES_VERSION", "archive": "$KUBERNETES_DIR/images/pause.tar" },
  "corednsImage": { "ref": "platform-local/coredns:$COREDNS_VERSION", "archive": "$COREDNS_DIR/coredns-image.tar" },
  "registry": "$REGISTRY_DIR/bin/registry",
  "traefik": "$TRAEFIK_BIN",
  "metricsServer": "$METRICS_SERVER_DIR/bin/metrics-server",
  "certManager": {
    "version": "$CERT_MANAGER_VERSION",
    "controller": "$CERT_MANAGER_DIR/bin/cert-manager-controller",
    "crdDir": "$CERT_MANAGER_DIR/crds",
    "solverImage": { "ref": "platform-local/cert-manager-acmesolver:v$CERT_MANAGER_VERSION", "archive": "$CERT_MANAGER_DIR/acmesolver-image.tar" }
  },
  "pulumiKubernetesVersion": "$PULUMI_KUBERNETES_VERSION",
  "containerd": "$(command -v containerd)",
  "ctr": "$(command -v ctr)",
  "runc": "$(command -v runc || echo /usr/sbin/runc)",
  "etcd": "$(command -v etcd || echo /usr/bin/etcd)",
  "cniBinDir": "/usr/lib/cni"
}
JSON
  mv "$KUBERNETES_JSON.tmp" "$KUBERNETES_JSON"
  STEP_STATUS="wrote $KUBERNETES_JSON"
}

setup_kubernetes() {
  k8s_init_paths
  step "Kubernetes: Debian packages" setup_kubernetes_packages
  step "Kubernetes: v$KUBERNETES_VERSION binaries" setup_kubernetes_binaries
  step "Kubernetes: CoreDNS v$COREDNS_VERSION" setup_coredns
  step "Kubernetes: registry" setup_registry
  step "Kubernetes: Traefik (the ingress controller)" setup_traefik
  step "Kubernetes: metrics-server v$METRICS_SERVER_VERSION" setup_metrics_server
  step "Kubernetes: cert-manager v$CERT_MANAGER_VERSION" setup_cert_manager
  step "Kubernetes: Pulumi provider $PULUMI_KUBERNETES_VERSION" setup_pulumi_kubernetes
  step "Kubernetes: toolchain file" write_kubernetes_json
}

# Run directly: only this part of the set-up (the rest must have run once, for the Pulumi CLI).
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  # shellcheck source=lib.sh
  source "$REPO_ROOT/scripts/setup/lib.sh"
  t_start=$(date +%s)
  setup_kubernetes
  echo "✓ Kubernetes toolchain ready in $(( $(date +%s) - t_start ))s ($KUBERNETES_JSON)"
fi
