#!/usr/bin/env bash
# The product: installs what it needs, builds, and runs the relay serving the page with a real
# shell. Open the printed URL (it carries the page token in its fragment). Extra arguments go to
# wterm-relay, e.g. `scripts/run.sh --port 8080`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec target/release/wterm-relay serve "$@"
