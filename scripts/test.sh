#!/usr/bin/env bash
# Every test: installs what it needs, builds, then runs the Rust tests (core, relay integration
# against real PTYs), the wasm DOM tests, and the browser end-to-end tests (Playwright and
# agent-browser in Debian's headless chromium with native WebMCP, against the real relay).
# Also checks the tmux oracle behind the differential tests, checks the conformance suite against
# real xterm (scripts/xterm-oracle.py), compares every kept input with @xterm/headless
# (scripts/headless-oracle.mjs), and runs a seeded cargo-fuzz pass (the same inputs every run).
# Every step runs even when an earlier one failed; the run ends with a table of the steps (pass
# and fail counts, seconds) and one summary line, "all: N passed, N failed", naming the failing
# steps, and exits non-zero when any failed (scripts/steps.sh).
#
#   scripts/test.sh              everything (about 10 minutes warm on 2 cores, 25 cold)
#   scripts/test.sh --quick      format, clippy (warnings denied), relay layers, the core's
#                                tests, unit tests: no browser, no PTY (seconds when warm)
#   scripts/test.sh --self-test  the step runner against a few made-up steps
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/steps.sh

mode="${1:-}"
case "$mode" in
  '' | --quick | --self-test) ;;
  *) echo "usage: scripts/test.sh [--quick | --self-test]" >&2; exit 2 ;;
esac

if [ "$mode" = --self-test ]; then
  # Made-up steps: counted passes, counted failures with a non-zero exit, a crash that counts
  # nothing, node's counts, and a step with no counts that passes.
  out="$(
    . scripts/steps.sh
    step "cargo-like" bash -c 'echo "test result: ok. 3 passed; 0 failed"'
    step "failing" bash -c 'echo "1 passed; 2 failed"; exit 101'
    step "crash" bash -c 'echo "error: could not compile"; exit 1'
    step "node-like" bash -c 'printf "# pass 2\n# fail 0\n"'
    step "no counts" true
    steps_summary
    echo "exit $?"
  )"
  expect() {
    if ! grep -qxF -- "$1" <<<"$out"; then
      echo "$out"
      echo "step runner self-test: FAILED, no line: $1"
      exit 1
    fi
  }
  expect "all: 7 passed, 3 failed (failing: failing; crash)"
  expect "exit 1"
  out="$(
    . scripts/steps.sh
    step "one" bash -c 'echo "4 passed"'
    steps_summary
    echo "exit $?"
  )"
  expect "all: 4 passed, 0 failed"
  expect "exit 0"
  echo "step runner self-test: ok"
  exit 0
fi

if [ "$mode" = --quick ]; then
  # Debug profile (the full run's release build takes minutes with thin LTO); clippy and the
  # tests each keep their own warm build in target/.
  step "rustfmt" cargo fmt --all --check
  step "clippy (native)" cargo clippy --workspace --all-targets -- -D warnings
  step "clippy (wasm32)" \
    cargo clippy --target wasm32-unknown-unknown -p wterm-wasm --all-targets -- -D warnings
  step "relay layers" bash -c 'python3 scripts/layers.py --self-test && python3 scripts/layers.py'
  step "step runner" bash scripts/test.sh --self-test
  # The core's tests are all in-process (conformance, differential, fuzz replays): seconds.
  step "core tests" cargo test -p wterm-core --tests
  # The relay's unit tests (its PTY integration tests take minutes) and the page's, which run
  # natively (the DOM tests need a browser).
  step "relay and page unit tests" cargo test -p wterm-relay -p wterm-wasm --lib --bins
  steps_summary
  exit
fi

step "setup" bash scripts/setup.sh --test
step "build" bash scripts/build.sh
# No import from a higher layer, no circle.
step "relay layers" bash -c 'python3 scripts/layers.py --self-test && python3 scripts/layers.py'
step "step runner" bash scripts/test.sh --self-test
# The recorded sessions' expected screens still come from tmux.
step "tmux oracle" python3 scripts/tmux-oracle.py --check
# The conformance suite's expectations against real xterm under Xvfb.
step "xterm oracle" python3 scripts/xterm-oracle.py
# Native: core incl. conformance, differential and fuzz-corpus replays; relay.
step "cargo test" cargo test --workspace --release
# Conformance cases, recorded sessions and fuzz inputs against xterm.js.
step "headless oracle" bash -c \
  'node scripts/headless-oracle.mjs --self-test && node scripts/headless-oracle.mjs'
step "wasm DOM tests (chromium)" env CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}" \
  cargo test --release --target wasm32-unknown-unknown -p wterm-wasm
# Pack, install the tarball into Vite 7 consumer apps, build them.
step "npm consumers (Vite 7)" bash tests/consumer/run.sh
# Install the tarball into Next.js 16, webpack 5, Vite 8 and React 18 (Vite 7) apps, build them.
step "npm bundlers" bash tests/consumer/bundlers.sh
# The package README's shell lines run (run.sh's vite build compiled the others).
step "package README samples" node --test tests/consumer/
step "playwright" npx playwright test
# Official TypeScript SDK, node --test, against the relay.
step "MCP TypeScript SDK" node --test tests/mcp/
# Official Python SDK, mcp 1.x and 2.x.
step "MCP Python SDK" bash tests/mcp/python-sdk.sh
# Tool calls per scenario, table at the end (the page's run is in playwright).
step "agent scenarios" node --test tests/agent/

# No session holder left running by the suites above (each test relay's state directory is a
# temp dir).
holders_left() {
  local left
  left="$(pgrep -af 'wterm-relay hold ' | grep -F "${TMPDIR:-/tmp}/" || true)"
  if [ -n "$left" ]; then
    echo "$left"
    echo "holders left behind: 0 passed, $(printf '%s\n' "$left" | wc -l) failed"
    return 1
  fi
  echo "holders left behind: none, 1 passed"
}
step "holders left behind" holders_left
# The same seeded inputs on every machine. Its log is cut to the tail, which says what failed.
step "fuzz pass" bash -c 'set -o pipefail; bash scripts/fuzz.sh --ci 2>&1 | tail -n 40'

steps_summary
