# The project itself: npm dependencies from the lockfile (only when it changed), the
# TypeScript build, and the toolchain file the CLI reads to find what the set-up provided.
# shellcheck shell=bash
setup_npm() {
  local stamp=$REPO_ROOT/node_modules/.platform-lock-hash want
  want=$(sha256sum "$REPO_ROOT/package-lock.json" | cut -c1-16)-$("$NODE_BIN/node" -p process.version)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then STEP_STATUS="reused node_modules (lockfile unchanged)"; return; fi
  check_disk 1000 "$REPO_ROOT"
  (cd "$REPO_ROOT" && PATH="$NODE_BIN:$PATH" npm ci --no-audit --no-fund --loglevel=error >"$PLATFORM_HOME/logs/npm-ci.log" 2>&1) \
    || fail "npm ci failed; last lines of $PLATFORM_HOME/logs/npm-ci.log:
$(tail -n 20 "$PLATFORM_HOME/logs/npm-ci.log")"
  echo "$want" >"$stamp"
  STEP_STATUS="installed npm dependencies from package-lock.json"
}

setup_build() {
  (cd "$REPO_ROOT" && PATH="$NODE_BIN:$PATH" ./node_modules/.bin/tsc -p tsconfig.json) || fail "the TypeScript build failed"
  STEP_STATUS="compiled src/ to dist/ (incremental)"
}

# Studio's web UI (React + Vite, studio-ui/) built into dist/studio-ui, which the Studio
# server serves; rebuilt only when its sources or the lockfile changed.
setup_studio_ui() {
  local stamp=$REPO_ROOT/dist/studio-ui/.inputs-hash want
  want=$(cd "$REPO_ROOT" && find studio-ui -type f ! -path '*/node_modules/*' -print0 | sort -z | xargs -0 sha256sum | cat - package-lock.json | sha256sum | cut -c1-16)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then STEP_STATUS="reused dist/studio-ui (sources unchanged)"; return; fi
  (cd "$REPO_ROOT" && PATH="$NODE_BIN:$PATH" ./node_modules/.bin/vite build --config studio-ui/vite.config.ts >"$PLATFORM_HOME/logs/studio-ui.log" 2>&1) \
    || fail "the Studio UI build failed; last lines of $PLATFORM_HOME/logs/studio-ui.log:
$(tail -n 20 "$PLATFORM_HOME/logs/studio-ui.log")"
  echo "$want" >"$stamp"
  STEP_STATUS="built studio-ui/ into dist/studio-ui"
}

# The docs site (docs/, VitePress) built into dist-docs/, which Studio serves at /docs/ (its
# empty states and errors link there); rebuilt only when docs/ or the lockfile changed.
setup_docs_site() {
  local stamp=$REPO_ROOT/dist-docs/.inputs-hash want
  want=$(cd "$REPO_ROOT" && find docs -type f ! -path '*/node_modules/*' ! -path '*/.vitepress/cache/*' -print0 | sort -z | xargs -0 sha256sum | cat - package-lock.json | sha256sum | cut -c1-16)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then STEP_STATUS="reused dist-docs (docs unchanged)"; return; fi
  (cd "$REPO_ROOT" && PATH="$NODE_BIN:$PATH" ./node_modules/.bin/vitepress build docs >"$PLATFORM_HOME/logs/docs-site.log" 2>&1) \
    || fail "the docs site's build failed; last lines of $PLATFORM_HOME/logs/docs-site.log:
$(tail -n 20 "$PLATFORM_HOME/logs/docs-site.log")"
  echo "$want" >"$stamp"
  STEP_STATUS="built docs/ into dist-docs (served by Studio at /docs/)"
}

# The platform's OTLP receiver image (docs/guide/telemetry.md), built offline from this install's
# dist/telemetry and protobufjs on the Node base image; `platform deploy` would build it too, at
# the first deploy that needs it. Labelled with a hash of its files: rebuilt only when they change.
setup_telemetry_image() {
  local out log=$PLATFORM_HOME/logs/telemetry-image.log
  out=$(cd "$REPO_ROOT" && PLATFORM_HOME="$PLATFORM_HOME" PLATFORM_DOCKER_CLI="$PLATFORM_DOCKER_CLI" "$NODE_BIN/node" --input-type=module -e '
    const { ensureReceiverImage } = await import("./dist/provider/docker/receiver.js");
    const { baseImages } = await import("./dist/home/images.js");
    const r = await ensureReceiverImage(baseImages().node);
    console.log(`${r.built ? "built" : "reused"} ${r.tag}`);' 2>"$log") \
    || fail "building the telemetry receiver image failed; see $log"
  STEP_STATUS="$out"
}

# The OpenTelemetry SDK layers of the generated images, built once per machine (docs/guide/telemetry.md).
setup_otel_layers() {
  local out log=$PLATFORM_HOME/logs/otel-layers.log
  out=$(cd "$REPO_ROOT" && PLATFORM_HOME="$PLATFORM_HOME" PLATFORM_DOCKER_CLI="$PLATFORM_DOCKER_CLI" "$NODE_BIN/node" --input-type=module -e '
    const { ensureOtelLayers } = await import("./dist/provider/docker/otel-layers.js");
    const r = await ensureOtelLayers();
    console.log(r.built.length ? `built ${r.built.join(", ")}` : `reused ${r.tags.join(", ")}`);' 2>"$log") \
    || fail "building the OpenTelemetry layers failed; see $log"
  STEP_STATUS="$out"
}

write_toolchain() {
  mkdir -p "$PLATFORM_HOME/bin"
  # `platform` on PATH (after source env.sh), on the platform's own Node whatever the system's.
  printf '#!/bin/sh\nexec "%s/node" --max-semi-space-size=1 "%s/dist/bin.js" "$@"\n' "$NODE_BIN" "$REPO_ROOT" >"$PLATFORM_HOME/bin/platform"
  chmod +x "$PLATFORM_HOME/bin/platform"
  cat >"$PLATFORM_HOME/toolchain.json" <<JSON
{
  "pulumiBin": "$PULUMI_BIN",
  "nodeBin": "$NODE_BIN",
  "dockerCli": "$PLATFORM_DOCKER_CLI"
}
JSON
  cat >"$ENV_FILE" <<ENV
# Written by npm run setup: puts platform, its Node and the Pulumi CLI first on PATH.
export PATH="$PLATFORM_HOME/bin:$NODE_BIN:$(dirname "$PULUMI_BIN"):$REPO_ROOT/node_modules/.bin:$REPO_ROOT/node_modules/@pulumi/pulumi:\$PATH"
export PLATFORM_DOCKER_CLI="$PLATFORM_DOCKER_CLI"
ENV
  STEP_STATUS="wrote $PLATFORM_HOME/toolchain.json and $ENV_FILE"
}
