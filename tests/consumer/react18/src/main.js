// wterm-wasm/react under React 18 (createRoot, StrictMode, forwardRef), in Vite 7 with no
// vite.config: plain createElement calls, so no JSX plugin is needed.
import { StrictMode, createElement, useRef, version } from "react";
import { createRoot } from "react-dom/client";
import { Terminal } from "wterm-wasm/react";

window.__react = { version, ready: 0 };

function App() {
  const ref = useRef(null);
  return createElement(Terminal, {
    ref,
    className: "term",
    autoFocus: true,
    webmcp: { name: "react18-term", description: "react18 consumer app" },
    onReady: (term) => {
      window.__react.ready += 1;
      // The forwarded ref is the same WTerm.
      window.__react.refIsTerm = () => ref.current === term;
    },
  });
}

createRoot(document.getElementById("root")).render(createElement(StrictMode, null, createElement(App)));
