#!/usr/bin/env bash
# Short fuzz pass (CI): runs wterm-core's cargo-fuzz target `terminal` for N seconds (default 60)
# over the saved corpus (wterm-core/fuzz/corpus/terminal) and the saved regressions, and fails
# when it finds a crash (an engine panic or a failed oracle check, see wterm-core/fuzz/ops.rs).
# Installs what it needs first, quietly when already present: a nightly toolchain (minimal
# profile) and cargo-fuzz.
#
# Usage: scripts/fuzz.sh [seconds]
# Inputs listed in wterm-core/fuzz/known_failures.txt are left out of the starting corpus (the
# current engine fails them; the stable tests wterm-core/tests/fuzz_*.rs track them).
set -euo pipefail
cd "$(dirname "$0")/../wterm-core"

seconds="${1:-60}"
case "$seconds" in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [seconds]" >&2; exit 2 ;; esac

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
echo "== fuzzing for ${seconds}s"
status=0
cargo +nightly fuzz run "${flags[@]}" terminal "$work/new" "$work/seeds" -- \
  -max_total_time="$seconds" -timeout="$INPUT_TIMEOUT_S" \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1 || status=$?
if [ "$status" -ne 0 ]; then
  mkdir -p fuzz/artifacts/terminal
  for a in "$work"/artifacts/*; do
    [ -f "$a" ] || continue
    cp "$a" fuzz/artifacts/terminal/
    echo "== crash input: wterm-core/fuzz/artifacts/terminal/$(basename "$a"), as a script:"
    cargo +nightly fuzz fmt "${flags[@]}" terminal "$a" || true
  done
  echo "fuzz: FAILED (minimize with: cd wterm-core && cargo +nightly fuzz tmin ${flags[*]} terminal <input>;" \
    "save it in fuzz/regressions/)" >&2
  exit "$status"
fi
echo "fuzz: no crash in ${seconds}s"
