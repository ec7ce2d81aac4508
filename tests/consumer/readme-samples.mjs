// The code samples of the package README (wterm-wasm/package/README.md), so that tests compile
// or run every one of them:
//   - js, jsx, ts, tsx, vue, svelte and css samples are written as files of the Vite 7 consumer
//     app (tests/consumer/run.sh calls this with the app's install), imported by its page
//     readme.html, so `vite build` compiles each against the installed package (an import of a
//     name the package does not export, a syntax error or a template error fails the build);
//   - sh samples are run by tests/consumer/readme.test.mjs (node --test).
// A sample in any other language fails both, so none is left unchecked.
//
//   node tests/consumer/readme-samples.mjs OUT_DIR   (writes OUT_DIR/sample-NN.EXT and index.js)
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const README = join(dirname(fileURLToPath(import.meta.url)), "../../wterm-wasm/package/README.md");

/** Languages compiled by the consumer app's `vite build`, and run by readme.test.mjs. */
export const COMPILED = ["js", "jsx", "ts", "tsx", "vue", "svelte", "css"];
export const RUN = ["sh"];

/** The fenced code blocks of `markdown`: {lang, code, line} (line: 1-based, of the opening fence). */
export function codeBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    if (i >= lines.length) throw new Error(`README line ${start + 1}: a code block is not closed`);
    blocks.push({ lang: open[1], code: body.join("\n") + "\n", line: start + 1 });
  }
  return blocks;
}

/** Writes the compiled samples into `outDir` and an index.js importing them all; returns their
 * file names. Throws on a sample in a language that no test checks. */
export function writeSamples(outDir, markdown = readFileSync(README, "utf8")) {
  const blocks = codeBlocks(markdown);
  const unchecked = blocks.filter((b) => !COMPILED.includes(b.lang) && !RUN.includes(b.lang));
  if (unchecked.length) {
    throw new Error(
      "README samples in a language no test checks (" + [...COMPILED, ...RUN].join(", ") + "): " +
        unchecked.map((b) => `line ${b.line} "${b.lang}"`).join(", "),
    );
  }
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const files = [];
  for (const b of blocks.filter((b) => COMPILED.includes(b.lang))) {
    const name = `sample-${String(b.line).padStart(3, "0")}.${b.lang}`;
    const origin = `README line ${b.line}`;
    const header = b.lang === "css" ? `/* ${origin} */` : ["vue", "svelte"].includes(b.lang) ? `<!-- ${origin} -->` : `// ${origin}`;
    writeFileSync(join(outDir, name), `${header}\n${b.code}`);
    files.push(name);
  }
  writeFileSync(join(outDir, "index.js"), files.map((f) => `import "./${f}";\n`).join(""));
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (!out) {
    console.error("usage: node tests/consumer/readme-samples.mjs OUT_DIR");
    process.exit(2);
  }
  const files = writeSamples(out);
  console.log(`readme-samples: ${files.length} samples in ${out}`);
}
