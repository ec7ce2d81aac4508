// The package without a framework in Vite 8: no vite.config at all, for `vite build` and for
// the dev server (Vite 8 needs no optimizeDeps.exclude; Vite 7 does, see tests/consumer/app).
import init, { WTerm } from "wterm-wasm";

async function main() {
  await init();
  const term = new WTerm(document.getElementById("root"), {
    webmcp: { name: "vite8-term", description: "vite8 consumer app" },
  });
  await term.init();
  term.focus();
  // Keep a reference: a WTerm that is garbage-collected is destroyed (wasm-bindgen's finalizer),
  // and its tools withdrawn with it.
  window.__term = term;
}

main();
