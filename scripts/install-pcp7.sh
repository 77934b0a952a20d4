#!/usr/bin/env bash
# Installs the newest PCP that Debian packages (7.2.x, from Debian unstable) in a
# chroot beside the 6.0.3 reference, with its QA archives, python3-pcp, pmproxy and
# the compressors. It is the second reference: what a user of a current PCP has.
#   install-pcp7.sh            make the chroot, or mount it again (idempotent; needs root)
#   install-pcp7.sh --remove   unmount it and delete it (never rm -rf it by hand:
#                              the host is mounted inside it)
# Then run its tools with scripts/pcp7 (see that script).
# The chroot lives at $PCP7_ROOT (default /opt/pcp7). The host's / is mounted
# read-only at /host inside it, and the host's /tmp read-write at /host/tmp, so its
# tools read files anywhere and write (archives, logs) only under /tmp.
set -euo pipefail
root=${PCP7_ROOT:-/opt/pcp7}
suite=${PCP7_SUITE:-sid}
mirror=${PCP7_MIRROR:-http://deb.debian.org/debian}
[ "$(id -u)" -eq 0 ] || { echo "install-pcp7.sh: needs root" >&2; exit 1; }

mounted() { mountpoint -q "$1"; }
mount_all() {
  mkdir -p "$root/proc" "$root/dev" "$root/host"
  mounted "$root/proc" || mount -t proc proc "$root/proc"
  mounted "$root/dev" || mount --rbind /dev "$root/dev"
  if ! mounted "$root/host"; then
    mount --bind / "$root/host"
    mount -o remount,bind,ro "$root/host"
    mount --bind /tmp "$root/host/tmp"
  fi
}

if [ "${1:-}" = "--remove" ]; then
  for m in "$root/host/tmp" "$root/host" "$root/dev" "$root/proc"; do
    mounted "$m" && umount -R "$m"
  done
  if findmnt -rn -o TARGET | grep -q "^$root/"; then
    echo "install-pcp7.sh: something is still mounted under $root; not removing" >&2; exit 1
  fi
  rm -rf --one-file-system "$root"
  echo "removed $root"; exit 0
fi

# the host's names resolve alike inside (pmlogger logs this host's full name)
share_names() {
  cp /etc/resolv.conf /etc/hosts "$root/etc/" 2>/dev/null || true
}

if [ -x "$root/usr/bin/pmlogdump" ] && [ -d "$root/var/lib/pcp/testsuite/archives" ]; then
  mount_all
  share_names
  echo "PCP $(chroot "$root" pmlogdump --version 2>&1 | awk '{print $NF}') already in $root"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
command -v debootstrap >/dev/null || { apt-get update -qq; apt-get install -y -qq debootstrap >/dev/null; }
if [ ! -x "$root/usr/bin/apt-get" ]; then
  debootstrap --variant=minbase "$suite" "$root" "$mirror" >/dev/null
fi
mount_all
share_names
# no service may start inside the chroot: the host's pmcd owns the ports
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
printf '#!/bin/sh\nexit 0\n' >"$root/usr/local/bin/systemctl"
chmod +x "$root/usr/sbin/policy-rc.d" "$root/usr/local/bin/systemctl"
# the registry's copy of the release file can be older than its validity window
apt_opts=(-o Acquire::Check-Valid-Until=false -o Dpkg::Options::=--force-confdef)
chroot "$root" apt-get "${apt_opts[@]}" update -qq
chroot "$root" apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends \
  pcp pcp-testsuite python3-pcp xz-utils zstd bzip2 >/dev/null
# daemons that an install step started in spite of the above are ended here
for p in $(pgrep -f '/usr/lib/pcp/bin/|/usr/libexec/pcp/bin/' || true); do
  [ "$(readlink "/proc/$p/root" 2>/dev/null)" = "$root" ] && kill "$p" 2>/dev/null || true
done
echo "PCP $(chroot "$root" pmlogdump --version 2>&1 | awk '{print $NF}') installed in $root"
