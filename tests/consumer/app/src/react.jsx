import { StrictMode, useRef, useState } from "react";
import { createRoot } from "react-dom/client";
import { Terminal } from "wterm-wasm/react";
import { app, initialProps, onData, onReady, onResize, relayMode, relayProp } from "./common.js";

function App() {
  const term = useRef(null);
  const [props, setProps] = useState(initialProps);
  app.setProps = (p) => setProps((old) => ({ ...old, ...p }));
  app.term = () => term.current;
  // A new relay object on every render, as real code writes it: it must not reconnect.
  return (
    <Terminal
      ref={term}
      className="term"
      autoFocus
      {...props}
      relay={relayProp()}
      onData={relayMode ? onData : undefined}
      onResize={onResize}
      onReady={onReady}
    />
  );
}

createRoot(document.getElementById("root")).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
