#!/usr/bin/env bash
# The relay's MCP endpoint driven by the official MCP Python SDK, 1.x and 2.x
# (tests/mcp/python/test_sdk.py once per pinned version). Each version gets its own venv under
# ${XDG_CACHE_HOME:-$HOME/.cache}/wterm-rs/py-mcp-<version>, reused while it imports that
# version, made anew when it does not. Each run ends with "python mcp X.Y.Z: N passed, M failed";
# the script exits non-zero if a run failed. WTERM_RELAY_BIN names the relay binary (default
# target/release/wterm-relay, as scripts/build.sh makes it).
set -euo pipefail
cd "$(dirname "$0")/../.."

VERSIONS=(1.30.0 2.3.0)
PYTHON="${PYTHON:-python3}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/wterm-rs"

if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  found="$("$PYTHON" --version 2>&1 | head -n1 || true)"
  echo "python-sdk: the MCP Python SDK needs Python 3.10 or newer; $PYTHON is ${found:-missing}" >&2
  exit 1
fi
export WTERM_RELAY_BIN="${WTERM_RELAY_BIN:-target/release/wterm-relay}"
if [ ! -x "$WTERM_RELAY_BIN" ]; then
  echo "python-sdk: no relay binary at $WTERM_RELAY_BIN (scripts/build.sh makes it)" >&2
  exit 1
fi

status=0
for v in "${VERSIONS[@]}"; do
  venv="$cache/py-mcp-$v"
  if ! "$venv/bin/python" -c "import sys, mcp, importlib.metadata as m; sys.exit(m.version('mcp') != '$v')" 2>/dev/null; then
    echo "python-sdk: making $venv (pip install mcp==$v)"
    rm -rf "$venv"
    mkdir -p "$cache"
    "$PYTHON" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$v"
  fi
  "$venv/bin/python" tests/mcp/python/test_sdk.py || status=1
done
exit "$status"
