#!/usr/bin/env bash
# Builds the consumer app of tests/consumer/app against the PACKED wterm-wasm, as a user would
# get it from npm: `npm pack` of wterm-wasm/pkg, then `npm install ./wterm-wasm-X.Y.Z.tgz` (never
# a path to the sources) with the app's pinned Vite 7, React, Vue and Svelte, then `tsc` over the
# package's declarations (and of an xterm.js app with its imports changed to wterm-wasm/xterm) and
# `vite build` of the app's pages (plain JS, React, Vue, Svelte, and
# readme.html, which imports every code sample of the package README: readme-samples.mjs).
#
# Needs wterm-wasm/pkg (run `bash wterm-wasm/build.sh` first) and the npm registry (first run
# only). Leaves the built app in $WTERM_CONSUMER_DIR/dist (default: $TMPDIR/wterm-consumer/dist,
# or /tmp/...), which tests/e2e/npm-consumer.spec.ts serves; the spec reads the same variable and
# also runs the Vite dev server in the install (named in $WTERM_CONSUMER_DIR/current).
#
# Quick on re-runs: the install is kept in a directory named after a hash of the tarball and the
# app's package.json, and the build is skipped when neither it nor the app's sources changed.
#
#   bash wterm-wasm/build.sh && bash tests/consumer/run.sh && npx playwright test tests/e2e/npm-consumer.spec.ts
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
app="$root/tests/consumer/app"
pkg="$root/wterm-wasm/pkg"
work="${WTERM_CONSUMER_DIR:-${TMPDIR:-/tmp}/wterm-consumer}"
dist="$work/dist"

if [ ! -f "$pkg/package.json" ] || [ ! -f "$pkg/wterm_wasm_bg.wasm" ]; then
  echo "run.sh: no package in $pkg; run: bash wterm-wasm/build.sh" >&2
  exit 1
fi
mkdir -p "$work"

# 1. The tarball, exactly as `npm publish` would upload it.
rm -rf "$work/pack"
mkdir -p "$work/pack"
tgz_name="$(cd "$pkg" && npm pack --silent --pack-destination "$work/pack" | tail -n1)"
tgz="$work/pack/$tgz_name"
[ -f "$tgz" ] || { echo "run.sh: npm pack did not write $tgz" >&2; exit 1; }
echo "run.sh: packed $tgz_name ($(wc -c < "$tgz" | tr -d ' ') bytes)"

# 2. The install, reused while the tarball and the app's dependencies stay the same.
key="$(cat "$tgz" "$app/package.json" | sha256sum | cut -c1-16)"
install="$work/install-$key"
if [ ! -f "$install/.installed" ]; then
  for old in "$work"/install-*; do
    [ -e "$old" ] && [ "$old" != "$install" ] && rm -rf "$old"
  done
  rm -rf "$install"
  mkdir -p "$install"
  cp "$app/package.json" "$install/package.json"
  cp "$tgz" "$install/$tgz_name"
  echo "run.sh: npm install ./$tgz_name and the app's pinned dependencies in $install"
  (cd "$install" && npm install --no-audit --no-fund --loglevel=error "./$tgz_name")
  touch "$install/.installed"
else
  echo "run.sh: reusing the install in $install"
fi
# The package must come from the tarball, not from a link to the sources.
if [ -L "$install/node_modules/wterm-wasm" ] ||
  ! cmp -s "$install/node_modules/wterm-wasm/wterm_wasm_bg.wasm" "$pkg/wterm_wasm_bg.wasm"; then
  echo "run.sh: node_modules/wterm-wasm in $install is not the packed package" >&2
  exit 1
fi
# For tests/e2e/npm-consumer.spec.ts, which runs the app's Vite dev server in the install.
echo "$install" > "$work/current"

# 3. The app's sources next to the install, then type-check and build (skipped when unchanged).
rm -rf "$install/src" "$install/typecheck"
cp -R "$app/src" "$app/typecheck" "$install/"
# The xterm.js app (typecheck/xterm-app.ts, checked against @xterm/xterm itself) with only its
# import paths changed: the package's wterm-wasm/xterm and wterm-wasm/addon-* must accept it.
sed -e 's#"@xterm/xterm"#"wterm-wasm/xterm"#' -e 's#"@xterm/addon-\([a-z]*\)"#"wterm-wasm/addon-\1"#' \
  "$app/typecheck/xterm-app.ts" > "$install/typecheck/xterm-app-wterm.ts"
grep -q '"wterm-wasm/xterm"' "$install/typecheck/xterm-app-wterm.ts" ||
  { echo "run.sh: xterm-app.ts no longer imports @xterm/xterm" >&2; exit 1; }
cp "$app"/*.html "$app/vite.config.js" "$install/"
# The package README's code samples, which the page readme.html imports: the build compiles them.
node "$root/tests/consumer/readme-samples.mjs" "$install/src/readme"
build_key="$key-$( (cd "$app" && find . -type f ! -name package.json | LC_ALL=C sort | xargs cat;
  cat "$root/wterm-wasm/package/README.md") | sha256sum | cut -c1-16)"
if [ -f "$dist/.build-key" ] && [ "$(cat "$dist/.build-key")" = "$build_key" ]; then
  echo "run.sh: the app is unchanged since the last build; keeping $dist"
else
  echo "run.sh: tsc -p typecheck"
  (cd "$install" && npx --no-install tsc -p typecheck)
  echo "run.sh: vite build"
  (cd "$install" && CONSUMER_OUT_DIR="$dist" npx --no-install vite build --logLevel warn)
  for page in index react vue svelte readme; do
    [ -f "$dist/$page.html" ] || { echo "run.sh: vite build wrote no $page.html" >&2; exit 1; }
  done
  ls "$dist"/assets/*.wasm > /dev/null 2>&1 || { echo "run.sh: vite build emitted no .wasm" >&2; exit 1; }
  echo "$build_key" > "$dist/.build-key"
fi
echo "run.sh: built app in $dist (pages: index.html, react.html, vue.html, svelte.html, readme.html)"
