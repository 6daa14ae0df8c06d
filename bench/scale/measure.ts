import { performance } from "node:perf_hooks";
import { quantile } from "../lib/bench-results";

export type TTiming = { name: string; runs: number; p50: number; p95: number; p99: number; max: number; mean: number };

/**
 * Times `fn` `runs` times after `warmup` untimed calls, one at a time (a console page issues its
 * queries for one user; concurrency is bench:console's business). `fn` gets the run index so a
 * case can vary its input (a different decision id per run).
 */
export async function timeIt(name: string, runs: number, fn: (i: number) => Promise<unknown>, warmup = 2): Promise<TTiming> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn(i);
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return {
    name,
    runs,
    p50: quantile(ms, 0.5),
    p95: quantile(ms, 0.95),
    p99: quantile(ms, 0.99),
    max: ms[ms.length - 1]!,
    mean: ms.reduce((a, b) => a + b, 0) / ms.length,
  };
}

export function formatTiming(t: TTiming, targetMs: number): string {
  const f = (v: number) => v.toFixed(1).padStart(8);
  return `${t.name.padEnd(58)} ${f(t.p50)} ${f(t.p95)} ${f(t.p99)} ${f(t.max)}  ${t.p95 < targetMs ? "ok" : "SLOW"}`;
}
