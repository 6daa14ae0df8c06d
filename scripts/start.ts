import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { buildIsStale } from "../lib/runtime/build-freshness";

// `npm start` builds the console when the sources changed since the last build, then serves.
const dev = process.argv.includes("--dev");
// Next reads NODE_ENV to choose its production server.
if (!dev) (process.env as Record<string, string>).NODE_ENV = "production";
if (!dev && buildIsStale(process.cwd())) {
  process.stdout.write("switchyard: building the console (next build)…\n");
  const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const built = spawnSync(process.execPath, [nextBin, "build"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  if (built.status !== 0) {
    process.stderr.write("switchyard: next build failed\n");
    process.exit(built.status ?? 1);
  }
}
await import("../server");
