#!/usr/bin/env bash
# npm test: the set-up first when needed (fast when warm), then the unit and integration
# tests on the real engines. A missing engine fails the run; nothing is skipped.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
home=${PLATFORM_HOME:-$HOME/.platform}
if [ "${PLATFORM_SKIP_SETUP:-}" != "1" ]; then bash "$here/setup.sh"; fi
# Studio's browser tests drive Debian's chromium: installed here, never skipped.
bash "$here/setup/chromium.sh"
# shellcheck disable=SC1091
source "$home/env.sh"
cd "$root"
exec ./node_modules/.bin/vitest run "$@"
