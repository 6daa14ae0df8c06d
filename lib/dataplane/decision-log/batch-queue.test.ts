import { describe, expect, it } from "vitest";
import { createBatchQueue } from "./batch-queue";

/** A queue whose writes wait until the test releases them, recording each batch. */
function harness(opts: { maxBatch?: number; concurrency?: number; extraBatchAt?: number } = {}) {
  const batches: number[][] = [];
  const releases: Array<() => void> = [];
  const queue = createBatchQueue<number>({
    maxBatch: opts.maxBatch ?? 100,
    concurrency: opts.concurrency ?? 1,
    extraBatchAt: opts.extraBatchAt,
    retryMs: 10,
    write: (batch) => {
      batches.push(batch);
      return new Promise<void>((resolve) => releases.push(resolve));
    },
  });
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return { queue, batches, releases, turn };
}

describe("batch queue", () => {
  it("with extraBatchAt, starts a batch beside the one in flight only when that many items wait", async () => {
    const { queue, batches, releases, turn } = harness({ maxBatch: 3, concurrency: 4, extraBatchAt: 3 });
    queue.add(1);
    await turn();
    queue.add(2);
    await turn();
    // One in flight and one item waiting: it waits for company rather than going alone.
    expect(batches).toEqual([[1]]);
    queue.add(3);
    queue.add(4);
    queue.add(5);
    await turn();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    expect(queue.queued).toBe(1);
    // Nothing in flight: what waits goes, however little.
    releases[0]!();
    releases[1]!();
    await turn();
    await turn();
    expect(batches).toEqual([[1], [2, 3, 4], [5]]);
    releases[2]!();
    await queue.drain();
  });

  it("sends what arrived in one turn as one batch, and what arrives during a write as the next", async () => {
    const { queue, batches, releases, turn } = harness();
    queue.add(1);
    queue.add(2);
    await turn();
    expect(batches).toEqual([[1, 2]]);
    queue.add(3);
    queue.add(4);
    await turn();
    expect(batches).toHaveLength(1);
    expect(queue.queued).toBe(2);
    expect(queue.inFlight).toBe(2);
    releases[0]!();
    await turn();
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    releases[1]!();
    await queue.drain();
    expect(queue.queued + queue.inFlight).toBe(0);
  });

  it("splits an oversized queue into batches of maxBatch", async () => {
    const { queue, batches, releases, turn } = harness({ maxBatch: 2, concurrency: 3 });
    for (let i = 1; i <= 5; i++) queue.add(i);
    await turn();
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
    for (const r of releases) r();
    await queue.drain();
  });

  it("holds deferred items until a demand, and requeues a batch at the head", async () => {
    const { queue, batches, releases, turn } = harness();
    queue.add(1, 60_000);
    queue.add(2, 60_000);
    await turn();
    expect(batches).toEqual([]);
    queue.demand();
    await turn();
    expect(batches).toEqual([[1, 2]]);
    queue.add(3, 60_000);
    queue.requeue([1, 2]);
    releases[0]!();
    await turn();
    expect(batches[1]).toEqual([1, 2, 3]);
    releases[1]!();
    await queue.drain();
    queue.close();
  });
});
