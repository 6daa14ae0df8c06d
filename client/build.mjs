// Builds the package (npm pack runs it as prepack): src/ to dist/ as ESM with declarations (tsc),
// the same as CommonJS (dist/index.cjs, esbuild), and router-core compiled in as the subpath
// "@switchyard/client/router-core" (ESM and CommonJS bundles, zod and yaml left as the
// dependencies package.json declares; declarations with Node-resolvable import paths).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const esbuild = require("esbuild");
const tsc = require.resolve("typescript/bin/tsc");
const dist = path.join(here, "dist");
const routerCore = path.join(here, "..", "router-core");

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", path.join(here, "tsconfig.json")], { stdio: "inherit" });

const common = { bundle: true, platform: "node", target: "node20", logLevel: "warning", external: ["zod", "yaml"] };
esbuild.buildSync({ ...common, entryPoints: [path.join(here, "src", "index.ts")], format: "cjs", outfile: path.join(dist, "index.cjs") });
for (const [format, ext] of [
  ["esm", "js"],
  ["cjs", "cjs"],
]) {
  esbuild.buildSync({ ...common, entryPoints: [path.join(routerCore, "index.ts")], format, outfile: path.join(dist, "router-core", `index.${ext}`) });
}

// router-core's declarations: its sources import without extensions (bundler style); Node's
// resolution, which NodeNext consumers use for these files too, needs ./x.js or ./x/index.js.
const types = path.join(dist, "router-core", "types");
execFileSync(process.execPath, [tsc, "-p", path.join(here, "tsconfig.router-core.json")], { stdio: "inherit" });
const fix = (file) => {
  const dir = path.dirname(file);
  const text = readFileSync(file, "utf8").replace(/(from\s+|import\()(["'])(\.{1,2}\/[^"']+)\2/g, (all, lead, q, spec) => {
    if (/\.(js|cjs|mjs|json)$/.test(spec)) return all;
    const asDir = existsSync(path.join(dir, spec)) && statSync(path.join(dir, spec)).isDirectory();
    return `${lead}${q}${spec}${asDir ? "/index.js" : ".js"}${q}`;
  });
  writeFileSync(file, text);
};
const walk = (d) => {
  for (const name of readdirSync(d)) {
    const p = path.join(d, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (p.endsWith(".d.ts")) fix(p);
  }
};
walk(types);
