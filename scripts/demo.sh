#!/usr/bin/env bash
# npm run demo: set up this machine, log in to the local state backend, deploy
# examples/fullstack to the local Docker engine and print its URLs.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
home=${PLATFORM_HOME:-$HOME/.platform}
bash "$here/setup.sh"
# shellcheck disable=SC1091
source "$home/env.sh"
platform whoami >/dev/null 2>&1 || platform login
platform doctor
cd "$root/examples/fullstack"
# The demo deploys the example as the project "fullstack" on purpose (like platform link), so a
# second clone's demo updates the same demo rather than being refused as a copy.
platform deploy --yes --project fullstack
echo
echo "Open the web URL above in a browser. Trust the platform CA first: platform ca --export platform-ca.pem (docs/operations/trusting-the-ca.md)."
