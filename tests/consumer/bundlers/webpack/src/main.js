// The package without a framework, bundled by webpack 5 with the usual css-loader and
// style-loader (which add the app's CSS to the page when this module runs, before the terminal
// adds its own stylesheet). webpack finds the wasm through `new URL(..., import.meta.url)`.
// The full entry (the find bar); the Vite 8 and React 18 apps use the core.
import "./page.css";
import init, { WTerm } from "wterm-wasm/full";

async function main() {
  await init();
  const term = new WTerm(document.getElementById("root"), {
    webmcp: { name: "webpack-term", description: "webpack consumer app" },
  });
  await term.init();
  term.focus();
  // Keep a reference: a WTerm that is garbage-collected is destroyed (wasm-bindgen's finalizer),
  // and its tools withdrawn with it.
  window.__term = term;
}

main();
