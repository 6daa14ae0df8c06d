import type pg from "pg";
import { decide } from "../../router-core/index";
import { getServedSeries } from "../../lib/console/traffic/get-served-series";
import { LocalRouter, SwitchyardClient, type TDecision } from "../../client/src/index";

export type TCountedRun = {
  rate: number;
  seconds: number;
  made: number;
  /** Achieved decisions per second over the run. */
  achieved: number;
  /** The client's own counts by region and provider against the console's served series. */
  own: Record<string, number>;
  console: Record<string, number>;
  nonRoutine: number;
  nonRoutineMissing: number;
  sampledRecords: number;
  stats: ReturnType<SwitchyardClient["stats"]>;
};

type TRecord = { override?: string; stale?: boolean; fallback?: unknown; shadow?: { agrees: boolean } | null };
const isNonRoutine = (d: TDecision) => {
  const r = d.record as unknown as TRecord;
  return d.selected === null || r.stale === true || (r.fallback ?? null) !== null || (r.override ?? "none") !== "none" || r.shadow?.agrees === false;
};

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Outcomes for SEND_SMS in EU, so local decisions there are made on fresh metrics (routine) once the snapshot carries them. */
async function warmUp(client: SwitchyardClient, router: LocalRouter, made: TDecision[]): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const d = await client.decide({ operation: "SEND_SMS", region: "EU" });
    client.reportOutcome({ type: "provider_call", decisionId: d.decisionId, provider: d.selected!, status: "success", latencyMs: 20, retryCount: 0 });
    client.reportOutcome({ type: "business", decisionId: d.decisionId, provider: d.selected!, completed: true, withinSla: true });
    made.push(d);
  }
  await client.flush();
  await until("fresh metrics in the routing snapshot", () => {
    const d = router.decide({ operation: "SEND_SMS", region: "EU" });
    made.push(d);
    return !(d.record as unknown as TRecord).stale;
  });
}

/** `rate` local decisions per second for `seconds`, paced in 10 ms ticks; one in ten in NA, where a pin makes every decision non-routine. */
async function drive(router: LocalRouter, rate: number, seconds: number, made: TDecision[]): Promise<number> {
  const start = performance.now();
  let n = 0;
  for (let tick = 0; tick < seconds * 100; tick++) {
    const due = Math.round(((tick + 1) * rate) / 100) - Math.round((tick * rate) / 100);
    for (let i = 0; i < due; i++, n++) made.push(router.decide({ operation: "SEND_SMS", region: n % 10 === 0 ? "NA" : "EU" }));
    const wait = start + (tick + 1) * 10 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  return n / ((performance.now() - start) / 1000);
}

/**
 * Every local decision counted: a LocalRouter at `rate` decisions/s for `seconds` with the client's
 * defaults (records of non-routine decisions and a 1% sample of routine ones, exact per-minute
 * counts), then the console's served series against the client's own counts, and the non-routine
 * records looked up one by one.
 */
export async function measureCounted(opts: { url: string; apiKey: string; pool: pg.Pool; rate: number; seconds: number }): Promise<TCountedRun> {
  await opts.pool.query(
    `insert into override (id, kind, operation_key, region, provider_key, reason) values (gen_random_uuid(), 'provider_pin', 'SEND_SMS', 'NA', 'provider_C', 'bench-local counted')`,
  );
  await opts.pool.query(`select pg_notify('switchyard_config', '{"kind":"override","operationKey":"SEND_SMS"}')`);
  const client = new SwitchyardClient({ baseUrl: opts.url, apiKey: opts.apiKey, flushOnExit: false });
  const router = new LocalRouter({ client, engine: { decide } });
  const made: TDecision[] = [];
  const from = Date.now();
  try {
    await router.start();
    await warmUp(client, router, made);
    const before = made.length;
    const achieved = await drive(router, opts.rate, opts.seconds, made);
    await router.close();
    await until("every count and record reported", async () => {
      await client.flush().catch(() => {});
      const s = client.stats();
      return s.counts.pending === 0 && s.local.pending === 0 && s.outcomes.pending === 0;
    });
    const own: Record<string, number> = {};
    const seen: Record<string, number> = {};
    for (const d of made) own[`${d.region} ${d.selected ?? "none"}`] = (own[`${d.region} ${d.selected ?? "none"}`] ?? 0) + 1;
    for (const region of ["EU", "NA"]) {
      const served = await getServedSeries("SEND_SMS", region, "24h", Date.now() + 60_000);
      for (const p of served.points) {
        for (const [provider, n] of Object.entries(p.counts)) seen[`${region} ${provider}`] = (seen[`${region} ${provider}`] ?? 0) + n;
        if (p.unserved > 0) seen[`${region} none`] = (seen[`${region} none`] ?? 0) + p.unserved;
      }
    }
    // Switchyard logs the decisions it made itself; the records to look for are the client's.
    const wanted = made.filter((d) => d.source === "local" && isNonRoutine(d)).map((d) => d.decisionId);
    const { rows } = await opts.pool.query<{ n: number }>(`select count(*)::int as n from decision where id = any($1::uuid[])`, [wanted]);
    const { rows: sampled } = await opts.pool.query<{ n: number }>(
      `select count(*)::int as n from decision where source = 'local' and created_at >= $1 and (record->>'sampleRate')::float8 < 1`,
      [new Date(from)],
    );
    return {
      rate: opts.rate,
      seconds: opts.seconds,
      made: made.length - before,
      achieved,
      own,
      console: seen,
      nonRoutine: wanted.length,
      nonRoutineMissing: wanted.length - rows[0]!.n,
      sampledRecords: sampled[0]!.n,
      stats: client.stats(),
    };
  } finally {
    await router.close();
    await client.close();
  }
}
