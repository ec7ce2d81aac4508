// Type-checks the React binding as a TSX app uses it. Never run.
import { useRef } from "react";
import type { WTerm } from "wterm-wasm";
import { Terminal, type TerminalProps } from "wterm-wasm/react";

export function Shell(props: { token: string; readOnly: boolean }) {
  const term = useRef<WTerm | null>(null);
  const extra: TerminalProps = { cols: 80, rows: 24, scrollback: 500, pasteWithCtrlV: true };
  return (
    <Terminal
      ref={term}
      {...extra}
      className="term"
      style={{ height: "24em" }}
      webmcp={{ name: "shell", readOnly: props.readOnly }}
      relay={{ url: "http://127.0.0.1:7681", token: props.token, onExit: (code) => void code }}
      onData={(d) => term.current?.write(d)}
      onResize={({ cols, rows }) => void (cols * rows)}
      onTitle={(t) => (document.title = t)}
      onAgent={(a) => void (a.kind === "write" && a.source === "relay" && a.tool)}
      theme={{ background: "#101820", cursor: "#ffb000" }}
      onBell={() => void 0}
      onProgress={(p) => void (p.state === 2 && p.value)}
      onReady={(t) => t.focus()}
      autoFocus
    />
  );
}

// @ts-expect-error webmcp takes a boolean or an options object
export const bad = <Terminal webmcp="yes" />;

// @ts-expect-error not a preset
export const badTheme = <Terminal theme="monokai" />;
