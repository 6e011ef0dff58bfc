#!/usr/bin/env bash
# Installs the external tools the tests use: promtool and prometheus (Debian's
# `prometheus` package) and openssl (the TLS test makes a throwaway
# certificate). Idempotent: does nothing when all are on PATH. `npm test`
# runs it first (pretest), so a fresh machine needs no other step.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }

if have promtool && have prometheus && have openssl; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ] || ! have apt-get; then
  echo "The tests need promtool, prometheus and openssl on PATH. Install Debian's packages as root:" >&2
  echo "  apt-get update && apt-get install -y --no-install-recommends prometheus openssl" >&2
  echo "or put the promtool and prometheus binaries from https://prometheus.io/download/ on PATH" >&2
  echo "(tests also honour PROMTOOL=/path/to/promtool and PROMETHEUS=/path/to/prometheus)." >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
install() { apt-get install -y --no-install-recommends prometheus openssl; }
# Refresh the package lists once: up front when they do not know the package
# (a fresh image), otherwise only if installing from them fails (stale lists).
if ! apt-cache show prometheus >/dev/null 2>&1; then
  apt-get update
  install
elif ! install; then
  apt-get update
  install
fi

if ! have promtool || ! have prometheus || ! have openssl; then
  echo "installed the prometheus package, but promtool or prometheus is still not on PATH" >&2
  exit 1
fi
echo "installed: $(command -v promtool), $(command -v prometheus), $(command -v openssl)"
