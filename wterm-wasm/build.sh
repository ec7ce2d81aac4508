#!/usr/bin/env bash
# Builds the npm package of wterm-wasm into wterm-wasm/pkg/: cargo (release, wasm32), then
# wasm-bindgen --target web, then wasm-opt -Oz when the repo has binaryen's wasm-opt installed
# (node_modules/.bin/wasm-opt), then a minimal package.json. Installs nothing.
# Works from any directory.
set -euo pipefail

crate_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$crate_dir/.." && pwd)"
pkg="$crate_dir/pkg"
wasm_in="$root/target/wasm32-unknown-unknown/release/wterm_wasm.wasm"

cd "$root"
cargo build --release --target wasm32-unknown-unknown -p wterm-wasm
wasm-bindgen --target web --out-dir "$pkg" "$wasm_in"

bg="$pkg/wterm_wasm_bg.wasm"
if [ -x "$root/node_modules/.bin/wasm-opt" ]; then
  "$root/node_modules/.bin/wasm-opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
    -o "$bg.opt" "$bg"
  mv "$bg.opt" "$bg"
else
  echo "build.sh: node_modules/.bin/wasm-opt not found; skipping wasm-opt" >&2
fi

version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n1)"
cat > "$pkg/package.json" <<JSON
{
  "name": "wterm-wasm",
  "version": "${version:-0.0.0}",
  "description": "A terminal emulator in Rust/WebAssembly that renders in the DOM, with WebMCP tools for agents.",
  "license": "MIT",
  "type": "module",
  "main": "wterm_wasm.js",
  "module": "wterm_wasm.js",
  "types": "wterm_wasm.d.ts",
  "exports": {
    ".": {
      "types": "./wterm_wasm.d.ts",
      "default": "./wterm_wasm.js"
    },
    "./wterm_wasm_bg.wasm": "./wterm_wasm_bg.wasm"
  },
  "files": [
    "wterm_wasm.js",
    "wterm_wasm.d.ts",
    "wterm_wasm_bg.wasm",
    "wterm_wasm_bg.wasm.d.ts"
  ],
  "sideEffects": false
}
JSON

raw=$(wc -c < "$bg")
gz=$(gzip -9 -c "$bg" | wc -c)
js=$(wc -c < "$pkg/wterm_wasm.js")
jsgz=$(gzip -9 -c "$pkg/wterm_wasm.js" | wc -c)
echo "wterm_wasm_bg.wasm: $raw bytes raw, $gz bytes gzipped"
echo "wterm_wasm.js:      $js bytes raw, $jsgz bytes gzipped"
