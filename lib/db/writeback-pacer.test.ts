import { appendFile, mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startWritebackPacer, type TWritebackPacer } from "./writeback-pacer";

let dir: string | null = null;
let pacer: TWritebackPacer | null = null;

afterEach(async () => {
  await pacer?.stop();
  pacer = null;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = null;
});

/** A data directory with base/<db>/<relation files>, whose files' times are set to `at` (seconds). */
async function dataDir(files: string[], at: number): Promise<string> {
  dir = await mkdtemp(path.join(tmpdir(), "sy-pacer-"));
  for (const f of files) {
    const file = path.join(dir, "base", f);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, "x");
    await utimes(file, at, at);
  }
  return dir;
}

describe("writeback pacer", () => {
  it("writes back the relation files that changed since its last pass, and only those", async () => {
    const root = await dataDir(["1/16384", "1/16384_fsm", "5/2619", "5/2619.1", "5/pg_internal.init", "5/t3_16999"], 1_000);
    const written: string[] = [];
    // A long interval: the test drives the passes.
    pacer = startWritebackPacer({ dataDir: root, intervalMs: 3_600_000, writeBack: async (f) => void written.push(f) });
    await pacer.pass();
    // Files seen for the first time are only remembered.
    expect(written).toEqual([]);

    await appendFile(path.join(root, "base/5/2619.1"), "more");
    await utimes(path.join(root, "base/5/2619.1"), 1_001, 1_001);
    await appendFile(path.join(root, "base/5/pg_internal.init"), "more");
    await utimes(path.join(root, "base/5/pg_internal.init"), 1_001, 1_001);
    expect(await pacer.pass()).toEqual([path.join(root, "base/5/2619.1")]);
    expect(await pacer.pass()).toEqual([]);

    // A new database's files, then a change to one of them.
    await mkdir(path.join(root, "base/16500"));
    await writeFile(path.join(root, "base/16500/16501"), "x");
    await utimes(path.join(root, "base/16500/16501"), 1_000, 1_000);
    expect(await pacer.pass()).toEqual([]);
    await utimes(path.join(root, "base/16500/16501"), 1_002, 1_002);
    await utimes(path.join(root, "base/1/16384_fsm"), 1_002, 1_002);
    expect((await pacer.pass()).sort()).toEqual([path.join(root, "base/1/16384_fsm"), path.join(root, "base/16500/16501")]);
    expect(written).toHaveLength(3);
  });

  it("skips a file dropped between listing and write-back, and reports any other failure once", async () => {
    const root = await dataDir(["1/100", "1/200"], 1_000);
    const lines: string[] = [];
    const writeBack = async (f: string) => {
      const err = Object.assign(new Error(f.endsWith("100") ? "gone" : "EIO: i/o error"), { code: f.endsWith("100") ? "ENOENT" : "EIO" });
      throw err;
    };
    pacer = startWritebackPacer({ dataDir: root, intervalMs: 3_600_000, writeBack, log: (l) => lines.push(l) });
    await pacer.pass();
    for (const at of [1_001, 1_002]) {
      await utimes(path.join(root, "base/1/100"), at, at);
      await utimes(path.join(root, "base/1/200"), at, at);
      expect(await pacer.pass()).toEqual([]);
    }
    expect(lines).toEqual(["writeback pacer: EIO: i/o error"]);
  });

  it("writes a changed file's dirty pages back with fdatasync by default", async () => {
    const root = await dataDir(["1/300"], 1_000);
    pacer = startWritebackPacer({ dataDir: root, intervalMs: 3_600_000 });
    await pacer.pass();
    await appendFile(path.join(root, "base/1/300"), Buffer.alloc(64 * 1024, 1));
    await utimes(path.join(root, "base/1/300"), 1_001, 1_001);
    expect(await pacer.pass()).toEqual([path.join(root, "base/1/300")]);
  });
});
