import { appendFile, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSpool, SpoolFullError } from "./spool";

const dirs: string[] = [];
afterEach(async () => {
  while (dirs.length > 0) await rm(dirs.pop()!, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "sy-spool-unit-"));
  dirs.push(dir);
  return dir;
}

describe("spool", () => {
  it("replays what was appended, in order, in batches, then deletes the segments", async () => {
    const dir = await tempDir();
    const spool = createSpool<{ n: number }>({ dir, name: "t", maxBytes: 1_000_000, segmentBytes: 40 });
    for (let n = 0; n < 10; n++) await spool.append([{ n }]);
    expect(spool.hasPending()).toBe(true);
    const batches: number[][] = [];
    const count = await spool.replay(async (items) => void batches.push(items.map((i) => i.n)), 4);
    expect(count).toBe(10);
    expect(batches.flat()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(batches.every((b) => b.length <= 4)).toBe(true);
    expect(spool.hasPending()).toBe(false);
    expect(spool.stats().usedBytes).toBe(0);
    expect(await readdir(dir)).toEqual([]);
  });

  it("keeps a segment whose replay failed, and replays it again later", async () => {
    const dir = await tempDir();
    const spool = createSpool<{ n: number }>({ dir, name: "t", maxBytes: 1_000_000 });
    await spool.append([{ n: 1 }, { n: 2 }]);
    await expect(spool.replay(() => Promise.reject(new Error("db down")))).rejects.toThrow("db down");
    expect(spool.hasPending()).toBe(true);
    const seen: number[] = [];
    await spool.replay(async (items) => void seen.push(...items.map((i) => i.n)));
    expect(seen).toEqual([1, 2]);
  });

  it("refuses appends past the disk budget with SpoolFullError and frees it after replay", async () => {
    const dir = await tempDir();
    const spool = createSpool<{ s: string }>({ dir, name: "t", maxBytes: 100 });
    await spool.append([{ s: "x".repeat(40) }]);
    await expect(spool.append([{ s: "y".repeat(60) }])).rejects.toBeInstanceOf(SpoolFullError);
    await spool.replay(async () => {});
    await spool.append([{ s: "y".repeat(60) }]);
    expect(spool.stats().usedBytes).toBeGreaterThan(60);
  });

  it("two open spools sharing a directory never replay each other's segments", async () => {
    const dir = await tempDir();
    const a = createSpool<{ n: number }>({ dir, name: "t", maxBytes: 1_000_000 });
    const b = createSpool<{ n: number }>({ dir, name: "t", maxBytes: 1_000_000 });
    await a.append([{ n: 1 }]);
    await b.append([{ n: 2 }]);
    const seenByA: number[] = [];
    await a.replay(async (items) => void seenByA.push(...items.map((i) => i.n)));
    expect(seenByA).toEqual([1]);
    expect(b.hasPending()).toBe(true);
    // Once b is closed (its writer gone), a adopts what b left.
    await b.close();
    await a.replay(async (items) => void seenByA.push(...items.map((i) => i.n)));
    expect(seenByA).toEqual([1, 2]);
    expect(await readdir(dir)).toEqual([]);
  });

  it("a new process picks up segments left behind and skips only a torn final line", async () => {
    const dir = await tempDir();
    const first = createSpool<{ n: number }>({ dir, name: "t", maxBytes: 1_000_000 });
    await first.append([{ n: 1 }, { n: 2 }]);
    await first.close();
    const [file] = await readdir(dir);
    await appendFile(path.join(dir, file!), '{"n":3');
    const second = createSpool<{ n: number }>({ dir, name: "t", maxBytes: 1_000_000 });
    expect(second.hasPending()).toBe(true);
    const seen: number[] = [];
    await second.replay(async (items) => void seen.push(...items.map((i) => i.n)));
    expect(seen).toEqual([1, 2]);
    // Other spools sharing the directory are not touched.
    const other = createSpool<{ n: number }>({ dir, name: "other", maxBytes: 1_000_000 });
    expect(other.hasPending()).toBe(false);
  });
});
