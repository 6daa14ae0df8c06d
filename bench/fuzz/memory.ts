import v8 from "node:v8";
import vm from "node:vm";

export type TMemoryPoint = { at: number; heapUsed: number; rss: number };

let gc: (() => void) | null = null;

/**
 * Heap and RSS right after a full collection, so samples compare live memory rather than
 * garbage awaiting collection (gc is exposed at run time; no node flag needed).
 */
export function sampleMemory(): { heapUsed: number; rss: number } {
  if (!gc) {
    v8.setFlagsFromString("--expose-gc");
    gc = vm.runInNewContext("gc") as () => void;
  }
  gc();
  const u = process.memoryUsage();
  return { heapUsed: u.heapUsed, rss: u.rss };
}

const MIB = 1024 * 1024;

/**
 * A leak is growth that is both large in absolute terms and relative to the warmed-up heap,
 * between the sample taken after warm-up and the last: caches filling up to their bound and
 * allocator noise stay under it, a per-request leak over 10,000 requests does not.
 */
export function judgeMemory(points: readonly TMemoryPoint[], warmIndex = 1, limits = { absoluteMiB: 48, relative: 0.5 }) {
  if (points.length <= warmIndex) return { leak: false, growthMiB: 0, detail: "too few samples" };
  const warm = points[warmIndex]!;
  const last = points.at(-1)!;
  const growth = last.heapUsed - warm.heapUsed;
  const leak = growth > limits.absoluteMiB * MIB && growth > warm.heapUsed * limits.relative;
  return {
    leak,
    growthMiB: growth / MIB,
    detail: `heap after GC ${(warm.heapUsed / MIB).toFixed(1)} MiB after warm-up → ${(last.heapUsed / MIB).toFixed(1)} MiB at the end (${growth >= 0 ? "+" : ""}${(growth / MIB).toFixed(1)} MiB); RSS ${(warm.rss / MIB).toFixed(0)} → ${(last.rss / MIB).toFixed(0)} MiB`,
  };
}

export function formatMemory(title: string, points: readonly TMemoryPoint[]): string {
  return [
    `${title} memory (after GC):`,
    ...points.map(
      (p) =>
        `  after ${String(p.at).padStart(6)} requests: heap ${(p.heapUsed / MIB).toFixed(1).padStart(7)} MiB, RSS ${(p.rss / MIB).toFixed(0).padStart(5)} MiB`,
    ),
  ].join("\n");
}
