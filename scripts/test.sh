#!/usr/bin/env bash
# Every test: installs what it needs, builds, then runs the Rust tests (core, relay integration
# against real PTYs), the wasm DOM tests, and the browser end-to-end tests (Playwright and
# agent-browser in Debian's headless chromium with native WebMCP, against the real relay).
# Also checks the tmux oracle behind the differential tests, checks the conformance suite against
# real xterm (scripts/xterm-oracle.py), compares every kept input with @xterm/headless
# (scripts/headless-oracle.mjs), and runs a seeded cargo-fuzz pass (the same inputs every run).
# Ends with one summary line, "all: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's wall time, printed when the next begins (the whole run's budget is 30 minutes
# on 2 cores; these say where it goes).
stage_name="setup and build"
stage_start=$SECONDS
stage() {
  echo "-- $stage_name: $((SECONDS - stage_start)) s (run so far: $((SECONDS / 60)) min $((SECONDS % 60)) s)"
  stage_name="$1"
  stage_start=$SECONDS
  echo "== $1"
}
bash scripts/setup.sh --test
bash scripts/build.sh

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
stage "relay layers: no import from a higher layer, no circle (scripts/layers.py)"
python3 scripts/layers.py --self-test 2>&1 | tee -a "$log"
python3 scripts/layers.py 2>&1 | tee -a "$log"
stage "tmux oracle: the recorded sessions' expected screens still come from tmux"
python3 scripts/tmux-oracle.py --check 2>&1 | tee -a "$log"
stage "xterm oracle: the conformance suite's expectations against real xterm under Xvfb"
python3 scripts/xterm-oracle.py 2>&1 | tee -a "$log"
stage "cargo test (native: core incl. conformance, differential and fuzz-corpus replays; relay)"
cargo test --workspace --release 2>&1 | tee -a "$log"
stage "@xterm/headless oracle: conformance cases, recorded sessions and fuzz inputs against xterm.js"
node scripts/headless-oracle.mjs --self-test 2>&1 | tee -a "$log"
node scripts/headless-oracle.mjs 2>&1 | tee -a "$log"
stage "cargo test (wasm DOM tests in headless chromium)"
CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}" \
  cargo test --release --target wasm32-unknown-unknown -p wterm-wasm 2>&1 | tee -a "$log"
stage "npm package: pack, install the tarball into Vite 7 consumer apps, build them"
bash tests/consumer/run.sh
stage "npm package in Next.js 16, webpack 5, Vite 8 and React 18 (Vite 7) consumer apps: install the tarball, build them"
bash tests/consumer/bundlers.sh
stage "package README samples: the shell lines run (the others were compiled by run.sh's vite build)"
node --test tests/consumer/ 2>&1 | tee -a "$log"
stage "playwright"
npx playwright test 2>&1 | tee -a "$log"
stage "MCP clients (official TypeScript SDK, node --test) against the relay"
node --test tests/mcp/ 2>&1 | tee -a "$log"
stage "MCP clients (official Python SDK, mcp 1.x and 2.x) against the relay"
bash tests/mcp/python-sdk.sh 2>&1 | tee -a "$log"
stage "agent scenarios through MCP (tests/scenarios: tool calls per scenario, table at the end; the page's run is in playwright)"
node --test tests/agent/ 2>&1 | tee -a "$log"
stage "no session holder left running by the suites above (each test relay's state directory is a temp dir)"
left="$(pgrep -af 'wterm-relay hold ' | grep -F "${TMPDIR:-/tmp}/" || true)"
if [ -n "$left" ]; then
  echo "$left"
  echo "holders left behind: 0 passed, $(printf '%s\n' "$left" | wc -l) failed" | tee -a "$log"
else
  echo "holders left behind: none, 1 passed" | tee -a "$log"
fi
stage "fuzz pass (cargo-fuzz, the same seeded inputs on every machine: scripts/fuzz.sh --ci)"
bash scripts/fuzz.sh --ci 2>&1 | tail -n 40

stage "summary"

# cargo, Playwright and tests/mcp/python-sdk.sh print "N passed" / "N failed"; node's test runner "# pass N" / "# fail N".
sum() {
  { grep -Eo "[0-9]+ $1" "$log" | awk '{ print $1 }'
    grep -E "^# $2 [0-9]+$" "$log" | awk '{ print $3 }'; } | awk '{ n += $1 } END { print n + 0 }'
}
echo "all: $(sum passed pass) passed, $(sum failed fail) failed"
