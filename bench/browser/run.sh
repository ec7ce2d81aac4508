#!/usr/bin/env bash
# Browser benchmark of wterm-rs against xterm.js 6 (DOM, WebGL), ghostty-web and @wterm/dom.
# Installs the benchmark's own pinned npm packages (bench/browser/package.json, no browser
# download), builds nothing, and runs bench.mjs in headless /usr/bin/chromium against the package
# already built in wterm-wasm/pkg (bash scripts/build.sh). Not part of CI.
#
#   bash bench/browser/run.sh [--quick] [--terminals=wterm,xterm-dom,xterm-webgl,ghostty,wterm-dom]
#                             [--corpora=ls,sgr,yes,cjk,redraw]
#
# --quick: 1 MiB corpora instead of 10 MiB. Prints the table; raw JSON goes to bench/results/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
if [ ! -d node_modules/playwright-core ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "bench: npm ci in bench/browser (benchmark-only dependencies)" >&2
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
fi
exec node bench.mjs "$@"
