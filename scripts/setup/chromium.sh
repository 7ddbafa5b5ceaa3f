#!/usr/bin/env bash
# Debian's chromium for Studio's browser tests (playwright-core drives it; no test tool ever
# downloads a browser of its own). Run by npm test before the tests; idempotent.
set -euo pipefail
CHROMIUM=${PLATFORM_CHROMIUM:-/usr/bin/chromium}
t0=$(date +%s)
if "$CHROMIUM" --version >/dev/null 2>&1; then
  echo "  ✓ Chromium for the browser tests: reused $("$CHROMIUM" --version 2>/dev/null | head -n1)"
  exit 0
fi
command -v apt-get >/dev/null || { echo "✖ no $CHROMIUM and no apt-get: install Chromium and set PLATFORM_CHROMIUM to its path" >&2; exit 1; }
sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq -o DPkg::Lock::Timeout=300 >/dev/null 2>&1 || true
$sudo apt-get install -y -qq -o DPkg::Lock::Timeout=300 chromium >/dev/null || { echo "✖ apt-get install chromium failed" >&2; exit 1; }
echo "  ✓ Chromium for the browser tests: installed $("$CHROMIUM" --version | head -n1) in $(( $(date +%s) - t0 ))s"
