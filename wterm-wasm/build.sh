#!/usr/bin/env bash
# Builds the npm package `wterm-wasm` into wterm-wasm/pkg/:
#   1. cargo, twice: the core entry (`wterm_wasm.*`, without the feature `full`: no search,
#      plain-text links, find bar or serialize) and the full entry (`wterm_wasm_full.*`); each
#      wasm32 with the `wasm-release` profile of the root Cargo.toml (every crate at
#      opt-level "z", fat LTO, one codegen unit; its own profile so the native release build and
#      the release-mode wasm DOM tests keep their artifacts; on wasm32 panics already abort);
#   2. wasm-bindgen --target web (ES module glue that loads the .wasm with
#      `new URL("wterm_wasm_bg.wasm", import.meta.url)`, which bundlers understand), minus the
#      JSDoc copies of the .d.ts's doc comments, minified with esbuild (node_modules);
#   3. wasm-opt -Oz --converge (the passes repeated while they still shrink it: 0.3 KB gzipped),
#      from the repo's binaryen (node_modules/.bin/wasm-opt; skipped with a
#      warning when it is not installed);
#   4. the hand-written files of wterm-wasm/package/ (relay client, React/Vue/Svelte bindings,
#      the xterm.js-compatible entry and its addons, their .d.ts, README.md, LICENSE) and package.json from package.template.json, its version
#      taken from the crate's (the workspace version in the root Cargo.toml);
#   5. a check that every file package.json lists exists, then a size report.
# `npm pack` in wterm-wasm/pkg then yields wterm-wasm-VERSION.tgz. Installs nothing; works from
# any directory. The package is assembled in pkg.tmp/ and moved into place at the end, so a relay
# serving wterm-wasm/pkg/ never sees a half-built package.
set -euo pipefail

crate_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$crate_dir/.." && pwd)"
src="$crate_dir/package"
pkg="$crate_dir/pkg"
stage="$crate_dir/pkg.tmp"
wasm_in="${CARGO_TARGET_DIR:-$root/target}/wasm32-unknown-unknown/wasm-release/wterm_wasm.wasm"

cd "$root"
rm -rf "$stage"
mkdir -p "$stage"

# One build of the crate into the stage as NAME.js, NAME_bg.wasm, NAME.d.ts (wasm-bindgen's
# --out-name), with cargo's feature arguments FEATURES...: the core entry `wterm_wasm` without
# the default feature `full`, the full entry `wterm_wasm_full` with it.
build_entry() {
  local name="$1"
  shift
  cargo build --profile wasm-release --target wasm32-unknown-unknown -p wterm-wasm "$@"
  wasm-bindgen --target web --out-dir "$stage" --out-name "$name" "$wasm_in"
  rm -f "$stage/.gitignore"
  # The glue repeats every doc comment of the .d.ts as JSDoc; editors read the .d.ts (package.json
  # "types"), so the copy in the JS is dropped: about 1.7 KB of the gzipped glue.
  node - "$stage/$name.js" <<'JS'
const { readFileSync, writeFileSync } = require("node:fs");
const file = process.argv[2];
const src = readFileSync(file, "utf8");
const out = src.replace(/^[ \t]*\/\*\*[\s\S]*?\*\/[ \t]*\n/gm, "");
writeFileSync(file, out);
JS
  # Vite 7's dev server pre-bundles dependencies into node_modules/.vite/deps/ (esbuild), where the
  # glue's `new URL("NAME_bg.wasm", import.meta.url)` names a file that is not there: the
  # server answers with its index.html and init() failed with a "magic word" error unless the app
  # set `optimizeDeps.exclude`. Vite offers a package no way to opt out, so the glue retries once:
  # when the wasm it fetched beside a pre-bundled copy of itself (a path under `/.vite/deps`) is
  # missing or HTML, it fetches the package's own file: `.vite/deps/...` replaced with
  # `wterm-wasm/NAME_bg.wasm` (node_modules/wterm-wasm, also under a `base` path). The `new URL(...)`
  # that bundlers rewrite stays as it is; elsewhere nothing changes.
  node - "$stage/$name.js" "$name" <<'JS'
const { readFileSync, writeFileSync } = require("node:fs");
const [file, name] = process.argv.slice(2);
const src = readFileSync(file, "utf8");
const line = `module_or_path = new URL('${name}_bg.wasm', import.meta.url);`;
if (src.split(line).length !== 2) {
  console.error("build.sh: the glue's default wasm URL line was not found once; update the Vite dev fallback");
  process.exit(1);
}
const fallback = `${line}
        const vite = /\\.vite\\/deps[^/]*\\/[^/]*$/;
        if (vite.test(import.meta.url)) {
            // A string, not new URL(x, import.meta.url): bundlers must not try to resolve it.
            const own = import.meta.url.replace(vite, 'wterm-wasm/${name}_bg.wasm');
            module_or_path = fetch(module_or_path).then((r) =>
                r.ok && !/html/.test(r.headers.get('Content-Type')) ? r : fetch(own));
        }`;
writeFileSync(file, src.replace(line, fallback));
JS
  # The class declares `[Symbol.dispose]()`, which TypeScript knows from lib "esnext.disposable"
  # (TS 5.2+); referencing it spares apps whose tsconfig lists older libs a type error.
  printf '/// <reference lib="esnext.disposable" />\n%s\n' "$(cat "$stage/$name.d.ts")" > "$stage/$name.d.ts"
  # Minified (esbuild, whitespace and local names; exports, import names and the wasm URL stay):
  # 9.1 -> 7.3 KB gzipped for the core glue. Apps that bundle minify again; pages that load the
  # package as it is (an import map, a CDN) get the smaller file.
  "$root/node_modules/.bin/esbuild" "$stage/$name.js" --minify --format=esm --log-level=warning \
    --outfile="$stage/$name.min.js"
  mv "$stage/$name.min.js" "$stage/$name.js"
  cp "$stage/$name.js" "$stage/check.mjs"
  node --check "$stage/check.mjs"
  rm "$stage/check.mjs"

  local bg="$stage/${name}_bg.wasm"
  # --low-memory-unused: addresses below 1024 are never data (rustc's wasm32 layout puts the
  # stack's far end there), so constant offsets fold into loads: 0.85 KB gzipped.
  if [ -x "$root/node_modules/.bin/wasm-opt" ]; then
    "$root/node_modules/.bin/wasm-opt" -Oz --converge --low-memory-unused --enable-bulk-memory \
      --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
      --enable-reference-types --enable-multivalue --strip-producers -o "$bg.opt" "$bg"
    mv "$bg.opt" "$bg"
  else
    echo "build.sh: node_modules/.bin/wasm-opt not found (run npm install); skipping wasm-opt" >&2
  fi
}
build_entry wterm_wasm --no-default-features
build_entry wterm_wasm_full

for f in findbar.js relay.js relay.d.ts controller.js react.js react.d.ts vue.js vue.d.ts \
  svelte.js svelte.d.ts keybar.js keybar.d.ts xterm.js xterm.d.ts addon-fit.js addon-fit.d.ts \
  addon-search.js addon-search.d.ts addon-serialize.js addon-serialize.d.ts addon-web-links.js \
  addon-web-links.d.ts README.md LICENSE; do
  cp "$src/$f" "$stage/$f"
done

version="$(cargo metadata --no-deps --format-version 1 --manifest-path "$root/Cargo.toml" |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{
    const p=JSON.parse(s).packages.find(p=>p.name==="wterm-wasm");
    if(!p){console.error("build.sh: no wterm-wasm package in cargo metadata");process.exit(1)}
    process.stdout.write(p.version)})')"
sed "s/@VERSION@/$version/" "$src/package.template.json" > "$stage/package.json"

# Every file the package lists must exist, and every hand-written one must be listed.
node - "$stage" <<'JS'
const { existsSync, readdirSync } = require("node:fs");
const { join } = require("node:path");
const dir = process.argv[2];
const pkg = require(join(dir, "package.json"));
const missing = pkg.files.filter((f) => !existsSync(join(dir, f)));
const targets = Object.values(pkg.exports).flatMap((e) => (typeof e === "string" ? [e] : Object.values(e)));
const badTargets = targets.filter((t) => !existsSync(join(dir, t)));
const unlisted = readdirSync(dir).filter((f) => f !== "package.json" && !pkg.files.includes(f));
if (missing.length || badTargets.length || unlisted.length) {
  console.error("build.sh: package.json does not match the files:", { missing, badTargets, unlisted });
  process.exit(1);
}
JS

rm -rf "$pkg"
mv "$stage" "$pkg"

# Size report: every file of the package, raw and gzipped (gzip -9), then the core (the wasm and
# its JS glue, what every user loads) against its budget. KB here are 1000 bytes.
raw() { wc -c < "$1" | tr -d ' '; }
gz() { gzip -9 -c "$1" | wc -c | tr -d ' '; }
echo "wterm-wasm $version package ($pkg), bytes raw / gzipped:"
total_raw=0
total_gz=0
for f in wterm_wasm_bg.wasm wterm_wasm.js wterm_wasm.d.ts wterm_wasm_bg.wasm.d.ts \
  wterm_wasm_full_bg.wasm wterm_wasm_full.js wterm_wasm_full.d.ts wterm_wasm_full_bg.wasm.d.ts findbar.js \
  relay.js relay.d.ts controller.js react.js react.d.ts vue.js vue.d.ts svelte.js svelte.d.ts \
  keybar.js keybar.d.ts xterm.js xterm.d.ts addon-fit.js addon-fit.d.ts addon-search.js \
  addon-search.d.ts addon-serialize.js addon-serialize.d.ts addon-web-links.js addon-web-links.d.ts; do
  r=$(raw "$pkg/$f")
  g=$(gz "$pkg/$f")
  total_raw=$((total_raw + r))
  total_gz=$((total_gz + g))
  printf '  %-26s %8d %8d\n' "$f" "$r" "$g"
done
printf '  %-26s %8d %8d\n' "(all of the above)" "$total_raw" "$total_gz"
relay_gz=$(gz "$pkg/relay.js")
shared_gz=$((relay_gz + $(gz "$pkg/controller.js")))
kb() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1000 }'; }
echo "relay client (relay.js) gzipped: $(kb "$relay_gz") KB"
# The xterm.js-compatible entry: a JS adapter over the full entry's WTerm (loads the full wasm).
echo "xterm.js-compatible entry (xterm.js, optional import wterm-wasm/xterm; over the full entry) gzipped: $(kb "$(gz "$pkg/xterm.js")") KB"
addons_gz=0
for f in addon-fit addon-search addon-serialize addon-web-links; do
  addons_gz=$((addons_gz + $(gz "$pkg/$f.js")))
done
echo "its addons (addon-fit.js, addon-search.js, addon-serialize.js, addon-web-links.js) gzipped: $(kb "$addons_gz") KB"
# Optional UI outside the core, loaded only by an app that imports it.
echo "key bar (keybar.js, optional import wterm-wasm/keybar) gzipped: $(kb "$(gz "$pkg/keybar.js")") KB"
# Optional UI, loaded only when used: the find bar is imported by Ctrl+Shift+F (its loader, the
# wasm-bindgen snippet, is part of the core glue).
echo "find bar (findbar.js, loaded on Ctrl+Shift+F) gzipped: $(kb "$(gz "$pkg/findbar.js")") KB"
for f in react vue svelte; do
  echo "$f binding ($f.js + controller.js + relay.js) gzipped: $(kb $((shared_gz + $(gz "$pkg/$f.js")))) KB"
done
core=$(($(gz "$pkg/wterm_wasm_bg.wasm") + $(gz "$pkg/wterm_wasm.js")))
full=$(($(gz "$pkg/wterm_wasm_full_bg.wasm") + $(gz "$pkg/wterm_wasm_full.js")))
# The wasm-bindgen snippets (the find bar's loader) load with the full glue.
for f in "$pkg"/snippets/*/*.js; do
  [ -f "$f" ] && full=$((full + $(gz "$f")))
done
echo "full entry (wterm-wasm/full: the core plus search, plain-text links, the find bar's loader, serialize; wasm+js) gzipped: $(kb "$full") KB"
# Budget for the core package (wterm_wasm_bg.wasm + wterm_wasm.js, what `import "wterm-wasm"`
# loads), in KB gzipped. It covers the emulator (wterm-core: parser, screen, reflow, command log,
# agent model and redactor, authors), the DOM renderer, keyboard, mouse, clipboard, touch, IME and screen
# reader support, themes, and the WebMCP tools. The full entry's search, plain-text links, find
# bar and serialize, the key bar and the framework bindings are outside it (reported above).
# A build over it fails. Raise it only with a measurement of what the new code costs; its
# history, with those measurements, is in CHANGELOG.md and this file's git log.
CORE_BUDGET_KB=166
echo "core package (wterm-wasm: wasm+js) gzipped: $(kb "$core") KB (budget ≤ $CORE_BUDGET_KB KB)"
if [ "$core" -gt $((CORE_BUDGET_KB * 1000)) ]; then
  echo "build.sh: the core package is over its budget of $CORE_BUDGET_KB KB gzipped; move what a user may not need to the full entry, or measure the new code's cost, raise the budget here and record the figures in CHANGELOG.md" >&2
  exit 1
fi
