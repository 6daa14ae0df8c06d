import { parseArgs } from "node:util";
import pg from "pg";
import { decide } from "../../router-core/index";
import { createScratchDatabase, type TScratchDatabase } from "../../lib/db/drift";
import { applyMigrations } from "../../lib/db/migrate";
import { writeBenchResult } from "../lib/bench-results";
import { startThrowawayCluster } from "../../test/support/throwaway-cluster";
import type { TEmbeddedDatabase } from "../../lib/db/embedded";
import { LocalRouter, SwitchyardClient } from "../../client/src/index";
import { startServerProcess, type TServerProcess } from "../../client/test/server-process";
import { measureCounted, type TCountedRun } from "./counted";

// `npm run bench:local -- [--decisions 200000] [--rounds 5] [--overrides 20] [--rate 10000] [--seconds 5]`:
// local evaluation in one client process against server.ts (data plane only, database of its own):
// (0) every local decision counted: --rate decisions/s for --seconds with the client's defaults,
// the console's served series against the client's own counts, every non-routine record looked up
// (counted.ts); (1) LocalRouter.decide per second with full records, next to router-core's bare
// decide() on the same snapshot; (2) the time from an operator pin committed with its NOTIFY (what
// the console's override action writes) until the client's local decisions follow it, p50/p99.

const { values } = parseArgs({
  options: { decisions: { type: "string" }, rounds: { type: "string" }, overrides: { type: "string" }, rate: { type: "string" }, seconds: { type: "string" } },
});
const RATE = Number(values.rate ?? 10_000);
const SECONDS = Number(values.seconds ?? 5);
const N = Number(values.decisions ?? 200_000);
const ROUNDS = Number(values.rounds ?? 5);
const OVERRIDES = Number(values.overrides ?? 20);
const API_KEY = "bench-local-key";

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

/** Times each of OVERRIDES pins (in NA: EU SMS requires gdpr, which provider_C lacks), from its commit until the client's local decisions follow it, and waits for its end too. */
async function measureOverrides(pool: pg.Pool, local: LocalRouter, whilePinned: () => Promise<void> = async () => {}): Promise<number[]> {
  const propagation: number[] = [];
  for (let i = 0; i < OVERRIDES; i++) {
    const target = i % 2 === 0 ? "provider_C" : "provider_B";
    const c = await pool.connect();
    let id: string;
    try {
      await c.query("begin");
      id = (
        await c.query<{ id: string }>(
          `insert into override (id, kind, operation_key, region, provider_key, reason) values (gen_random_uuid(), 'provider_pin', 'SEND_SMS', 'NA', $1, 'bench-local') returning id`,
          [target],
        )
      ).rows[0]!.id;
      await c.query(`select pg_notify('switchyard_config', '{"kind":"override","operationKey":"SEND_SMS"}')`);
      await c.query("commit");
    } finally {
      c.release();
    }
    const t0 = performance.now();
    for (;;) {
      if (local.decide({ operation: "SEND_SMS", region: "NA" }).selected === target) break;
      if (performance.now() - t0 > 10_000) throw new Error(`pin ${i} did not reach the client within 10 s`);
      await new Promise((r) => setImmediate(r));
    }
    propagation.push(performance.now() - t0);
    if (i === OVERRIDES - 1) await whilePinned();
    await pool.query(`update override set ended_at = now() where id = $1`, [id]);
    await pool.query(`select pg_notify('switchyard_config', '{"kind":"override","operationKey":"SEND_SMS"}')`);
    const t1 = performance.now();
    while (local.decide({ operation: "SEND_SMS", region: "NA" }).record?.override !== "none") {
      if (performance.now() - t1 > 10_000) throw new Error(`the end of pin ${i} did not reach the client`);
      await new Promise((r) => setImmediate(r));
    }
  }
  return propagation;
}

function reportCounted(c: TCountedRun): void {
  process.stderr.write(
    `counted: ${c.made} local decisions at ${Math.round(c.achieved)}/s; console ${JSON.stringify(c.console)} vs client ${JSON.stringify(c.own)}; ` +
      `non-routine ${c.nonRoutine}, missing ${c.nonRoutineMissing}; sampled records ${c.sampledRecords}; counts ${JSON.stringify(c.stats.counts)}; records ${JSON.stringify(c.stats.local)}\n`,
  );
}

const sameCounts = (c: TCountedRun) => JSON.stringify(Object.entries(c.own).sort()) === JSON.stringify(Object.entries(c.console).sort());

function countedParts(c: TCountedRun) {
  return {
    tables: [
      {
        title: `Every local decision counted: ${c.rate.toLocaleString("en-US")}/s for ${c.seconds} s`,
        columns: ["region and provider", "client's own count", "console (served series)"],
        rows: Object.keys({ ...c.own, ...c.console })
          .sort()
          .map((k) => [k, c.own[k] ?? 0, c.console[k] ?? 0]),
      },
    ],
  };
}

function countedInvariants(c: TCountedRun) {
  const s = c.stats;
  return [
    { label: "console counts equal the client's own, exactly", ok: sameCounts(c), detail: `${Object.values(c.console).reduce((a, b) => a + b, 0)} counted` },
    { label: "no non-routine record missing", ok: c.nonRoutineMissing === 0, detail: `${c.nonRoutine} non-routine, ${c.nonRoutineMissing} missing` },
    {
      label: "drop counters 0 (records and counts)",
      ok: s.local.dropped === 0 && s.counts.dropped === 0 && s.counts.refused === 0,
      detail: `records dropped ${s.local.dropped}, counts dropped ${s.counts.dropped}, refused ${s.counts.refused}`,
    },
  ];
}

async function main(): Promise<void> {
  let cluster: TEmbeddedDatabase | null = null;
  let scratch: TScratchDatabase | null = null;
  let server: TServerProcess | null = null;
  let client: SwitchyardClient | null = null;
  let local: LocalRouter | null = null;
  let pool: pg.Pool | null = null;
  try {
    const admin = process.env.DATABASE_URL ?? (cluster = await startThrowawayCluster()).adminUrl;
    scratch = await createScratchDatabase(admin, "switchyard_bench_local");
    await applyMigrations(scratch.url);
    server = await startServerProcess({ databaseUrl: scratch.url, apiKey: API_KEY });
    pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
    client = new SwitchyardClient({ baseUrl: server.url, apiKey: API_KEY, flushOnExit: false, buffer: { flushIntervalMs: 0, maxDecisions: 10_000 } });
    const versions: Array<{ version: string; at: number }> = [];
    local = new LocalRouter({ client, engine: { decide }, onSnapshot: (version, at) => versions.push({ version, at }) });
    await local.start();

    // (1) decisions per second, one process, full records into the client's bounded buffer.
    const rates: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const t0 = performance.now();
      for (let i = 0; i < N; i++) local.decide({ operation: "SEND_SMS", region: "EU", requestId: `b${r}-${i}` });
      rates.push(N / ((performance.now() - t0) / 1000));
    }
    const snap = (await client.snapshot(null, 0))!.snapshot;
    const op = snap.operations.SEND_SMS!;
    const state = { ...op.regions.EU, providers: snap.providers } as never;
    // As LocalRouter does: a shadow policy, when the operation has one, is evaluated too.
    const shadow = op.shadow ? { shadow: op.shadow as never } : undefined;
    const bare: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const t0 = performance.now();
      for (let i = 0; i < N; i++)
        decide(
          { operation: "SEND_SMS", region: "EU", requestId: `c${r}-${i}`, sequence: i },
          state,
          op.policy as never,
          { now: Date.now },
          { next: Math.random },
          shadow,
        );
      bare.push(N / ((performance.now() - t0) / 1000));
    }
    const stats = client.stats().local;
    process.stderr.write(
      `local decide: ${rates.map((x) => Math.round(x)).join(", ")} /s; router-core alone: ${bare.map((x) => Math.round(x)).join(", ")} /s\n`,
    );

    // (2) override → local decisions; and what one pin costs on the wire, whole snapshot against delta.
    const wire = async (query: string) =>
      (await (await fetch(`${server!.url}/api/v1/routing/snapshot${query}`, { headers: { authorization: `Bearer ${API_KEY}` } })).arrayBuffer()).byteLength;
    let wholeBytes = 0;
    let deltaBytes = 0;
    const propagation = await measureOverrides(pool, local, async () => {
      // The last pin: the version before it is the one its long-poll resumed from.
      const beforePin = versions.at(-2)!.version;
      [wholeBytes, deltaBytes] = [await wire(""), await wire(`?since=${encodeURIComponent(beforePin)}&waitMs=0&delta=1`)];
    });
    // (0) last, so its outcomes and pin do not change what (1) and (2) decide on; the first client
    // flushes only when closed, so its decisions are not among those counted here.
    process.env.DATABASE_URL = scratch.url; // the console's read models (getServedSeries) read the process's database
    const counted = await measureCounted({ url: server.url, apiKey: API_KEY, pool, rate: RATE, seconds: SECONDS });
    reportCounted(counted);
    propagation.sort((a, b) => a - b);
    rates.sort((a, b) => a - b);
    bare.sort((a, b) => a - b);
    process.stderr.write(`override → local decisions (ms): ${propagation.map((x) => round(x)).join(", ")}\n`);
    process.stderr.write(`snapshot answer: whole ${wholeBytes} bytes, delta ${deltaBytes} bytes\n`);
    const file = writeBenchResult({
      name: "local",
      title: "Local evaluation (client process)",
      command: `npm run bench:local -- --decisions ${N} --rounds ${ROUNDS} --overrides ${OVERRIDES}`,
      parameters: { decisions: N, rounds: ROUNDS, overrides: OVERRIDES, shadow: op.shadow ? "evaluated" : "none" },
      figures: [
        { label: `local decisions counted at ${RATE.toLocaleString("en-US")}/s for ${SECONDS} s`, value: counted.made, unit: "decisions" },
        { label: "their rate as driven", value: Math.round(counted.achieved), unit: "decisions/s" },
        { label: "non-routine records missing", value: counted.nonRoutineMissing, unit: `of ${counted.nonRoutine}`, target: "0" },
        { label: "routine records sent (the 1% sample)", value: counted.sampledRecords, unit: "records" },
        { label: "LocalRouter.decide, full records (best round)", value: Math.round(rates.at(-1)!), unit: "decisions/s", target: "≥ 1,000,000" },
        { label: "LocalRouter.decide, full records (median round)", value: Math.round(quantile(rates, 0.5)), unit: "decisions/s" },
        {
          label: "router-core decide() alone on the same snapshot, shadow included (median round)",
          value: Math.round(quantile(bare, 0.5)),
          unit: "decisions/s",
        },
        { label: "override → local decisions p50", value: round(quantile(propagation, 0.5)), unit: "ms" },
        { label: "override → local decisions p99", value: round(quantile(propagation, 0.99)), unit: "ms", target: "< 1000" },
        { label: "override → local decisions max", value: round(propagation.at(-1)!), unit: "ms" },
        { label: "snapshot answer, whole", value: wholeBytes, unit: "bytes" },
        { label: "snapshot answer, delta for one pin (one region changed)", value: deltaBytes, unit: "bytes" },
      ],
      invariants: [
        ...countedInvariants(counted),
        {
          label: "local decisions accounted (made = sent + buffered + dropped + left out of the sample)",
          ok: stats.made === stats.pending + stats.dropped + stats.reported + stats.refused + stats.sampledOut,
          detail: `${stats.made} made, ${stats.pending} buffered, ${stats.dropped} dropped, ${stats.sampledOut} not sampled`,
        },
      ],
      ...countedParts(counted),
      notes: [
        `Counted: ${RATE.toLocaleString("en-US")} local decisions/s for ${SECONDS} s in 10 ms ticks (one in ten in NA under a pin, so non-routine; EU on fresh metrics after 60 reported outcomes), the client's defaults (records for every non-routine decision and 1% of routine ones, per-minute counts flushed every second); then the console's served series (24 h, per region and provider) against the client's own tally of the decisions it made, and every non-routine decision id looked up in the log.`,
        "Decisions/s: one process, SEND_SMS/EU (3 candidates), each decision's full router-core record handed to the client's bounded buffer (10,000 records; the rest are counted as dropped, as a service outrunning its ingest would see).",
        "Override: a provider_pin row committed together with its NOTIFY on switchyard_config (what the console's override action writes), timed from the commit until LocalRouter.decide returns the pinned provider: the data plane's LISTEN reload, the snapshot ticker (100 ms) and the long-poll's answer.",
      ],
    });
    process.stdout.write(`written: ${file}\n`);
  } finally {
    await local?.close();
    await client?.close();
    await pool?.end();
    await server?.stop();
    await scratch?.drop().catch(() => {});
    await cluster?.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench-local: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
