import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const SOURCES = ["app", "components", "lib", "router-core", "next.config.ts", "package-lock.json", "postcss.config.mjs", "tsconfig.json"];
const SKIP = new Set(["node_modules", "generated", ".next", ".data"]);

function newestMtime(p: string): number {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(p, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.endsWith(".test.ts")) continue;
    newest = Math.max(newest, newestMtime(path.join(p, entry.name)));
  }
  return newest;
}

/** True when there is no production build or a source file changed after it was made. */
export function buildIsStale(dir: string): boolean {
  const buildId = path.join(dir, ".next", "BUILD_ID");
  if (!existsSync(buildId)) return true;
  const builtAt = statSync(buildId).mtimeMs;
  return SOURCES.some((s) => newestMtime(path.join(dir, s)) > builtAt);
}
