#!/usr/bin/env bash
# Fuzz pass: runs wterm-core's cargo-fuzz target `terminal` over the saved corpus
# (wterm-core/fuzz/corpus/terminal) and the saved regressions, and fails when it finds a crash
# (an engine panic or a failed oracle check, see wterm-core/fuzz/ops.rs). Installs what it needs
# first, quietly when already present: a nightly toolchain (minimal profile) and cargo-fuzz.
#
# Usage: scripts/fuzz.sh [seconds]   explore with a random seed for N seconds (default 60)
#        scripts/fuzz.sh --ci        the CI pass: CI_RUNS inputs from CI_SEED, the same inputs
#                                    on every machine, so a result never depends on luck (the
#                                    core's maps use a fixed hash key under cfg(fuzzing) for
#                                    this; a slow machine stops at CI_MAX_SECONDS, having run a
#                                    prefix of the same inputs). Exploring finds new bugs (run it
#                                    before a change lands and save what it finds in
#                                    fuzz/regressions/); CI keeps the fixed ones from coming back.
# Inputs listed in wterm-core/fuzz/known_failures.txt are left out of the starting corpus (the
# current engine fails them; the stable tests wterm-core/tests/fuzz_*.rs track them).
set -euo pipefail
cd "$(dirname "$0")/../wterm-core"

# The CI pass's libFuzzer seed and number of inputs (about 30 s on 2 cores).
CI_SEED=20261204
CI_RUNS=80000
# The CI pass's bound on its wall time, in seconds.
CI_MAX_SECONDS=120

if [ "${1:-}" = "--ci" ]; then
  seconds=$CI_MAX_SECONDS
  limits=(-seed="$CI_SEED" -runs="$CI_RUNS")
  what="$CI_RUNS inputs from seed $CI_SEED (at most ${CI_MAX_SECONDS}s)"
else
  seconds="${1:-60}"
  case "$seconds" in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [seconds | --ci]" >&2; exit 2 ;; esac
  limits=()
  what="${seconds}s"
fi

# cargo-fuzz release that builds this target; `--locked` uses its own tested lockfile.
CARGO_FUZZ_VERSION=0.13.2
# A single input running longer than this, in seconds, is reported as a hang (a crash).
INPUT_TIMEOUT_S=30

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "== installing the nightly toolchain (minimal profile)"
  rustup toolchain install nightly --profile minimal
fi
if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
  echo "== installing cargo-fuzz $CARGO_FUZZ_VERSION"
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked --quiet
fi

# libFuzzer adds what it finds to the first corpus directory: a scratch one, so the checked-in
# corpus only holds the topic-named seeds. The seeds are copied without the known failures.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/new" "$work/seeds" "$work/artifacts"
known="$(awk '!/^#/ && NF { print $1 }' fuzz/known_failures.txt)"
for f in fuzz/corpus/terminal/* fuzz/regressions/*; do
  [ -f "$f" ] || continue
  case "$f" in *.md) continue ;; esac
  rel="${f#fuzz/}"
  if grep -qxF "$rel" <<<"$known"; then continue; fi
  cp "$f" "$work/seeds/$(echo "$rel" | tr / _)"
done

# -s none: safe Rust needs no AddressSanitizer, which halves the rate; no trace-compares: the
# structured input already names the magic numbers (modes, fragments), and it costs ~2x.
flags=(-s none --no-trace-compares)
echo "== building the fuzz target"
cargo +nightly fuzz build "${flags[@]}" terminal
echo "== fuzzing: $what"
status=0
cargo +nightly fuzz run "${flags[@]}" terminal "$work/new" "$work/seeds" -- \
  -max_total_time="$seconds" "${limits[@]}" -timeout="$INPUT_TIMEOUT_S" \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1 2>&1 | tee "$work/log" || status=$?
if [ "$status" -ne 0 ]; then
  mkdir -p fuzz/artifacts/terminal
  for a in "$work"/artifacts/*; do
    [ -f "$a" ] || continue
    cp "$a" fuzz/artifacts/terminal/
    echo "== crash input: wterm-core/fuzz/artifacts/terminal/$(basename "$a"), as a script:"
    cargo +nightly fuzz fmt "${flags[@]}" terminal "$a" 2>&1 | head -n 400 || true
  done
  # Last, so a log cut to its tail still holds what failed and the input to replay it.
  echo "== what failed:"
  grep -m 3 -A 3 "panicked at" "$work/log" || grep -m 5 "ERROR\|deadly signal\|timeout" "$work/log" || true
  for a in "$work"/artifacts/*; do
    [ -f "$a" ] || continue
    echo "== the input, base64 (decode with: base64 -d > crash): $(base64 -w0 "$a")"
  done
  echo "fuzz: FAILED (minimize with: cd wterm-core && cargo +nightly fuzz tmin ${flags[*]} terminal <input>;" \
    "save it in fuzz/regressions/)" >&2
  exit "$status"
fi
echo "fuzz: no crash ($what)"
