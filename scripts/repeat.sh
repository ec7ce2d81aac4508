#!/usr/bin/env bash
# Runs one test N times under CPU load, to catch a flaky one: prints each run's result and the
# count, and exits non-zero when any run failed.
#
#   scripts/repeat.sh [-n N] [--hogs K] cargo CARGO-TEST-ARGS...
#   scripts/repeat.sh [-n N] [--hogs K] playwright SPEC[:LINE] [PLAYWRIGHT-ARGS...]
#
#   e.g. scripts/repeat.sh -n 20 cargo --release -p wterm-relay --test it holders::new_shells
#        scripts/repeat.sh -n 20 playwright tests/e2e/search-links.spec.ts:118
#
# N defaults to 10. The load is K busy-loop processes (default: one per core, `nproc`),
# started after the test is built and killed when the script ends, however it ends (Ctrl-C
# included). A run passes when it exits 0 and reports at least one passed test (a filter that
# matches nothing fails). Each failed run's output is kept and its path printed.
set -uo pipefail
cd "$(dirname "$0")/.."

n=10
hogs="$(nproc)"
usage() {
  sed -n '5,6p' "$0" | sed 's/^#   /usage: /' >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    -n) n="${2:-}"; shift 2 ;;
    --hogs) hogs="${2:-}"; shift 2 ;;
    *) break ;;
  esac
done
case "$n$hogs" in '' | *[!0-9]*) usage ;; esac
[ $# -ge 2 ] || usage
kind="$1"
shift
case "$kind" in
  cargo)
    build=(cargo test --no-run "$@")
    run=(cargo test "$@")
    ;;
  playwright)
    build=(true)
    run=(npx playwright test "$@")
    ;;
  *) usage ;;
esac

logs="$(mktemp -d "${TMPDIR:-/tmp}/repeat.XXXXXX")"
passed=0
failed=0
hog_pids=()
stop_hogs() {
  local pid
  for pid in "${hog_pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${hog_pids[@]}"; do wait "$pid" 2>/dev/null; done
  hog_pids=()
}
# The failed runs' logs stay; the rest goes.
finish() {
  stop_hogs
  if [ "$failed" -eq 0 ]; then rm -rf "$logs"; fi
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== building: ${build[*]}"
if ! "${build[@]}" >"$logs/build.log" 2>&1; then
  cat "$logs/build.log"
  echo "repeat: the build failed"
  exit 1
fi
for _ in $(seq "$hogs"); do
  ( while :; do :; done ) &
  hog_pids+=("$!")
done
echo "== ${run[*]}: $n runs under $hogs CPU hogs"
for i in $(seq "$n"); do
  log="$logs/run-$i.log"
  start=$SECONDS
  "${run[@]}" >"$log" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ] && grep -Eq '(^|[^0-9])[1-9][0-9]* passed' "$log"; then
    passed=$((passed + 1))
    echo "run $i: ok ($((SECONDS - start)) s)"
    rm -f "$log"
  else
    failed=$((failed + 1))
    echo "run $i: FAILED (exit $rc, $((SECONDS - start)) s): $log"
  fi
done
stop_hogs
echo "repeat: $passed passed, $failed failed of $n runs ($hogs CPU hogs)"
[ "$failed" -eq 0 ]
