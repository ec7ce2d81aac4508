#!/usr/bin/env bash
# Builds the wasm package (wterm-wasm/pkg) and the relay (release). Run scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash wterm-wasm/build.sh
cargo build --release -p wterm-relay
