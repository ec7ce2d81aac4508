// webpack 5, production mode, a classic script, as webpack emits by default.
// CONSUMER_OUT_DIR is set by tests/consumer/bundlers.sh.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

export default {
  mode: "production",
  context: here,
  entry: "./src/main.js",
  output: {
    path: process.env.CONSUMER_OUT_DIR ?? resolve(here, "dist"),
    filename: "main.js",
    clean: true,
  },
  // The wasm (about 250 KiB) is over webpack's default 244 KiB hint; it is loaded once, by design.
  performance: { hints: false },
  module: {
    rules: [{ test: /\.css$/, use: ["style-loader", "css-loader"] }],
  },
};
