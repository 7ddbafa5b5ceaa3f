#!/usr/bin/env bash
# npm run setup: everything `platform` needs on this machine, idempotent. Each step says what
# it did, how long it took and whether it reused a cache. See docs/operations/setup.md.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$here/.." && pwd)
source "$here/setup/lib.sh"
for f in node docker pulumi project images kubernetes; do source "$here/setup/$f.sh"; done

# The Kubernetes test cluster's toolchain is opt-in (it builds for about 25 minutes cold):
# npm run setup -- --kubernetes, or PLATFORM_SETUP_KUBERNETES=1.
# --part base: only Node, the npm dependencies and the builds (under a minute cold), what the
# type check, lint and unit tests need; --part engines: the rest. npm test runs the two parts
# apart, so that its unit tests fail fast while the engines are set up (scripts/test.sh).
with_kubernetes=${PLATFORM_SETUP_KUBERNETES:-0}
part=all
while [ $# -gt 0 ]; do
  case $1 in
    --kubernetes) with_kubernetes=1 ;;
    --part) part=${2:-}; shift ;;
    *) fail "unknown option $1 (known: --kubernetes, --part base|engines)" ;;
  esac
  shift
done
case $part in all|base|engines) ;; *) fail "unknown part '$part' (known: base, engines)" ;; esac

t_start=$(date +%s)
echo "platform set-up (home: $PLATFORM_HOME)"
step "Node >= $NODE_MIN_MAJOR" setup_node
if [ "$part" != engines ]; then
  step "npm dependencies" setup_npm
  step "TypeScript build" setup_build
  step "Studio web UI" setup_studio_ui
  step "Docs site" setup_docs_site
fi
if [ "$part" = base ]; then
  echo "✓ set-up (base) complete in $(( $(date +%s) - t_start ))s"
  exit 0
fi
# The Pulumi CLI (a Go build, about 4.5 minutes on a new machine) builds while the Docker steps
# run; its lines follow theirs, and PULUMI_BIN comes back with them.
step_in_background pulumi "Pulumi CLI $PULUMI_VERSION + Node.js language host" setup_pulumi PULUMI_BIN
step "Docker engine + BuildKit client" setup_docker
step "Base images" setup_images
step "Telemetry receiver image" setup_telemetry_image
step "OpenTelemetry layers" setup_otel_layers
join_step pulumi
step "Toolchain file" write_toolchain
if [ "$with_kubernetes" = 1 ]; then setup_kubernetes; fi
echo "✓ set-up complete in $(( $(date +%s) - t_start ))s. Next: source $ENV_FILE && platform doctor"
