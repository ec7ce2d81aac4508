// A server component (no "use client" here) that renders the React binding directly, as the
// package README's Next.js section shows: the binding's own "use client" makes it a client
// component, so `next build` prerenders an empty host and the browser starts the terminal.
// No init() anywhere: the component loads the wasm itself (the full entry: `full`).
import { Terminal } from "wterm-wasm/react";

export default function Page() {
  return (
    <main>
      <Terminal full className="term" autoFocus webmcp={{ name: "next-term", description: "next consumer app" }} />
    </main>
  );
}
