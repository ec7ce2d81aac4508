#!/usr/bin/env bash
# Every test: installs what it needs, builds, then runs the Rust tests (core, relay integration
# against real PTYs) and the browser end-to-end tests (Playwright in Debian's headless chromium
# against the real relay).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
bash scripts/build.sh
echo "== cargo test"
cargo test --workspace --release
echo "== playwright"
npx playwright test
