#!/usr/bin/env bash
# Every test: installs what it needs, builds, then runs the Rust tests (core, relay integration
# against real PTYs) and the browser end-to-end tests (Playwright in Debian's headless chromium
# against the real relay).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
bash scripts/build.sh
echo "== cargo test (native)"
cargo test --workspace --release
echo "== cargo test (wasm DOM tests in headless chromium)"
CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}" cargo test --release --target wasm32-unknown-unknown -p wterm-wasm
echo "== playwright"
npx playwright test
