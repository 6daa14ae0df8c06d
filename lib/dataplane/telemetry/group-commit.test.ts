import { describe, expect, it } from "vitest";
import { createGroupCommit } from "./group-commit";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function recorder(maxBatch = 100) {
  const writes: number[][] = [];
  const group = createGroupCommit<number>(async (items) => {
    writes.push(items);
    await sleep(5);
  }, maxBatch);
  return { writes, group };
}

describe("createGroupCommit", () => {
  it("writes an eager submission at once and batches what arrives while a write is in flight", async () => {
    const { writes, group } = recorder();
    const first = group.submit([1]);
    expect(writes).toEqual([[1]]);
    const later = [group.submit([2]), group.submit([3, 4])];
    await Promise.all([first, ...later]);
    expect(writes).toEqual([[1], [2, 3, 4]]);
  });

  it("lets lazy submissions wait for company, up to their wait", async () => {
    const { writes, group } = recorder();
    const lazy = [group.submit([1], { lazyMs: 60 }), group.submit([2], { lazyMs: 60 })];
    await sleep(20);
    expect(writes).toEqual([]);
    lazy.push(group.submit([3], { lazyMs: 60 }));
    await Promise.all(lazy);
    expect(writes).toEqual([[1, 2, 3]]);
  });

  it("writes lazy submissions at once when an eager one arrives or the batch is full", async () => {
    const { writes, group } = recorder(3);
    const waiting = group.submit([1], { lazyMs: 10_000 });
    const eager = group.submit([2]);
    await Promise.all([waiting, eager]);
    expect(writes).toEqual([[1, 2]]);

    const full = [group.submit([3, 4], { lazyMs: 10_000 }), group.submit([5], { lazyMs: 10_000 })];
    await Promise.all(full);
    expect(writes).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it("after a write, waits again for lazy company rather than writing each straggler alone", async () => {
    const { writes, group } = recorder();
    const first = group.submit([1]);
    // Arrives during the first write: written after it, but only once the lazy wait is over.
    const straggler = group.submit([2], { lazyMs: 40 });
    await first;
    await sleep(15);
    const more = group.submit([3], { lazyMs: 40 });
    await Promise.all([straggler, more]);
    expect(writes).toEqual([[1], [2, 3]]);
  });

  it("drain writes lazy submissions without waiting out their time", async () => {
    const { writes, group } = recorder();
    // An hour: without drain writing it, this test would time out.
    const lazy = group.submit([7], { lazyMs: 3_600_000 });
    await group.drain();
    await lazy;
    expect(writes).toEqual([[7]]);
  });
});
