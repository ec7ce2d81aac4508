# Sourced by scripts/test.sh (and scripts/test.sh --self-test): run named steps one after
# another, each to the end whatever the others did, then print a table and one summary line.
#
#   step NAME COMMAND [ARG...]   run COMMAND, its output shown and kept for counting
#   steps_summary                the table, "all: N passed, N failed", and the exit status
#                                (1 when any step failed, else 0)
#
# A step's counts are read from its own output: cargo, Playwright and tests/mcp/python-sdk.sh
# print "N passed" / "N failed", node's test runner "# pass N" / "# fail N". A step that prints
# neither (a format check, a build) is one check: 1 passed, or 1 failed. A step that exits
# non-zero has failed even when its output counts no failure (a compile error, a crash), and
# then counts at least 1 failed.

steps_dir="$(mktemp -d)"
trap 'rm -rf "$steps_dir"' EXIT
steps_names=()
steps_passed=()
steps_failed=()
steps_seconds=()
steps_status=()

# The sum of every "N <word>" and "# <node word> N" in a file.
steps_count() {
  { grep -Eo "[0-9]+ $2" "$1" | awk '{ print $1 }'
    grep -E "^# $3 [0-9]+$" "$1" | awk '{ print $3 }'; } | awk '{ n += $1 } END { print n + 0 }'
}

step() {
  local name="$1"
  shift
  local log="$steps_dir/${#steps_names[@]}.log"
  local start=$SECONDS rc=0
  echo "== $name"
  # pipefail: the status is the command's, not tee's.
  ( set -o pipefail; "$@" 2>&1 | tee "$log" ) || rc=$?
  local passed failed
  passed="$(steps_count "$log" passed pass)"
  failed="$(steps_count "$log" failed fail)"
  if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
    if [ "$rc" -eq 0 ]; then passed=1; else failed=1; fi
  elif [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    failed=1
  fi
  local status=ok
  if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ]; then status=FAILED; fi
  steps_names+=("$name")
  steps_passed+=("$passed")
  steps_failed+=("$failed")
  steps_seconds+=("$((SECONDS - start))")
  steps_status+=("$status")
  echo "-- $name: $status, $passed passed, $failed failed, $((SECONDS - start)) s (exit $rc)"
}

steps_summary() {
  local i total_passed=0 total_failed=0 failing=()
  echo
  printf '%-7s %7s %7s %7s  %s\n' status passed failed seconds step
  for i in "${!steps_names[@]}"; do
    printf '%-7s %7s %7s %7s  %s\n' "${steps_status[$i]}" "${steps_passed[$i]}" \
      "${steps_failed[$i]}" "${steps_seconds[$i]}" "${steps_names[$i]}"
    total_passed=$((total_passed + steps_passed[i]))
    total_failed=$((total_failed + steps_failed[i]))
    if [ "${steps_status[$i]}" != ok ]; then failing+=("${steps_names[$i]}"); fi
  done
  echo "wall time: $((SECONDS / 60)) min $((SECONDS % 60)) s"
  if [ "${#failing[@]}" -eq 0 ]; then
    echo "all: $total_passed passed, $total_failed failed"
    return 0
  fi
  local joined
  joined="$(printf '%s; ' "${failing[@]}")"
  echo "all: $total_passed passed, $total_failed failed (failing: ${joined%; })"
  return 1
}
