// The package README's shell samples, run (node --test tests/consumer/): `npm i` names the
// package that tests/consumer/run.sh installs from its tarball; every `wterm-relay` line runs
// against the built relay (WTERM_RELAY_BIN, default target/release/wterm-relay) in a temp HOME,
// `serve` with the README's flags on a free port until it listens. The README's other samples
// are compiled by run.sh's `vite build` (readme-samples.mjs); a sample in a language neither
// checks fails here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { COMPILED, README, RUN, codeBlocks } from "./readme-samples.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const RELAY_BIN = resolve(root, process.env.WTERM_RELAY_BIN ?? "target/release/wterm-relay");
/** Longest the relay may take to print that it listens, in milliseconds. */
const RELAY_START_TIMEOUT_MS = 15_000;

const blocks = codeBlocks(readFileSync(README, "utf8"));
const shellLines = blocks
  .filter((b) => b.lang === "sh")
  .flatMap((b) => b.code.split("\n").map((l) => l.trim()).filter(Boolean));

test("every README code block is in a language a test compiles or runs", () => {
  assert.ok(blocks.length >= 10, `only ${blocks.length} code blocks found in ${README}`);
  const unchecked = blocks.filter((b) => !COMPILED.includes(b.lang) && !RUN.includes(b.lang));
  assert.deepEqual(unchecked.map((b) => `line ${b.line}: "${b.lang}"`), []);
});

test("codeBlocks reads fences and refuses an unclosed one", () => {
  assert.deepEqual(codeBlocks("a\n```js\nx;\n```\n```sh\nls\n```\n"), [
    { lang: "js", code: "x;\n", line: 2 },
    { lang: "sh", code: "ls\n", line: 5 },
  ]);
  assert.throws(() => codeBlocks("```js\nx;\n"), /not closed/);
});

test("the README's shell lines are all known: npm i and wterm-relay", () => {
  const unknown = shellLines.filter((l) => !/^(npm i |wterm-relay )/.test(l));
  assert.deepEqual(unknown, []);
});

test("npm i names the package that run.sh installs", () => {
  const name = JSON.parse(readFileSync(join(root, "wterm-wasm/package/package.template.json"), "utf8")).name;
  for (const line of shellLines.filter((l) => l.startsWith("npm i "))) assert.equal(line, `npm i ${name}`);
});

test("wterm-relay shell-integration lines write their scripts", () => {
  const lines = shellLines.filter((l) => l.startsWith("wterm-relay shell-integration"));
  assert.ok(lines.length >= 3);
  const home = mkdtempSync(join(tmpdir(), "wterm-readme-"));
  try {
    mkdirSync(join(home, ".config/fish/conf.d"), { recursive: true }); // fish makes it when installed
    for (const line of lines) {
      const command = line.replace(/\s+#.*$/, "");
      const r = spawnSync("bash", ["-c", command], {
        env: { ...process.env, HOME: home, PATH: `${dirname(RELAY_BIN)}:${process.env.PATH}` },
        encoding: "utf8",
      });
      assert.equal(r.status, 0, `${command}: ${r.stderr}`);
      const file = command.split(">").pop().trim().replace(/^~/, home);
      assert.ok(statSync(file).size > 0, `${command} wrote nothing to ${file}`);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("wterm-relay serve lines start a relay that listens", async () => {
  const lines = shellLines.filter((l) => l.startsWith("wterm-relay serve"));
  assert.ok(lines.length >= 1);
  for (const line of lines) {
    // The README's flags, on a port the OS chooses (7681 may be taken on a test machine).
    const args = line.split(/\s+/).slice(1).join(" ").replace(/--port \d+/, "--port 0").split(" ");
    const home = mkdtempSync(join(tmpdir(), "wterm-readme-"));
    const child = spawn(RELAY_BIN, [...args, "--state-dir", join(home, "state"), "--no-terminals"], {
      env: { ...process.env, HOME: home, RUST_LOG: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    try {
      await new Promise((res, rej) => {
        const timer = setTimeout(() => rej(new Error(`${line}: no "listening on" in ${RELAY_START_TIMEOUT_MS} ms:\n${out}`)), RELAY_START_TIMEOUT_MS);
        const seen = (d) => {
          out += d;
          if (/listening on https?:\/\//.test(out)) {
            clearTimeout(timer);
            res();
          }
        };
        child.stdout.on("data", seen);
        child.stderr.on("data", seen);
        child.on("exit", (code) => {
          clearTimeout(timer);
          rej(new Error(`${line}: the relay exited with ${code}:\n${out}`));
        });
      });
    } finally {
      child.removeAllListeners("exit");
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(home, { recursive: true, force: true });
    }
  }
});
