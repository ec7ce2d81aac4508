// The package without a framework: WTerm (the full entry: the find bar) and the relay client,
// as the README shows them.
import init, { WTerm } from "wterm-wasm/full";
import { attachToRelay } from "wterm-wasm/relay";
import { app, initialProps, onData, onReady, onResize, relayMode, relayProp } from "./common.js";

async function main() {
  await init();
  const el = document.getElementById("root");
  el.className = "term";
  const term = new WTerm(el, {
    webmcp: initialProps().webmcp,
    pasteWithCtrlV: initialProps().pasteWithCtrlV,
    onSearch: initialProps().onSearch,
    onResize,
    ...(relayMode ? { onData } : {}),
  });
  await term.init();
  app.term = () => term;
  const listeners = {};
  app.setProps = (p) => {
    if ("webmcp" in p) term.setWebMCP(p.webmcp);
    if ("theme" in p) term.setTheme(p.theme);
    for (const [prop, type] of [["onBell", "bell"], ["onProgress", "progress"]]) {
      if (!(prop in p)) continue;
      if (listeners[type]) term.removeListener(type, listeners[type]);
      listeners[type] = p[prop];
      if (p[prop]) term.addListener(type, p[prop]);
    }
    if (p.cols != null || p.rows != null) term.resize(p.cols ?? term.cols, p.rows ?? term.rows);
  };
  if (relayMode) attachToRelay(term, relayProp());
  term.focus();
  onReady(term);
}

main();
