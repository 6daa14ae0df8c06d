import pg from "pg";
import type { AppInstance } from "./instances";
import { startLoad, type Load } from "./load";
import { crashInvariant, figure, ledgerInvariants, phaseTable, serverErrorInvariant, type TFaultReport } from "./report";
import { startScenario } from "./scenario";
import { sleep } from "./sleep";
import { checkLedger } from "./verify";

export type TLeaderKillOptions = {
  dir: string;
  rate: number;
  /** Load with provider_A degraded before the leader is killed. */
  steadySeconds: number;
  afterSeconds: number;
  /** Share of provider_A's calls that fail, and their latency. */
  failureRate: number;
  failureLatencyMs: number;
  tickMs: number;
  /** A takeover slower than this breaks the run. */
  takeoverTimeoutSeconds: number;
  serverUrl?: string;
  log?: (line: string) => void;
};

type TShareSample = { atMs: number; shares: Map<string, number>; updatedAt: number };

const DEGRADED = "provider_A";
const REGIONS = ["EU", "NA", "APAC"];

async function leadersNow(instances: readonly AppInstance[]): Promise<AppInstance[] | null> {
  const health = await Promise.all(instances.map((i) => (i.alive ? i.health() : Promise.resolve(null))));
  // An instance too busy to answer /health in time says nothing about who leads.
  if (health.some((h, k) => h === null && instances[k]!.alive)) return null;
  return instances.filter((_, k) => health[k]?.telemetry.controller.leader === true);
}

/** The instances that say they lead, once every live instance answered /health and the answer holds twice in a row. */
async function leaderOf(instances: readonly AppInstance[], timeoutMs = 15_000): Promise<AppInstance[]> {
  const t0 = performance.now();
  let last: AppInstance[] | null = null;
  for (;;) {
    const now = await leadersNow(instances);
    if (now && last && now.length === last.length && now.every((x, k) => x === last![k])) return now;
    last = now;
    if (performance.now() - t0 > timeoutMs) return now ?? [];
    await sleep(200);
  }
}

type TSampler = { samples: TShareSample[]; t0: number; stop(): Promise<void> };

/** provider_A's SEND_SMS share per region from traffic_share, every 250 ms until stopped. */
function startShareSampler(db: pg.Client): TSampler {
  const samples: TShareSample[] = [];
  let sampling = true;
  const t0 = performance.now();
  const loop = (async () => {
    while (sampling) {
      const { rows } = await db.query<{ region: string; provider_key: string; share: number; updated_at: Date }>(
        "select region, provider_key, share, updated_at from traffic_share where operation_key = 'SEND_SMS' and provider_key = $1",
        [DEGRADED],
      );
      samples.push({
        atMs: performance.now() - t0,
        shares: new Map(rows.map((r) => [r.region, r.share])),
        updatedAt: Math.max(0, ...rows.map((r) => r.updated_at.getTime())),
      });
      await sleep(250);
    }
  })();
  return {
    samples,
    t0,
    stop: () => {
      sampling = false;
      return loop;
    },
  };
}

const meanShare = (sample: TShareSample | undefined) => {
  if (!sample) return null;
  const v = REGIONS.map((r) => sample.shares.get(r) ?? 1);
  return v.reduce((a, b) => a + b, 0) / v.length;
};
const sampleAt = (samples: readonly TShareSample[], atMs: number) => samples.filter((x) => x.atMs <= atMs).at(-1);
const sharesKey = (x: TShareSample | undefined) => (x ? REGIONS.map((r) => x.shares.get(r) ?? null).join("/") : "");

type TKill = { follower: AppInstance; killAt: number; killWall: number; takeoverMs: number | null; takeoverAt: number };

/** SIGKILLs the one leader, waits for the follower to take over, and starts the killed instance again (it rejoins as a follower). */
async function killLeader(instances: readonly AppInstance[], load: Load, t0: number, o: TLeaderKillOptions, log: (line: string) => void): Promise<TKill> {
  const leaders = await leaderOf(instances);
  if (leaders.length !== 1) throw new Error(`expected exactly one controller leader before the kill, found ${leaders.length}`);
  const leader = leaders[0]!;
  const follower = instances.find((i) => i !== leader)!;
  log(`controller leader is ${leader.name} (pid ${leader.pid}); SIGKILL`);
  load.phase("leader killed");
  const killT0 = performance.now();
  const killWall = Date.now();
  await leader.kill();
  const killAt = killT0 - t0;
  let takeoverMs: number | null = null;
  while (performance.now() - killT0 < o.takeoverTimeoutSeconds * 1000) {
    if ((await follower.health())?.telemetry.controller.leader) {
      takeoverMs = performance.now() - killT0;
      break;
    }
    await sleep(20);
  }
  log(takeoverMs === null ? `no takeover within ${o.takeoverTimeoutSeconds} s` : `${follower.name} took over after ${Math.round(takeoverMs)} ms`);
  log(`restarting ${leader.name} (it rejoins as a follower)`);
  await leader.start();
  return { follower, killAt, killWall, takeoverMs, takeoverAt: killAt + (takeoverMs ?? 0) };
}

type TShiftRow = { at: Date; region: string; type: string; provider_key: string | null; detail: string };

async function readShiftEvents(db: pg.Client, killWall: number): Promise<{ afterKill: number; euLog: TShiftRow[] }> {
  const events = await db.query<{ n: number }>("select count(*)::int as n from shift_event where operation_key = 'SEND_SMS' and at > $1", [new Date(killWall)]);
  const shiftLog = await db.query<TShiftRow>(
    "select at, region, type, provider_key, detail from shift_event where operation_key = 'SEND_SMS' and region = 'EU' and at > $1 order by at, id limit 40",
    [new Date(killWall - 5_000)],
  );
  return { afterKill: events.rows[0]!.n, euLog: shiftLog.rows };
}

function shareTable(samples: readonly TShareSample[], kill: TKill) {
  return {
    title: `${DEGRADED} share by region over time (sampled every 250 ms, every 8th sample shown)`,
    columns: ["t s", ...REGIONS, "event"],
    rows: samples
      .filter((_, k) => k % 8 === 0)
      .map((x) => [
        Math.round(x.atMs / 100) / 10,
        ...REGIONS.map((r) => (x.shares.has(r) ? Math.round(x.shares.get(r)! * 1000) / 1000 : null)),
        x.atMs >= kill.killAt && x.atMs < kill.killAt + 2000 ? "leader killed" : x.atMs >= kill.takeoverAt && x.atMs < kill.takeoverAt + 2000 ? "takeover" : "",
      ]),
  };
}

function shiftTable(rows: readonly TShiftRow[], startWall: number) {
  return {
    title: "EU shift events from 5 s before the kill (the controller's own account of each move; first 40)",
    columns: ["t s", "region", "type", "provider", "detail"],
    rows: rows.map((e) => [
      Math.round((e.at.getTime() - startWall) / 100) / 10,
      e.region,
      e.type,
      e.provider_key,
      e.detail.length > 140 ? `${e.detail.slice(0, 137)}...` : e.detail,
    ]),
  };
}

type TLeaderKillRun = {
  o: TLeaderKillOptions;
  instances: readonly AppInstance[];
  load: Load;
  samples: readonly TShareSample[];
  kill: TKill;
  startWall: number;
  recoveredMs: number | null;
  leadersAfter: AppInstance[];
  shifts: { afterKill: number; euLog: TShiftRow[] };
  ledger: Awaited<ReturnType<typeof checkLedger>>;
};

function leaderKillReport(r: TLeaderKillRun): TFaultReport {
  const { o, samples, kill, load } = r;
  const { takeoverMs, takeoverAt, killAt } = kill;
  const firstWriteAfter = samples.find((x) => x.atMs > takeoverAt && x.updatedAt > 0 && x.updatedAt > (sampleAt(samples, killAt)?.updatedAt ?? 0));
  const atTakeover = meanShare(sampleAt(samples, takeoverAt));
  const atEnd = meanShare(samples.at(-1));
  const atTakeoverKey = sharesKey(sampleAt(samples, takeoverAt));
  const movedAfter = samples.some((x) => x.atMs > takeoverAt && sharesKey(x) !== atTakeoverKey);
  return {
    parameters: {
      rate: o.rate,
      steadySeconds: o.steadySeconds,
      afterSeconds: o.afterSeconds,
      failureRate: o.failureRate,
      failureLatencyMs: o.failureLatencyMs,
      controllerTickMs: o.tickMs,
      leaderRetryMs: 1000,
      durability: "sync",
    },
    figures: [
      figure("controller takeover after SIGKILL of the leader", takeoverMs, "ms", "< leader retry (1 s) + session end"),
      figure("first traffic_share write after the takeover", firstWriteAfter ? firstWriteAfter.atMs - takeoverAt : null, "ms"),
      figure(`${DEGRADED} mean share (EU, NA, APAC) at start`, meanShare(samples[0]), "share"),
      figure(`${DEGRADED} mean share when the leader was killed`, meanShare(sampleAt(samples, killAt)), "share"),
      figure(`${DEGRADED} mean share at takeover`, atTakeover, "share"),
      figure(`${DEGRADED} mean share at the end`, atEnd, "share"),
      figure("shift events after the kill (all by the new leader)", r.shifts.afterKill, "events"),
    ],
    tables: [phaseTable(load.phases), shareTable(samples, kill), shiftTable(r.shifts.euLog, r.startWall)],
    invariants: [
      {
        label: "another instance takes over the controller",
        ok: takeoverMs !== null,
        detail: takeoverMs === null ? `not within ${o.takeoverTimeoutSeconds} s` : `${kill.follower.name} after ${Math.round(takeoverMs)} ms`,
      },
      {
        label: "shares keep moving under the new leader",
        ok: movedAfter,
        detail: `${DEGRADED} shares (EU/NA/APAC) changed after the takeover: ${movedAfter ? "yes" : "no"}; mean ${atTakeover?.toFixed(3)} at takeover → ${atEnd?.toFixed(3)} at the end`,
      },
      { label: "exactly one leader at the end", ok: r.leadersAfter.length === 1, detail: r.leadersAfter.map((l) => l.name).join(", ") || "none" },
      { label: "instances healthy at the end", ok: r.recoveredMs !== null, detail: r.recoveredMs === null ? "not within 30 s" : "ok" },
      serverErrorInvariant(load.phases),
      crashInvariant(r.instances),
      ...ledgerInvariants(r.ledger),
    ],
    notes: [
      `The mock ${DEGRADED} fails a fixed share of calls (503 after the latency); outcomes of real calls feed the metrics, breakers and controller.`,
      "The killed leader is started again after the takeover and must rejoin as a follower.",
    ],
  };
}

/**
 * Three instances under load while provider_A degrades, so the controller leader keeps moving
 * SEND_SMS shares away from it. The leader (found through /health; it holds the advisory lock)
 * is SIGKILLed: Postgres ends its session, which frees the lock, and the other instance's next
 * try takes it. Measured: time to takeover, and that the shares keep moving under the new leader.
 */
export async function runLeaderKill(o: TLeaderKillOptions): Promise<TFaultReport> {
  const log = o.log ?? (() => {});
  const tick = String(o.tickMs);
  const s = await startScenario({
    dir: o.dir,
    serverUrl: o.serverUrl,
    env: { DECISION_DURABILITY: "sync", CONTROLLER_TICK_MS: tick, METRICS_REFRESH_MS: tick },
    // Breakers that never trip: an open breaker moves a provider's whole share at once (a hard
    // gate), which would finish the move before the kill. Scores move shares at Listing 1's capped
    // 50% per minute, so the move is still under way when the leader dies.
    policy: { min_sample_size: 20, circuit_breaker: { consecutive_failures: 100_000, failure_rate_threshold: 1, min_calls: 100_000 } },
    log,
  });
  const db = new pg.Client({ connectionString: s.databaseUrl });
  await db.connect();
  const sampler = startShareSampler(db);
  const startWall = Date.now();
  let load: Load | null = null;
  try {
    s.providers.set(DEGRADED, { failureRate: o.failureRate, latencyMs: o.failureLatencyMs });
    load = startLoad({ targets: s.instances, apiKey: s.apiKey, rate: o.rate, providersUrl: s.providers.url, regions: REGIONS });
    load.phase("provider_A degraded");
    log(`${o.rate} decides/s; ${DEGRADED} fails ${Math.round(o.failureRate * 100)}% of calls after ${o.failureLatencyMs} ms; ${o.steadySeconds} s`);
    await sleep(o.steadySeconds * 1000);
    const kill = await killLeader(s.instances, load, sampler.t0, o, log);
    load.phase("after takeover");
    await sleep(o.afterSeconds * 1000);
    await load.stop();
    const recoveredMs = await s.waitRecovered(30_000);
    await sampler.stop();
    const leadersAfter = await leaderOf(s.instances);
    const shifts = await readShiftEvents(db, kill.killWall);
    const ledger = await checkLedger(
      s.databaseUrl,
      load.acknowledged.map((a) => a.id),
      load.outcomesAcknowledged,
    );
    return leaderKillReport({ o, instances: s.instances, load, samples: sampler.samples, kill, startWall, recoveredMs, leadersAfter, shifts, ledger });
  } finally {
    await load?.stop();
    await sampler.stop().catch(() => {});
    await db.end().catch(() => {});
    await s.close();
  }
}
