#!/usr/bin/env bash
# Builds a Python, Node or PostgreSQL base image on first need: base-image.sh python@3.14 | node@24 | postgres@17 ...
# A deploy whose plan names a version that the engine lacks runs this (src/provider/docker/
# base-images.ts); so can a person, ahead of time. Progress goes to stdout, one line per image;
# the images.sh lock makes a concurrent run wait, then find the image built.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$here/../.." && pwd)
source "$here/lib.sh"
source "$here/images.sh"
[ $# -gt 0 ] || fail "usage: base-image.sh python@MINOR|node@MAJOR|postgres@MAJOR ... (there are python@{$(table_keys "$BASE_PYTHON_SUITES")}, node@{$(table_keys "$BASE_NODE_VERSIONS")} and postgres@{$(table_keys "$BASE_POSTGRES_SUITES")})"
if [ "${1:-}" = --tag ]; then  # base-image.sh --tag SPEC: the tag only, nothing built
  check_spec "$2"
  base_image_local_tag "$2"
  exit 0
fi
for spec in "$@"; do ensure_base_image "$spec"; done
