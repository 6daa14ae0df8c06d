import autocannon from "autocannon";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { freePort } from "../../test/support/free-port";
import { waitForHealth } from "../../test/support/wait-for-health";
import { non2xxCount, runLoadInChild } from "../lib/closed-loop-load";

/** The load of `npm run bench:api`: the server under test, its closed loops and the outcome batches. */

export const API_KEY = `sy_bench_${randomBytes(16).toString("hex")}`;
export const AUTH = { "content-type": "application/json", authorization: `Bearer ${API_KEY}` };

/**
 * `cpuProfileDir`: run the server under `--cpu-prof`, its .cpuprofile written there when it exits
 * (bench/api/profile-summary.ts attributes it to the decide path's stages).
 */
export async function startServer(
  databaseUrl: string,
  spoolDir: string,
  durability: string,
  cpuProfileDir: string | null = null,
  /** More environment for the server (bench:store's decision store). */
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const nodeArgs = [
    ...(process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean),
    ...(cpuProfileDir ? ["--cpu-prof", "--cpu-prof-dir", cpuProfileDir] : []),
  ];
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", path.resolve("server.ts")], {
    stdio: ["ignore", process.env.BENCH_SERVER_STDOUT ? "inherit" : "ignore", "inherit"],
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      SWITCHYARD_SEED_DEMO: "1",
      SWITCHYARD_DATAPLANE_ONLY: "1",
      SWITCHYARD_API_KEY: API_KEY,
      SWITCHYARD_INSTANCE_ID: "bench-api",
      DECISION_DURABILITY: durability,
      SPOOL_DIR: spoolDir,
      ...env,
    },
  });
  await waitForHealth(`http://127.0.0.1:${port}`, child, 120_000);
  return { child, port };
}

/** Decision ids of every 200 answer, to check each one is in the table afterwards. */
export const acknowledgedIds: string[] = [];

export const REGIONS = ["EU", "NA", "APAC", "LATAM"];

/** A closed-loop run's figures (latencies in ms, 2xx answers only). */
export type TClosedLoop = {
  ok: number;
  seconds: number;
  latency: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  generatorCpuUs: number;
};

/**
 * Closed loop: each connection sends its next request when the answer arrives (the raw-socket
 * generator of closed-loop-load.ts, in a process of its own); `collect`: keep the decision ids answered.
 */
export async function load(port: number, seconds: number, connections: number, prefix: string, collect = true): Promise<TClosedLoop> {
  const r = await runLoadInChild({
    url: `http://127.0.0.1:${port}/api/v1/decide`,
    headers: AUTH,
    body: `{"operation":"SEND_SMS","region":"{cycle}","requestId":"${prefix}-{n}"}`,
    cycle: REGIONS,
    seconds,
    connections,
    label: prefix,
    ...(collect ? { collectAfter: '{"decisionId":"' } : {}),
  });
  for (const id of r.collected) acknowledgedIds.push(id);
  const msOf = (us: number) => Math.round(us / 10) / 100;
  return {
    ok: r.requests,
    seconds: r.seconds,
    latency: { p50: msOf(r.p50Us), p99: msOf(r.p99Us), max: msOf(r.maxUs) },
    non2xx: non2xxCount(r.status),
    errors: r.errors,
    generatorCpuUs: r.generatorCpuUs,
  };
}

/** The latency target's bound (ms) on p99, for the sweep's "highest throughput under it". */
export const P99_TARGET_MS = 20;

/**
 * Seconds of unmeasured load before each sweep point and each fixed rate: each is a new generator
 * process with new connections, whose first second would otherwise weigh on the measurement
 * (bench/README.md, "Investigations").
 */
export const WARM_SECONDS = 2;

/** Closed-loop concurrencies below the main run's, each measured for the sweep (the main run is the last point). */
export function sweepConnections(main: number): number[] {
  return [16, 24, 32, 48, 64].filter((c) => c < main);
}

export type TSweepPoint = { connections: number; perSecond: number; p50: number; p99: number };

export const sweepPoint = (connections: number, r: TClosedLoop): TSweepPoint => ({
  connections,
  perSecond: r.ok / r.seconds,
  p50: r.latency.p50,
  p99: r.latency.p99,
});

/**
 * Throughput against p99 over concurrency, a few seconds per point: a closed loop's latency is
 * mostly its queue (connections / throughput), so one concurrency says little about what the
 * server sustains at a given tail. `main` is the point already measured at the run's concurrency.
 */
export async function sweep(port: number, seconds: number, main: TSweepPoint, prefix: string, collect: boolean): Promise<TSweepPoint[]> {
  const points: TSweepPoint[] = [];
  for (const connections of sweepConnections(main.connections)) {
    // Each point is a new generator process and new connections: warm them up first, as the main run is.
    await load(port, WARM_SECONDS, connections, `${prefix}-warm-${connections}`, collect);
    const r = await load(port, seconds, connections, `${prefix}-${connections}`, collect);
    if (r.non2xx > 0 || r.errors > 0) process.exitCode = 1;
    points.push(sweepPoint(connections, r));
  }
  return [...points, main];
}

/** A sweep's points as result figures: throughput and p99 per concurrency. */
export const sweepFigures = (points: readonly TSweepPoint[], rate: string, p99: string) =>
  points.flatMap((p) => [
    { label: `${rate} at ${p.connections} connections`, value: Math.round(p.perSecond), unit: "req/s" },
    { label: `${p99} at ${p.connections} connections`, value: p.p99, unit: "ms" },
  ]);

/** The point with the highest throughput whose p99 is under the target, or null. */
export function bestUnderTarget(points: readonly TSweepPoint[]): TSweepPoint | null {
  return points.filter((p) => p.p99 < P99_TARGET_MS).reduce<TSweepPoint | null>((best, p) => (best === null || p.perSecond > best.perSecond ? p : best), null);
}

export const OUTCOME_BATCH = 100;

/**
 * Outcome ingestion: batches of OUTCOME_BATCH outcomes for acknowledged decisions, a provider-call
 * outcome and a business outcome per decision (the two kinds a service reports), each decision
 * once per pass over `ids`: a decision takes only a few outcomes of each kind (telemetry/README.md).
 * The calls name provider_B, the demo's one SMS provider eligible in every region REGIONS holds:
 * an outcome may name only a provider its decision offered.
 * Counts the items the server recorded from the per-item results.
 */
export function loadOutcomes(
  port: number,
  seconds: number,
  connections: number,
  ids: readonly string[],
): { run: Promise<autocannon.Result>; recorded: () => number; refused: () => number } {
  let cursor = 0;
  let recorded = 0;
  let refused = 0;
  const run = autocannon({
    url: `http://127.0.0.1:${port}/api/v1/outcomes`,
    method: "POST",
    connections,
    duration: seconds,
    headers: AUTH,
    requests: [
      {
        setupRequest: (req) => {
          const items: string[] = [];
          for (let k = 0; k < OUTCOME_BATCH; k += 2) {
            const id = ids[cursor++ % ids.length];
            items.push(
              `{"type":"provider_call","decisionId":"${id}","provider":"provider_B","status":"success","latencyMs":${120 + (k % 50)},"retryCount":0}`,
              `{"type":"business","decisionId":"${id}","completed":true,"withinSla":true}`,
            );
          }
          return { ...req, body: `{"outcomes":[${items.join(",")}]}` };
        },
        onResponse: (status, body) => {
          if (status !== 200 && status !== 207) return;
          const results = (JSON.parse(body) as { results: Array<{ status: number }> }).results;
          for (const r of results) {
            if (r.status === 201) recorded++;
            else refused++;
          }
        },
      },
    ],
  });
  return { run, recorded: () => recorded, refused: () => refused };
}
