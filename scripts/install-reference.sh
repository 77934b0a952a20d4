#!/usr/bin/env bash
# Installs the reference implementation, PCP 6.0.3 from Debian, with its QA corpus
# (/var/lib/pcp/testsuite), the Python bindings and the headers the sample agent needs.
# Idempotent; needs root (or sudo). Works where systemd is not PID 1: the packages'
# post-install steps call systemctl, which is stubbed out for them. A first dpkg
# configure step sometimes fails on a fresh machine; it is retried.
set -euo pipefail

if command -v pmdumplog >/dev/null 2>&1 \
   && dpkg -s pcp-testsuite libpcp-pmda3-dev python3-pcp >/dev/null 2>&1 \
   && [ "$(dpkg-query -W -f='${Status}' pcp 2>/dev/null)" = "install ok installed" ]; then
  echo "reference PCP already installed: $(pmdumplog --version 2>&1 | head -1)"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
stub=$(mktemp -d)
trap 'rm -rf "$stub"' EXIT
printf '#!/bin/sh\nexit 0\n' >"$stub/systemctl"
chmod +x "$stub/systemctl"

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
for attempt in 1 2 3; do
  $SUDO env PATH="$stub:$PATH" dpkg --configure -a || true
  if $SUDO env PATH="$stub:$PATH" apt-get install -y -qq --no-install-recommends \
      pcp pcp-testsuite python3-pcp libpcp3-dev libpcp-pmda3-dev make gcc >/dev/null; then
    break
  fi
  echo "install attempt $attempt failed, retrying" >&2
done
$SUDO env PATH="$stub:$PATH" dpkg --configure -a
echo "reference PCP installed: $(dpkg-query -W -f='${Version}' pcp)"
