import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { startServerProcess, type TServerProcess } from "./server-process";

/**
 * The package as a service installs it: `npm pack`, the tarball unpacked into an empty folder's
 * node_modules next to its declared dependencies (zod and yaml, taken from this checkout's
 * node_modules so the test needs no network), then plain `node` (no tsx, no TypeScript) runs
 * decide, LocalRouter on the compiled-in router-core, and fail-static, as ESM and as CommonJS,
 * against server.ts.
 */
const API_KEY = "packed-test-key-9c2d";
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const run = promisify(execFile);
let db: TTestDatabase;
let server: TServerProcess;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "switchyard-packed-"));
  // Packing compiles (prepack); the server starts meanwhile.
  const [packed, started] = await Promise.all([
    run("npm", ["pack", "--pack-destination", dir, "--silent"], { cwd: ROOT }),
    createTestDatabase().then(async (d) => {
      db = d;
      return startServerProcess({ databaseUrl: d.url, apiKey: API_KEY });
    }),
  ]);
  server = started;
  const tarball = path.join(dir, packed.stdout.trim().split("\n").pop()!);
  const app = path.join(dir, "app");
  const pkg = path.join(app, "node_modules", "@switchyard", "client");
  await mkdir(pkg, { recursive: true });
  await run("tar", ["-xzf", tarball, "-C", pkg, "--strip-components=1"]);
  const manifest = JSON.parse(await readFile(path.join(pkg, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  for (const dep of Object.keys(manifest.dependencies ?? {})) {
    await symlink(path.resolve(ROOT, "..", "node_modules", dep), path.join(app, "node_modules", dep), "dir");
  }
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const ESM = `
import { LocalRouter, SwitchyardClient } from "@switchyard/client";
import { decide } from "@switchyard/client/router-core";
const [url, apiKey] = process.argv.slice(2);
const sy = new SwitchyardClient({ baseUrl: url, apiKey, flushOnExit: false });
const remote = await sy.decide({ operation: "SEND_SMS", region: "EU" });
const local = new LocalRouter({ client: sy, engine: { decide }, sampleRate: 1 });
await local.start();
const d = local.decide({ operation: "SEND_SMS", region: "EU", requestId: "packed-local-1" });
await local.close();
await sy.close();
const down = new SwitchyardClient({ baseUrl: "http://127.0.0.1:9", apiKey, timeoutMs: 300, flushOnExit: false,
  staticOrder: { SEND_SMS: ["provider_A", "provider_B"] } });
const fs = await down.decide({ operation: "SEND_SMS", region: "EU" });
console.log(JSON.stringify({ remote: [remote.source, remote.selected], local: [d.selected, d.source],
  failStatic: [fs.failStatic, fs.source, fs.order], logged: sy.stats().local, counted: sy.stats().counts }));
process.exit(0);
`;

const CJS = `
const { SwitchyardClient } = require("@switchyard/client");
const { decide, parseFactorList } = require("@switchyard/client/router-core");
const sy = new SwitchyardClient({ baseUrl: process.argv[2], apiKey: process.argv[3], flushOnExit: false });
sy.decide({ operation: "SEND_SMS", region: "EU" }).then(async (d) => {
  await sy.close();
  console.log(JSON.stringify({ source: d.source, selected: d.selected, engine: typeof decide, parsed: parseFactorList("operation: [").ok }));
});
`;

describe("the packed @switchyard/client in plain Node", () => {
  it("declares its dependencies and ships JavaScript with declarations, ESM and CommonJS", async () => {
    const pkg = path.join(dir, "app", "node_modules", "@switchyard", "client");
    const manifest = JSON.parse(await readFile(path.join(pkg, "package.json"), "utf8"));
    expect(Object.keys(manifest.dependencies).sort()).toEqual(["yaml", "zod"]);
    for (const f of [
      "dist/index.js",
      "dist/index.cjs",
      "dist/index.d.ts",
      "dist/router-core/index.js",
      "dist/router-core/index.cjs",
      "dist/router-core/types/index.d.ts",
    ]) {
      await expect(readFile(path.join(pkg, f), "utf8"), f).resolves.toBeTruthy();
    }
    expect(await readFile(path.join(pkg, "dist/router-core/types/index.d.ts"), "utf8")).toContain('from "./clock.js"');
  });

  it("runs decide, LocalRouter and fail-static from node (ESM), and decide from require (CommonJS)", async () => {
    const app = path.join(dir, "app");
    await writeFile(path.join(app, "main.mjs"), ESM);
    await writeFile(path.join(app, "main.cjs"), CJS);
    const esm = JSON.parse((await run(process.execPath, ["main.mjs", server.url, API_KEY], { cwd: app })).stdout);
    expect(esm.remote).toEqual(["switchyard", expect.stringMatching(/^provider_[ABC]$/)]);
    expect(esm.local).toEqual([expect.stringMatching(/^provider_[ABC]$/), "local"]);
    expect(esm.failStatic).toEqual([true, "static", ["provider_A", "provider_B"]]);
    // The local decision's record went to the decision log before close() returned.
    expect(esm.logged).toMatchObject({ made: 1, reported: 1, pending: 0 });
    // And counted, in a count report.
    expect(esm.counted).toEqual({ made: 1, reported: 1, refused: 0, dropped: 0, pending: 0 });
    const cjs = JSON.parse((await run(process.execPath, ["main.cjs", server.url, API_KEY], { cwd: app })).stdout);
    // parseFactorList reads YAML and validates with zod: both load from the declared dependencies.
    expect(cjs).toEqual({ source: "switchyard", selected: expect.stringMatching(/^provider_[ABC]$/), engine: "function", parsed: false });
  });
});
