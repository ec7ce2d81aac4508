"use client";
// The directive makes this entry a client component for React Server Components bundlers
// (Next.js app router): a server component may render <Terminal> directly, and the server
// renders its empty host element; the terminal starts in the browser. It uses hooks and the DOM,
// so it can never run as a server component (without it, `next build` failed prerendering with
// "useRef is not a function"). Other bundlers ignore the string.
// wterm-wasm/react: <Terminal> for React 18 and 19. Plain JS (no JSX), so it ships as is.
// The WTerm is created once per mounted component; prop changes are applied to it live
// (see controller.js). The forwarded ref is the WTerm, set once it is initialized.
import { createElement, forwardRef, useEffect, useImperativeHandle, useRef, useState } from "react";
import { TerminalController } from "./controller.js";

const OPTION_PROPS = [
  "full",
  "webmcp",
  "cols",
  "rows",
  "scrollback",
  "pasteWithCtrlV",
  "screenReaderMode",
  "onData",
  "onResize",
  "onTitle",
  "onAgent",
  "links",
  "findBar",
  "onLink",
  "onSearch",
  "onBell",
  "onProgress",
  "theme",
  "relay",
  "autoFocus",
  "onReady",
  "onError",
];

export const Terminal = forwardRef(function Terminal(props, ref) {
  const host = useRef(null);
  const controller = useRef(null);
  const [term, setTerm] = useState(null);
  const options = {};
  const divProps = {};
  for (const [k, v] of Object.entries(props)) {
    if (OPTION_PROPS.includes(k)) options[k] = v;
    else divProps[k] = v;
  }
  const onReady = options.onReady;
  options.onReady = (t) => {
    setTerm(t);
    onReady?.(t);
  };

  useImperativeHandle(ref, () => term, [term]);

  // Created on mount, destroyed on unmount: never re-created by a prop change.
  useEffect(() => {
    const c = new TerminalController(host.current, options);
    controller.current = c;
    return () => {
      c.destroy();
      controller.current = null;
      setTerm(null);
    };
  }, []);

  // Every render: the controller applies what changed (webmcp by value, size, relay, callbacks).
  useEffect(() => {
    controller.current?.update(options);
  });

  return createElement("div", { ...divProps, ref: host });
});

export default Terminal;
