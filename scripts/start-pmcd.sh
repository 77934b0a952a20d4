#!/usr/bin/env bash
# Starts the reference pmcd (PCP 6.0.3, installed by scripts/install-reference.sh) on
# this machine, for the tests that compare our local metric source with PCP's Linux
# agent and our pmlogger's recordings with PCP's. With --sample it also installs PCP's
# sample agent (domain 29). Loopback only (pmcd's default access rules). Idempotent;
# needs root or sudo.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
up() { pminfo -h local: pmcd.version >/dev/null 2>&1; }
if ! up; then
  $SUDO /etc/init.d/pmcd start >/dev/null 2>&1 || true
  for _ in $(seq 1 30); do up && break; sleep 1; done
fi
up || { echo "start-pmcd: pmcd did not start" >&2; exit 1; }
if [ "${1:-}" = "--sample" ] && ! pminfo sample.long.one >/dev/null 2>&1; then
  (cd /var/lib/pcp/pmdas/sample && $SUDO ./Install </dev/null >/dev/null 2>&1) || true
  pminfo sample.long.one >/dev/null 2>&1 || { echo "start-pmcd: the sample agent did not install" >&2; exit 1; }
fi
echo "pmcd running: $(pminfo -f pmcd.version | sed -n 's/.*value "\(.*\)"/\1/p')"
