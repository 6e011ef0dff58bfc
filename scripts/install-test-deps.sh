#!/usr/bin/env bash
# Installs the external tools the tests use: promtool and prometheus (Debian's
# `prometheus` package), openssl (the TLS tests make a throwaway CA and
# certificates), tinyproxy (the real forward proxy of the network tests),
# chromium (the status page's browser test drives it with playwright-core,
# which downloads no browser) and protoc (Debian's `protobuf-compiler`: the
# OTLP metrics tests decode what the exporter sends with Google's own decoder).
# Idempotent: does nothing when all are on PATH. `npm test` runs it first
# (pretest), so a fresh machine needs no other step.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }

if have promtool && have prometheus && have openssl && have tinyproxy && have chromium && have protoc; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ] || ! have apt-get; then
  echo "The tests need promtool, prometheus, openssl, tinyproxy, chromium and protoc on PATH. Install Debian's packages as root:" >&2
  echo "  apt-get update && apt-get install -y --no-install-recommends prometheus openssl tinyproxy chromium protobuf-compiler" >&2
  echo "or put the promtool and prometheus binaries from https://prometheus.io/download/ on PATH" >&2
  echo "(tests also honour PROMTOOL=/path/to/promtool, PROMETHEUS=/path/to/prometheus, TINYPROXY=/path/to/tinyproxy, CHROMIUM=/path/to/chromium and PROTOC=/path/to/protoc)." >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
install() { apt-get install -y --no-install-recommends prometheus openssl tinyproxy chromium protobuf-compiler; }
# Refresh the package lists once: up front when they do not know the package
# (a fresh image), otherwise only if installing from them fails (stale lists).
if ! apt-cache show prometheus >/dev/null 2>&1; then
  apt-get update
  install
elif ! install; then
  apt-get update
  install
fi

if ! have promtool || ! have prometheus || ! have openssl || ! have tinyproxy || ! have chromium || ! have protoc; then
  echo "installed the packages, but promtool, prometheus, openssl, tinyproxy, chromium or protoc is still not on PATH" >&2
  exit 1
fi
echo "installed: $(command -v promtool), $(command -v prometheus), $(command -v openssl), $(command -v tinyproxy), $(command -v chromium), $(command -v protoc)"
