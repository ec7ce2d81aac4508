// A static server for the test pages (tests/e2e/pages), the package's demo page
// (wterm-wasm/demo, under /demo/), the built wasm package (wterm-wasm/pkg, under /pkg/) and a few npm files the pages load (under /vendor/), on
// 127.0.0.1 and a free port. `bash wterm-wasm/build.sh` must have run.
import { createServer, type Server } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, resolve } from "node:path";

const PAGES = resolve("tests/e2e/pages");
const PKG = resolve("wterm-wasm/pkg");
const DEMO = resolve("wterm-wasm/demo");
/** Files from npm packages a test page loads, by their path under /vendor/. */
const VENDOR: Record<string, string> = {
  "mcp-b-global.js": resolve("node_modules/@mcp-b/global/dist/index.iife.js"),
};
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".wasm": "application/wasm",
  ".json": "application/json",
};

/** A running server: its base URL and how to stop it. */
export interface StaticServer {
  base: string;
  close(): Promise<void>;
}

export async function serveTestPages(): Promise<StaticServer> {
  const server: Server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const vendored = path.startsWith("/vendor/") ? VENDOR[path.slice(8)] : undefined;
    if (vendored) {
      res.writeHead(200, { "content-type": TYPES[".js"], "cache-control": "no-store" });
      res.end(await readFile(vendored));
      return;
    }
    const [root, rel] = path.startsWith("/pkg/")
      ? [PKG, path.slice(5)]
      : path.startsWith("/demo/")
        ? [DEMO, path.slice(6) || "index.html"]
        : [PAGES, path.slice(1) || "index.html"];
    const file = normalize(join(root, rel));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  const base = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  return { base, close: () => new Promise<void>((r) => server.close(() => r())) };
}
