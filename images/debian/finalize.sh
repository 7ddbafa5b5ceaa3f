#!/usr/bin/env bash
# Turns a fresh `debootstrap --variant=minbase` tree into a container root file system, the way
# the official debian:bookworm-slim image is made (debuerreotype's minimizing config):
# no apt lists or caches, no docs/man pages/locales in later installs, no services started by
# package scripts, and apt sources that point at the same mirror the set-up used.
# Usage: finalize.sh ROOTFS SOURCES_FILE   (SOURCES_FILE: a deb822 .sources file to install)
set -euo pipefail
root=$1 sources=$2
[ -d "$root/etc/apt" ] || { echo "finalize.sh: $root is not a debootstrap tree" >&2; exit 1; }

# apt: sources, and the docker-friendly settings of the official images
rm -f "$root/etc/apt/sources.list"
install -m 0644 "$sources" "$root/etc/apt/sources.list.d/debian.sources"
cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'EOF'
# Remove downloaded .deb files and the package cache after each install (as in the official images).
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
cat >"$root/etc/apt/apt.conf.d/docker-no-languages" <<'EOF'
Acquire::Languages "none";
EOF
cat >"$root/etc/apt/apt.conf.d/docker-autoremove-suggests" <<'EOF'
Apt::AutoRemove::SuggestsImportant "false";
EOF

# dpkg: leave out documentation, man pages and translations (the "slim" images do this)
cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
cat >"$root/etc/dpkg/dpkg.cfg.d/docker-apt-speedup" <<'EOF'
force-unsafe-io
EOF

# package scripts must not try to start services inside an image build
cat >"$root/usr/sbin/policy-rc.d" <<'EOF'
#!/bin/sh
# Installed by the platform's base image: no init system here, do not start services.
exit 101
EOF
chmod 0755 "$root/usr/sbin/policy-rc.d"

# remove what belongs to the machine that built it, and what later builds fetch again
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
  "$root"/var/cache/apt/archives/partial/* "$root"/var/cache/debconf/*-old "$root"/var/lib/dpkg/*-old \
  "$root"/var/log/*.log "$root"/var/log/apt/* "$root"/tmp/* "$root"/var/tmp/* "$root"/root/.bash_history
mkdir -p "$root/var/lib/apt/lists/partial"
find "$root/usr/share/doc" -mindepth 2 ! -name copyright -delete 2>/dev/null || true
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete 2>/dev/null || true
rm -rf "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/*/
: >"$root/etc/machine-id"
: >"$root/etc/hostname"; rm -f "$root/etc/resolv.conf"; : >"$root/etc/resolv.conf"   # Docker mounts both at run time
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
