#!/usr/bin/env bash
# Builds the apps of tests/consumer/bundlers against the PACKED wterm-wasm, as tests/consumer/run.sh
# does for the Vite 7 app: `npm pack` of wterm-wasm/pkg, `npm install ./wterm-wasm-X.Y.Z.tgz` with
# the apps' pinned Next.js 16, webpack 5 and Vite 8 (one install for the three), then
#   - next/:    `next build` (app router, Turbopack); tests/e2e/npm-bundlers.spec.ts runs `next start`;
#   - webpack/: webpack 5 through its Node API, with css-loader and style-loader;
#   - vite8/:   `vite build` with no config (the spec also runs its dev server);
# and, in its own install (React 18 beside Next's React 19), tests/consumer/react18: React 18
# with wterm-wasm/react, `vite build` by Vite 7 with no config (the spec also runs its dev server).
#
# Needs wterm-wasm/pkg (run `bash wterm-wasm/build.sh` first) and the npm registry (first run
# only). Works in $WTERM_CONSUMER_DIR/bundlers (default: $TMPDIR/wterm-consumer/bundlers, or
# /tmp/...), where the spec finds the install through the file `current`. Quick on re-runs: the
# install is kept while the tarball and package.json stay the same, and the builds are skipped
# while the apps' sources do too.
#
#   bash wterm-wasm/build.sh && bash tests/consumer/bundlers.sh && npx playwright test tests/e2e/npm-bundlers.spec.ts
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
apps="$root/tests/consumer/bundlers"
pkg="$root/wterm-wasm/pkg"
work="${WTERM_CONSUMER_DIR:-${TMPDIR:-/tmp}/wterm-consumer}/bundlers"

if [ ! -f "$pkg/package.json" ] || [ ! -f "$pkg/wterm_wasm_bg.wasm" ]; then
  echo "bundlers.sh: no package in $pkg; run: bash wterm-wasm/build.sh" >&2
  exit 1
fi
mkdir -p "$work"

# 1. The tarball, exactly as `npm publish` would upload it.
rm -rf "$work/pack"
mkdir -p "$work/pack"
tgz_name="$(cd "$pkg" && npm pack --silent --pack-destination "$work/pack" | tail -n1)"
tgz="$work/pack/$tgz_name"
[ -f "$tgz" ] || { echo "bundlers.sh: npm pack did not write $tgz" >&2; exit 1; }

# 2. The install, reused while the tarball and the apps' dependencies stay the same.
key="$(cat "$tgz" "$apps/package.json" | sha256sum | cut -c1-16)"
install="$work/install-$key"
if [ ! -f "$install/.installed" ]; then
  for old in "$work"/install-*; do
    [ -e "$old" ] && [ "$old" != "$install" ] && rm -rf "$old"
  done
  rm -rf "$install"
  mkdir -p "$install"
  cp "$apps/package.json" "$install/package.json"
  cp "$tgz" "$install/$tgz_name"
  echo "bundlers.sh: npm install ./$tgz_name, Next.js, webpack and Vite 8 in $install"
  (cd "$install" && npm install --no-audit --no-fund --loglevel=error "./$tgz_name")
  touch "$install/.installed"
else
  echo "bundlers.sh: reusing the install in $install"
fi
if [ -L "$install/node_modules/wterm-wasm" ] ||
  ! cmp -s "$install/node_modules/wterm-wasm/wterm_wasm_bg.wasm" "$pkg/wterm_wasm_bg.wasm"; then
  echo "bundlers.sh: node_modules/wterm-wasm in $install is not the packed package" >&2
  exit 1
fi
echo "$install" > "$work/current"

# 3. The React 18 app (tests/consumer/react18) needs its own install (React 18 beside the Next
# app's React 19), made the same way in $work/../react18; `vite build` (Vite 7, no config).
react18_src="$root/tests/consumer/react18"
react18_work="$(dirname "$work")/react18"
mkdir -p "$react18_work"
key18="$(cat "$tgz" "$react18_src/package.json" | sha256sum | cut -c1-16)"
install18="$react18_work/install-$key18"
if [ ! -f "$install18/.installed" ]; then
  for old in "$react18_work"/install-*; do
    [ -e "$old" ] && [ "$old" != "$install18" ] && rm -rf "$old"
  done
  rm -rf "$install18"
  mkdir -p "$install18"
  cp "$react18_src/package.json" "$install18/package.json"
  cp "$tgz" "$install18/$tgz_name"
  echo "bundlers.sh: npm install ./$tgz_name, React 18 and Vite 7 in $install18"
  (cd "$install18" && npm install --no-audit --no-fund --loglevel=error "./$tgz_name")
  touch "$install18/.installed"
else
  echo "bundlers.sh: reusing the install in $install18"
fi
if [ -L "$install18/node_modules/wterm-wasm" ] ||
  ! cmp -s "$install18/node_modules/wterm-wasm/wterm_wasm_bg.wasm" "$pkg/wterm_wasm_bg.wasm"; then
  echo "bundlers.sh: node_modules/wterm-wasm in $install18 is not the packed package" >&2
  exit 1
fi
echo "$install18" > "$react18_work/current"
rm -rf "$install18/src" "$install18/dist"
cp -R "$react18_src/src" "$react18_src/index.html" "$install18/"
echo "bundlers.sh: vite build (React 18 app)"
(cd "$install18" && node_modules/.bin/vite build --logLevel warn)
ls "$install18"/dist/assets/*.wasm > /dev/null 2>&1 || { echo "bundlers.sh: the React 18 app's vite build emitted no .wasm" >&2; exit 1; }

# 4. The apps' sources next to the install, then the builds (skipped when nothing changed).
build_key="$key-$(cd "$apps" && find next webpack vite8 -type f | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-16)"
if [ -f "$install/.build-key" ] && [ "$(cat "$install/.build-key")" = "$build_key" ]; then
  echo "bundlers.sh: the apps are unchanged since the last build; keeping them"
  exit 0
fi
rm -f "$install/.build-key"
for app in next webpack vite8; do
  rm -rf "${install:?}/$app"
  cp -R "$apps/$app" "$install/$app"
done
bin="$install/node_modules/.bin"
echo "bundlers.sh: next build"
(cd "$install/next" && NEXT_TELEMETRY_DISABLED=1 "$bin/next" build)
[ -f "$install/next/.next/BUILD_ID" ] || { echo "bundlers.sh: next build wrote no .next/BUILD_ID" >&2; exit 1; }
echo "bundlers.sh: webpack"
(cd "$install/webpack" && CONSUMER_OUT_DIR="$install/webpack/dist" node build.js)
ls "$install"/webpack/dist/*.wasm > /dev/null 2>&1 || { echo "bundlers.sh: webpack emitted no .wasm" >&2; exit 1; }
echo "bundlers.sh: vite build (Vite 8)"
(cd "$install/vite8" && "$bin/vite" build --logLevel warn)
ls "$install"/vite8/dist/assets/*.wasm > /dev/null 2>&1 || { echo "bundlers.sh: vite build emitted no .wasm" >&2; exit 1; }
echo "$build_key" > "$install/.build-key"
echo "bundlers.sh: built next/.next, webpack/dist and vite8/dist in $install"
