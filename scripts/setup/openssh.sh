#!/usr/bin/env bash
# Debian's OpenSSH server, for the remote-engine tests: test/integration/helpers/remote-engine.ts
# runs its own /usr/sbin/sshd (foreground, own config and keys) inside a network namespace, so
# `platform deploy` can reach a Docker engine over DOCKER_HOST=ssh://. Only the binary is
# wanted: this machine's own sshd service is never started or enabled (a temporary
# policy-rc.d keeps the package from starting it; /etc/ssh/sshd_not_to_be_run keeps both the
# init script and systemd's unit from starting it later). Idempotent; a moment when installed.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SSHD=/usr/sbin/sshd
log=$PLATFORM_HOME/logs/apt-openssh.log

sshd_version() { "$SSHD" -V 2>&1 | head -n1; }  # sshd has no --version; -V prints it (exit 0 or 1)

t0=$(date +%s.%N)
if [ -x "$SSHD" ]; then
  echo "  ✓ OpenSSH server for the remote-engine tests: reused $SSHD ($(sshd_version))"
  exit 0
fi

[ "$(id -u)" = 0 ] || fail "no $SSHD and installing it needs root: run 'sudo apt-get install --no-install-recommends openssh-server' (its service may stay off: the tests run their own sshd) and run again"
command -v apt-get >/dev/null || fail "no $SSHD and no apt-get: install an OpenSSH server so that $SSHD exists (the tests run it themselves; its service may stay off)"

# invoke-rc.d and deb-systemd-invoke ask policy-rc.d whether a package may start its service;
# 101 says no. A policy-rc.d already there is the machine's own and stays as it is (after the
# install, a service it let start is stopped below).
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# platform scripts/setup/openssh.sh: no service starts while it installs openssh-server\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  own_policy=1
fi
cleanup() { if [ "$own_policy" = 1 ]; then rm -f "$policy"; fi; }
trap cleanup EXIT
mkdir -p /etc/ssh
touch /etc/ssh/sshd_not_to_be_run

echo "  installing openssh-server (apt-get; log: $log) ..."
export DEBIAN_FRONTEND=noninteractive
# `apt-get update` only when the lists are missing or too old to have the package; wait for a
# dpkg lock held by another set-up instead of failing.
{
  if ! apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 openssh-server </dev/null; then
    apt-get update -qq -o DPkg::Lock::Timeout=300 &&
      apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 openssh-server </dev/null
  fi
} >"$log" 2>&1 || fail "apt-get install openssh-server failed; last lines of $log:
$(tail -n 15 "$log")"
[ -x "$SSHD" ] || fail "openssh-server is installed but $SSHD is missing; see $log"

# The machine's own service stays off: disabled for systemd and for the init scripts, and
# stopped if a policy-rc.d of the machine's let it start.
if [ -d /run/systemd/system ]; then
  systemctl disable --now ssh.service ssh.socket >>"$log" 2>&1 || true
else
  update-rc.d ssh disable >>"$log" 2>&1 || true
  if [ -s /run/sshd.pid ]; then kill "$(cat /run/sshd.pid)" 2>/dev/null || true; fi
fi
echo "  ✓ OpenSSH server for the remote-engine tests: installed $(sshd_version) in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')s (its service off)"
