import { randomUUID } from "node:crypto";
import { Worker } from "node:worker_threads";

/**
 * What runs beside the one-at-a-time fuzzer in `npm run fuzz`: a /health prober (a request that
 * blocks the server's event loop shows up as a slow /health), slow clients that trickle headers
 * or bodies (both on a worker thread, fuzz-side-worker.mjs, so the fuzzer's own pauses while it
 * builds bodies of megabytes do not count), and bursts of concurrent decide calls reusing one
 * requestId for two regions.
 */

const pct = (sorted: number[], p: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!);

export type THealthReport = {
  probes: number;
  excluded: number;
  failures: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  worst: Array<{ at: number; ms: number; during: string }>;
  /** The same probe on a path the router answers alone (404, no database): how long the event loop itself kept a request waiting. */
  loop: { p99Ms: number; maxMs: number; worst: Array<{ at: number; ms: number }> };
};

export type TSlowReport = { sockets: number; answered408: number; heldMaxMs: number; violations: string[] };

type TSample = { at: number; ms: number; ok: boolean };

/**
 * Starts the worker: GET /api/v1/health every `healthIntervalMs`, and with `slow`, `count`
 * connections trickling one byte every `trickleMs` (half never finish their headers, half send
 * them and then trickle a decide, outcomes or execute body), each of which must get a 408 with
 * the JSON error body and be closed within `limitMs`, and is replaced when closed. `during(label)`
 * notes the fuzz request being sent, so the slowest probes name what was in flight.
 */
export function startSideLoad(opts: {
  base: string;
  port: number;
  apiKey: string;
  healthIntervalMs?: number;
  slow?: { count: number; trickleMs: number; limitMs: number };
}) {
  const worker = new Worker(new URL("./fuzz-side-worker.mjs", import.meta.url), {
    workerData: { base: opts.base, port: opts.port, apiKey: opts.apiKey, healthIntervalMs: opts.healthIntervalMs ?? 20, slow: opts.slow ?? null },
  });
  const marks: Array<{ at: number; label: string; excluded: boolean }> = [];
  /** The marks in effect during [from, to]: the last one before `from` and those after it, oldest first. */
  const inFlight = (from: number, to: number) => {
    let i = marks.length - 1;
    while (i >= 0 && marks[i]!.at > to) i--;
    const overlapping: typeof marks = [];
    for (; i >= 0; i--) {
      overlapping.unshift(marks[i]!);
      if (marks[i]!.at <= from) break;
    }
    return overlapping;
  };
  return {
    /**
     * What the server is sent now. `excluded`: the fuzzer's own doing rather than a request (the
     * memory sample's forced full GC in the server): probes overlapping it do not count.
     */
    during(label: string, excluded = false): void {
      marks.push({ at: performance.timeOrigin + performance.now(), label, excluded });
    },
    /** What the fuzzer had sent during [from, to] (the last three), and whether that was its own forced GC. */
    inFlight(from: number, to: number): { labels: string; excluded: boolean } {
      const m = inFlight(from, to);
      return {
        labels: m
          .map((x) => x.label)
          .slice(-3)
          .join(" / "),
        excluded: m.some((x) => x.excluded),
      };
    },
    async stop(): Promise<{ health: THealthReport; slow: TSlowReport | null }> {
      const done = new Promise<{ samples: TSample[]; loopSamples: TSample[]; slow: TSlowReport | null }>((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
      });
      worker.postMessage("stop");
      const { samples: all, loopSamples, slow } = await done;
      await worker.terminate();
      // Probes before the first fuzz request time the start (worker, 200 slow connections opening), not a request.
      const counted = (xs: TSample[]) => xs.filter((x) => marks.length > 0 && x.at >= marks[0]!.at && !inFlight(x.at, x.at + x.ms).some((m) => m.excluded));
      const samples = counted(all);
      const excluded = all.filter((x) => marks.length > 0 && x.at >= marks[0]!.at).length - samples.length;
      const sorted = samples.map((x) => x.ms).sort((a, b) => a - b);
      const loopCounted = counted(loopSamples);
      const loopSorted = loopCounted.map((x) => x.ms).sort((a, b) => a - b);
      const loopWorst = [...loopCounted].sort((a, b) => b.ms - a.ms).slice(0, 5);
      const worst = [...samples]
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 5)
        .map((x) => ({
          at: x.at,
          ms: x.ms,
          during: inFlight(x.at, x.at + x.ms)
            .map((m) => m.label)
            .slice(-3)
            .join(" / "),
        }));
      return {
        health: {
          probes: samples.length,
          excluded,
          failures: samples.filter((x) => !x.ok).length,
          p50Ms: pct(sorted, 50),
          p99Ms: pct(sorted, 99),
          maxMs: sorted.at(-1) ?? 0,
          worst,
          loop: { p99Ms: pct(loopSorted, 99), maxMs: loopSorted.at(-1) ?? 0, worst: loopWorst.map((x) => ({ at: x.at, ms: x.ms })) },
        },
        slow,
      };
    },
  };
}

export function formatHealthReport(r: THealthReport, limitMs: number): string {
  const lines = [
    `${r.failures === 0 ? "ok  " : "FAIL"} /health answered throughout (over ${limitMs} ms: ${r.maxMs > limitMs ? "some, see below why" : "none"}): ${r.probes} probes (${r.excluded} overlapping a forced GC left out), p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, max ${r.maxMs.toFixed(1)} ms, ${r.failures} failed`,
  ];
  lines.push(`       without the database (a path the router answers 404): p99 ${r.loop.p99Ms.toFixed(1)} ms, max ${r.loop.maxMs.toFixed(1)} ms`);
  for (const w of r.worst) lines.push(`       ${w.ms.toFixed(1)} ms during ${w.during.slice(0, 240)}`);
  return lines.join("\n");
}

export function formatSlowReport(r: TSlowReport): string {
  const ok = r.violations.length === 0 && r.answered408 > 0;
  return [
    `${ok ? "ok  " : "FAIL"} slow clients cut off: ${r.sockets} trickling connections, ${r.answered408} answered 408 and closed, longest held ${(r.heldMaxMs / 1000).toFixed(1)} s`,
    ...r.violations.map((v) => `       ${v}`),
  ].join("\n");
}

export type TBurstReport = { rounds: number; requests: number; matched: number; refused422: number; violations: string[] };

/**
 * Rounds of `size` concurrent decide calls under one new requestId, alternating two regions:
 * exactly one decision may be logged, every call for its region gets that decision, every call
 * for the other region 422 idempotency_key_reused.
 */
export async function runReuseBursts(opts: {
  base: string;
  apiKey: string;
  operation: string;
  regions: readonly [string, string];
  rounds: number;
  size: number;
  loggedRegions: (requestId: string) => Promise<string[]>;
}): Promise<TBurstReport> {
  const report: TBurstReport = { rounds: opts.rounds, requests: 0, matched: 0, refused422: 0, violations: [] };
  const violate = (v: string) => void (report.violations.length < 5 && report.violations.push(v));
  for (let round = 0; round < opts.rounds; round++) {
    const requestId = `burst-${randomUUID()}`;
    const regions = Array.from({ length: opts.size }, (_, i) => opts.regions[(i + round) % 2]!);
    const answers = await Promise.all(
      regions.map(async (region) => {
        const res = await fetch(`${opts.base}/api/v1/decide`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${opts.apiKey}` },
          body: JSON.stringify({ operation: opts.operation, region, requestId }),
        });
        return { status: res.status, json: (await res.json()) as { region?: string; decisionId?: string; error?: { code?: string } } };
      }),
    );
    report.requests += answers.length;
    const logged = await opts.loggedRegions(requestId);
    if (logged.length !== 1) {
      violate(`${requestId}: ${logged.length} decisions logged`);
      continue;
    }
    const winner = logged[0]!;
    const ids = new Set<string>();
    answers.forEach((a, i) => {
      if (regions[i] === winner) {
        if (a.status !== 200 || a.json.region !== winner) violate(`${requestId}: a ${winner} call got ${a.status} ${JSON.stringify(a.json).slice(0, 120)}`);
        else ids.add(a.json.decisionId!);
        report.matched++;
      } else if (a.status !== 422 || a.json.error?.code !== "idempotency_key_reused") {
        violate(`${requestId}: a ${regions[i]} call (decision made for ${winner}) got ${a.status} ${JSON.stringify(a.json).slice(0, 120)}`);
      } else report.refused422++;
    });
    if (ids.size > 1) violate(`${requestId}: ${ids.size} different decisions answered`);
  }
  return report;
}

export function formatBurstReport(r: TBurstReport): string {
  return [
    `${r.violations.length === 0 ? "ok  " : "FAIL"} concurrent requestId reuse: ${r.rounds} rounds, ${r.requests} decide calls, ${r.matched} for the logged decision's region got it, ${r.refused422} for the other region got 422`,
    ...r.violations.map((v) => `       ${v}`),
  ].join("\n");
}
