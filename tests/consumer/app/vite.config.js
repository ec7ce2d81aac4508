// One Vite 7 app, four pages: the package used from plain JS, React, Vue and Svelte, each with
// the framework's standard Vite plugin. No wterm-wasm setting: neither `vite build` nor the dev
// server (which pre-bundles the package; its glue then finds the wasm in node_modules) needs one.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import vue from "@vitejs/plugin-vue";
import { svelte } from "@sveltejs/vite-plugin-svelte";

const here = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  plugins: [react(), vue(), svelte()],
  build: {
    outDir: process.env.CONSUMER_OUT_DIR ?? "dist",
    emptyOutDir: true,
    rollupOptions: {
      input: {
        index: resolve(here, "index.html"),
        react: resolve(here, "react.html"),
        vue: resolve(here, "vue.html"),
        svelte: resolve(here, "svelte.html"),
        // Every code sample of the package README (tests/consumer/readme-samples.mjs), compiled.
        readme: resolve(here, "readme.html"),
      },
    },
  },
});
