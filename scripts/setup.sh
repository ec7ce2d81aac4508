#!/usr/bin/env bash
# Installs everything wterm-rs needs on a fresh Debian 12 machine with Rust and Node: the wasm
# target, the wasm-bindgen CLI at the pinned version, npm packages (no browser downloads), and,
# with --test, Debian's chromium plus the programs the tests drive (bash, zsh, fish, vim, less, python3 with venv, openssl, sudo (its password prompt),
# and xterm under xvfb, the judge of the conformance suite).
# Idempotent: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION="$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' wterm-wasm/Cargo.toml | head -n1)"
: "${WASM_BINDGEN_VERSION:?could not read the pinned wasm-bindgen version from wterm-wasm/Cargo.toml}"

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if [ "$want_test" = 1 ]; then
  need=()
  for pair in chromium:chromium chromedriver:chromium-driver vim:vim less:less tmux:tmux python3:python3 zsh:zsh fish:fish openssl:openssl xterm:xterm Xvfb:xvfb sudo:sudo; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair#*:}")
  done
  # `python3 -m venv` (the MCP Python SDK tests' venvs) needs ensurepip, which Debian ships apart.
  python3 -c 'import ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
  if [ "${#need[@]}" -gt 0 ]; then
    echo "setup: apt-get install ${need[*]}"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi

rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown \
  || rustup target add wasm32-unknown-unknown

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  echo "setup: cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 2 minutes)"
  # No --locked: its lockfile names a crate version the registry does not serve.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --no-default-features --quiet
fi

if [ ! -x node_modules/.bin/playwright ] || [ package.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm install (no browser download)"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error
fi
