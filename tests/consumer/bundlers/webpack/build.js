// Runs webpack through its Node API (no webpack-cli), then copies index.html next to the bundle.
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import webpack from "webpack";
import config from "./webpack.config.js";

webpack(config, (err, stats) => {
  if (err || stats.hasErrors()) {
    console.error(err ?? stats.toString({ all: false, errors: true }));
    process.exit(1);
  }
  if (stats.hasWarnings()) console.warn(stats.toString({ all: false, warnings: true }));
  copyFileSync(join(config.context, "index.html"), join(config.output.path, "index.html"));
});
