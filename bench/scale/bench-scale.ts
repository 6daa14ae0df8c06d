import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import type { ClickHouseClient } from "@clickhouse/client";
import { getDecision } from "../../lib/console/decisions/get-decision";
import { getMoment } from "../../lib/console/why/get-moment";
import { getOverview } from "../../lib/console/get-overview";
import { getProvidersView } from "../../lib/console/providers/get-providers-view";
import { getServedSeries } from "../../lib/console/traffic/get-served-series";
import { getShadowDisagreementGroups } from "../../lib/console/shadow/get-shadow-disagreement-groups";
import { getShadowView } from "../../lib/console/shadow/get-shadow-view";
import { prismaQueryable } from "../../lib/console/prisma-queryable";
import { loadRecordedTraffic } from "../../lib/replay/load-recorded";
import { countServedMinutes } from "../../lib/dataplane/decision-log/counts";
import { getShareSeries } from "../../lib/console/traffic/get-share-series";
import { getShiftEvent } from "../../lib/console/why/get-shift-event";
import { listDecisionFacets } from "../../lib/console/decisions/list-decision-facets";
import { listDecisions } from "../../lib/console/decisions/list-decisions";
import type { TDecisionFilters } from "../../lib/console/decisions/decision-filters";
import { listShiftEvents } from "../../lib/console/why/list-shift-events";
import { getPrisma } from "../../lib/db/client";
import { applyMigrations } from "../../lib/db/migrate";
import { consoleDecisionCounter } from "../../lib/decision-store";
import { benchResultsDir, readBenchResults, writeBenchResult, type TBenchFigure } from "../lib/bench-results";
import { clickHouseTableBytes, DEFAULT_SCALE_CH_DIR, describeTableBytes, openScaleClickHouse, type TScaleClickHouse } from "./clickhouse";
import { DEFAULT_SCALE_DATA_DIR, openScaleDatabase } from "./database";
import { formatTiming, timeIt, type TTiming } from "./measure";
import { SEED_INSTANCE_ID } from "./simulate";

// `npm run bench:scale [-- --runs 50 --database-url URL | --data-dir DIR] [--skip-decide] [--only NAME] [--store clickhouse]`
// On the database `npm run seed:scale` filled: p50/p95/p99 of every console read model the pages
// call, in this process (lib/console), then decide throughput over HTTP with that table in place
// (bench:api against the same database). Prints the figures and writes bench-results/scale.json.
// Speed is reported against the 200 ms p95 target, never asserted. `--store clickhouse` reads the
// seed `seed:scale -- --store clickhouse` wrote: the read models with the ClickHouse reads, as a
// server in that mode wires them (bench/scale/README.md).

const TARGET_MS = 200;
const DEEP_PAGES = 20;
const HOUR = 3_600_000;

const here = path.dirname(fileURLToPath(import.meta.url));

type TCase = { name: string; run: (i: number) => Promise<unknown> };
type TOptions = {
  runs: number;
  databaseUrl?: string;
  dataDir?: string;
  skipDecide: boolean;
  decideSeconds: string;
  resultName: string;
  only?: string;
  /** ClickHouse mode: the directory of the seed's chdb (and, unless --data-dir, its Postgres). */
  clickHouseDir?: string;
};
type TSeedFacts = {
  now: number;
  decisions: number;
  sample: { id: string; at: Date }[];
  rareReason: string | undefined;
  shift: { id: string; at: Date; operation_key: string; region: string } | undefined;
};

const log = (line: string) => process.stderr.write(`bench:scale: ${line}\n`);
const OP = "SEND_SMS";
const REGION = "EU";

function readOptions(): TOptions {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "50" },
      "database-url": { type: "string" },
      "data-dir": { type: "string" },
      "skip-decide": { type: "boolean", default: false },
      "decide-seconds": { type: "string", default: "15" },
      /** bench-results/<name>.json; e.g. scale-1m for the 1-million-decision run beside the 10-million one. */
      "result-name": { type: "string" },
      /** Only the read models whose name contains this (e.g. "shadow"); the result file is not written. */
      only: { type: "string" },
      store: { type: "string", default: "postgres" },
      "clickhouse-dir": { type: "string" },
    },
  });
  if (values.store !== "postgres" && values.store !== "clickhouse")
    throw new RangeError(`--store must be postgres or clickhouse, got ${JSON.stringify(values.store)}`);
  const clickHouseDir = values.store === "clickhouse" ? (values["clickhouse-dir"] ?? DEFAULT_SCALE_CH_DIR) : undefined;
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new RangeError(`--runs must be a positive integer, got ${JSON.stringify(values.runs)}`);
  return {
    runs,
    databaseUrl: values["database-url"],
    dataDir: values["data-dir"],
    skipDecide: values["skip-decide"] === true,
    decideSeconds: values["decide-seconds"]!,
    resultName: values["result-name"] ?? (clickHouseDir ? "scale-ch" : "scale"),
    only: values.only,
    clickHouseDir,
  };
}

/**
 * The seed's window ends when it ran: "now" for every read model is the end of the seeded data
 * (not of rows a decide benchmark added since), so a run hours later still reads a busy last hour.
 */
async function readSeedFacts(client: pg.Client, runs: number, clickHouse: ClickHouseClient | null): Promise<TSeedFacts> {
  if (clickHouse) return readClickHouseSeedFacts(clickHouse, client, runs);
  const { rows: span } = await client.query<{ last: Date | null }>("select max(created_at) as last from decision where instance_id = $1", [SEED_INSTANCE_ID]);
  if (!span[0]!.last) throw new Error("the decision table is empty: run `npm run seed:scale` first");
  const now = span[0]!.last.getTime() + 1_000;
  const { rows: counted } = await client.query<{ n: string }>(
    "select coalesce(sum(reltuples), 0)::bigint as n from pg_class c join pg_inherits i on i.inhrelid = c.oid where i.inhparent = 'decision'::regclass",
  );
  const decisions = Number(counted[0]!.n);
  log(`${decisions.toLocaleString("en-US")} decisions (planner estimate), data up to ${new Date(now).toISOString()}`);
  const { rows: sample } = await client.query<{ id: string; at: Date }>(
    `select id::text as id, created_at as at from decision tablesample system (0.05) repeatable (7) limit $1`,
    [runs + 10],
  );
  if (sample.length === 0) throw new Error("could not sample decision ids");
  const { rows: rare } = await client.query<{ reason_code: string }>(
    `select reason_code from decision where created_at > $1 group by 1 order by count(*) asc limit 1`,
    [new Date(now - 24 * HOUR)],
  );
  return { now, decisions, sample, rareReason: rare[0]?.reason_code, shift: await latestShift(client) };
}

/** The latest significant shift event (Postgres in both modes). */
async function latestShift(client: pg.Client): Promise<TSeedFacts["shift"]> {
  const { rows } = await client.query<{ id: string; at: Date; operation_key: string; region: string }>(
    `select id::text, at, operation_key, region from shift_event where type <> 'probe_floor_held' order by at desc limit 1`,
  );
  return rows[0];
}

/** readSeedFacts for a seed in ClickHouse: the same facts from its decision table. */
async function readClickHouseSeedFacts(ch: ClickHouseClient, client: pg.Client, runs: number): Promise<TSeedFacts> {
  const rows = async <T>(query: string, params: Record<string, unknown> = {}) =>
    (await ch.query({ query, query_params: params, format: "JSONEachRow" })).json<T>();
  const [span] = await rows<{ last: string; n: string }>(
    "SELECT toString(toUnixTimestamp64Milli(max(at))) AS last, count() AS n FROM decision WHERE instance_id = {i:String}",
    { i: SEED_INSTANCE_ID },
  );
  if (!span || Number(span.n) === 0) throw new Error("ClickHouse's decision table is empty: run `npm run seed:scale -- --store clickhouse` first");
  const now = Number(span.last) + 1_000;
  const [total] = await rows<{ n: string }>("SELECT count() AS n FROM decision");
  const decisions = Number(total!.n);
  log(`${decisions.toLocaleString("en-US")} decisions in ClickHouse, data up to ${new Date(now).toISOString()}`);
  // Spread over the week like Postgres's block sample: ids whose hash falls in one residue class.
  const sample = await rows<{ id: string; at_ms: string }>(
    "SELECT toString(id) AS id, toString(toUnixTimestamp64Milli(at)) AS at_ms FROM decision WHERE cityHash64(id) % 997 = 7 ORDER BY cityHash64(id) LIMIT {n:UInt32}",
    { n: runs + 10 },
  );
  if (sample.length === 0) throw new Error("could not sample decision ids");
  const rare = await rows<{ reason_code: string }>(
    "SELECT reason_code FROM decision WHERE at > {from:DateTime64(3)} GROUP BY reason_code ORDER BY count() ASC LIMIT 1",
    { from: new Date(now - 24 * HOUR) },
  );
  return {
    now,
    decisions,
    sample: sample.map((s) => ({ id: s.id, at: new Date(Number(s.at_ms)) })),
    rareReason: rare[0]?.reason_code,
    shift: await latestShift(client),
  };
}

/**
 * ClickHouse mode's consistency check and sizes: the rollup cells in Postgres must count every
 * decision row ClickHouse holds (the seed adds them as the log store does), and system.parts
 * gives the bytes per decision. Returned as notes for the result.
 */
async function clickHouseNotes(ch: TScaleClickHouse, client: pg.Client, decisions: number): Promise<string[]> {
  const { rows } = await client.query<{ n: string }>("select coalesce(sum(count), 0)::bigint as n from decision_rollup");
  const rolled = Number(rows[0]!.n);
  if (rolled !== decisions) throw new Error(`decision_rollup counts ${rolled} decisions, ClickHouse holds ${decisions}: the seed is inconsistent`);
  const model = (() => {
    try {
      return /Model name:\s*(.+)/.exec(execFileSync("lscpu", { encoding: "utf8" }))?.[1]?.trim() ?? os.cpus()[0]?.model;
    } catch {
      return os.cpus()[0]?.model;
    }
  })();
  const tables = await clickHouseTableBytes(ch.client);
  return [
    `ClickHouse mode (SWITCHYARD_DECISION_STORE=clickhouse): decisions and outcomes in ClickHouse, read through the console's consoleClickHouseReads / consoleDecisionCounter as a server in that mode wires them; rollups, shift events, share samples, buckets and the catalogue in Postgres. There is no ClickHouse server on this machine: the engine is chdb ${chdbVersion()} behind test/support/clickhouse-shim.ts in a process of its own (bench/scale/clickhouse-server.ts), reached over loopback HTTP by the product's @clickhouse/client, on the same 2 cores as Postgres and this process; each read also pays the shim's HTTP handling in Node.`,
    `CPU: ${model}, ${os.cpus().length} cores; load average at the start ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" / ")} (1 / 5 / 15 min).`,
    `decision_rollup counts ${rolled.toLocaleString("en-US")} decisions, the number of rows in ClickHouse's decision table.`,
    `ClickHouse sizes (system.parts, active parts after the seed's OPTIMIZE … FINAL): ${describeTableBytes(tables, decisions).join("; ")}.`,
    "decide over HTTP not measured in ClickHouse mode: this run times the reads only; decide throughput against the same engine is bench:store's (bench-results/decision-store.json).",
  ];
}

function chdbVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(process.cwd(), "node_modules", "chdb", "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "(version unknown)";
  }
}

/** Every decision-list filter the page offers, on page 1 and a deep keyset page, over the last hour and the last 7 days. */
async function decisionListCases(facts: TSeedFacts, cases: TCase[], notes: string[]): Promise<void> {
  const { now, rareReason } = facts;
  const facets = await listDecisionFacets();
  const filters: [string, Partial<TDecisionFilters>][] = [
    ["no filter", {}],
    ["time range (6 h, a day ago)", { from: new Date(now - 30 * HOUR).toISOString(), to: new Date(now - 24 * HOUR).toISOString() }],
    ["operation SEND_EMAIL", { operation: "SEND_EMAIL" }],
    ["region LATAM", { region: "LATAM" }],
    ["provider provider_C", { provider: "provider_C" }],
    [`reason ${rareReason ?? "share_weighted"}`, { reason: rareReason ?? "share_weighted" }],
    [`policy ${facets.policies[0] ?? "v1"}`, { policy: facets.policies[0] ?? "v1" }],
    ["outcome completed", { outcome: "completed" }],
    ["outcome failed", { outcome: "failed" }],
    ["outcome pending", { outcome: "pending" }],
    ["stale true", { stale: "true" }],
  ];
  for (const [label, f] of filters) {
    for (const window of ["1h", "7d"] as const) {
      // A time-range filter brings its own window.
      if (f.from && window === "7d") continue;
      const base: TDecisionFilters = {
        ...f,
        ...(f.from ? {} : window === "7d" ? { from: new Date(now - 7 * 24 * HOUR).toISOString() } : {}),
      } as TDecisionFilters;
      const span = f.from ? "" : window === "1h" ? ", last hour" : ", last 7 days";
      cases.push({ name: `decision list: ${label}${span}, page 1`, run: () => listDecisions(base, 50, now) });
      let cursor: string | null = null;
      let page = await listDecisions(base, 50, now);
      for (let p = 1; p < DEEP_PAGES && page.next; p++) {
        cursor = page.next;
        page = await listDecisions({ ...base, after: cursor }, 50, now);
      }
      if (page.next) {
        const deep = page.next;
        cases.push({ name: `decision list: ${label}${span}, page ${DEEP_PAGES + 1}`, run: () => listDecisions({ ...base, after: deep }, 50, now) });
      } else notes.push(`decision list: ${label}${span}: fewer than ${DEEP_PAGES + 1} pages, no deep page measured`);
    }
  }
}

/** The decision counts loadRecordedTraffic reads, on their own (its metric buckets are another table). */
const whatIfCounts = (now: number, ms: number) => countServedMinutes(prismaQueryable(), { operation: OP, from: now - ms, to: now }, consoleDecisionCounter());

/** Every console read model the pages call, in the order they are printed. */
async function readModelCases(facts: TSeedFacts): Promise<{ cases: TCase[]; notes: string[] }> {
  const { now, sample } = facts;
  const cases: TCase[] = [
    { name: "drilldown by id (with the row's time)", run: (i) => getDecision(sample[i % sample.length]!.id, sample[i % sample.length]!.at.getTime()) },
    { name: "drilldown by id (id only, direct link)", run: (i) => getDecision(sample[i % sample.length]!.id) },
  ];
  const notes: string[] = [];
  await decisionListCases(facts, cases, notes);
  cases.push(
    { name: "traffic-share chart, 24 h", run: () => getShareSeries(OP, REGION, "24h", now) },
    { name: "traffic-share chart, 7 d", run: () => getShareSeries(OP, REGION, "7d", now) },
    { name: "overview (1 h range)", run: () => getOverview(OP, REGION, "1h", now) },
    { name: "overview (24 h range)", run: () => getOverview(OP, REGION, "24h", now) },
    { name: "overview (7 d range)", run: () => getOverview(OP, REGION, "7d", now) },
    { name: "why: shift-event timeline", run: () => listShiftEvents({ operation: OP, region: REGION, significantOnly: true, limit: 100 }) },
    { name: "providers view", run: () => getProvidersView(now) },
    { name: "shadow view, 1 h", run: () => getShadowView(OP, "1h", now) },
    { name: "shadow view, 24 h", run: () => getShadowView(OP, "24h", now) },
    { name: "shadow view, 7 d", run: () => getShadowView(OP, "7d", now) },
    { name: "shadow disagreements by provider pair, 24 h", run: () => getShadowDisagreementGroups(OP, now - 24 * HOUR, now) },
    { name: "shadow disagreements by provider pair, 7 d", run: () => getShadowDisagreementGroups(OP, now - 168 * HOUR, now) },
    { name: "served shares, 24 h", run: () => getServedSeries(OP, REGION, "24h", now) },
    { name: "served shares, 7 d", run: () => getServedSeries(OP, REGION, "7d", now) },
    // What the approval page's what-if loads before replaying (its longest range is 6 h): all of it, and
    // its decision counts alone (per minute, region and provider), also over 7 d as `replay:what-if` may ask.
    {
      name: "what-if recorded traffic, 6 h",
      run: () => loadRecordedTraffic(prismaQueryable(), OP, new Date(now - 6 * HOUR), new Date(now), undefined, consoleDecisionCounter()),
    },
    { name: "what-if decision counts, 6 h", run: () => whatIfCounts(now, 6 * HOUR) },
    { name: "what-if decision counts, 7 d", run: () => whatIfCounts(now, 168 * HOUR) },
    { name: "decision-log filter menus", run: () => listDecisionFacets() },
  );
  const s = facts.shift;
  if (s) {
    cases.push(
      { name: "why: one shift event", run: () => getShiftEvent(s.id) },
      { name: "why: explain this moment", run: () => getMoment(s.operation_key, s.region, s.at.getTime()) },
    );
  } else notes.push("no shift event in the data: the shift-event and moment cases were not measured");
  return { cases, notes };
}

async function timeCases(cases: readonly TCase[], notes: readonly string[], opts: TOptions): Promise<TTiming[]> {
  console.log(`console read models, ${opts.runs} runs each (ms)`);
  console.log(`${"".padEnd(58)} ${"p50".padStart(8)} ${"p95".padStart(8)} ${"p99".padStart(8)} ${"max".padStart(8)}`);
  const timings: TTiming[] = [];
  for (const c of cases) {
    if (opts.only && !c.name.includes(opts.only)) continue;
    const t = await timeIt(c.name, opts.runs, c.run);
    timings.push(t);
    console.log(formatTiming(t, TARGET_MS));
  }
  for (const n of notes) console.log(`note: ${n}`);
  const slow = timings.filter((t) => t.p95 >= TARGET_MS);
  console.log(
    `${timings.length - slow.length} of ${timings.length} under the ${TARGET_MS} ms p95 target${slow.length ? `; slow: ${slow.map((t) => t.name).join("; ")}` : ""}`,
  );
  return timings;
}

/** bench:api against the same database, its figures prefixed "decide: ". */
function decideFigures(opts: TOptions, databaseUrl: string): TBenchFigure[] {
  log("decide throughput with this table in place (bench:api on the same database)");
  const apiName = opts.resultName === "scale" ? "api-scale" : `api-${opts.resultName}`;
  const r = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(here, "..", "api", "bench-api.ts"),
      "--use-database",
      databaseUrl,
      "--duration",
      opts.decideSeconds,
      "--result-name",
      apiName,
    ],
    {
      stdio: "inherit",
      env: process.env,
    },
  );
  if (r.status !== 0) throw new Error(`bench:api on the scale database exited with ${r.status}`);
  const api = readBenchResults().results.find((x) => x.name === apiName);
  return (api?.figures ?? []).map((f) => ({ ...f, label: `decide: ${f.label}` }));
}

function writeScaleResult(opts: TOptions, facts: TSeedFacts, timings: readonly TTiming[], figures: TBenchFigure[], notes: string[]): void {
  const { decisions, now } = facts;
  const store = opts.clickHouseDir ? " --store clickhouse" : "";
  const file = writeBenchResult({
    name: opts.resultName,
    title: opts.clickHouseDir ? "Console read models on a large decision log, ClickHouse mode" : "Console read models on a large decision log",
    command: `npm run seed:scale -- --decisions ${decisions >= 9_500_000 ? "10000000" : decisions >= 950_000 && decisions < 1_100_000 ? "1000000" : String(decisions)} --days 7${store} && npm run bench:scale -- --runs ${opts.runs}${store}${opts.resultName === (opts.clickHouseDir ? "scale-ch" : "scale") ? "" : ` --result-name ${opts.resultName}`}`,
    parameters: {
      decisions,
      runs: opts.runs,
      targetMs: TARGET_MS,
      deepPage: DEEP_PAGES + 1,
      scope: `${OP}/${REGION}`,
      dataEnd: new Date(now).toISOString(),
      ...(opts.clickHouseDir ? { store: "clickhouse" } : {}),
    },
    figures,
    tables: [
      {
        title: `lib/console read models, in process${opts.clickHouseDir ? ", ClickHouse mode" : ""}, ${opts.runs} runs each (ms)`,
        columns: ["read model", "p50", "p95", "p99", "max"],
        rows: timings.map((t) => [t.name, round(t.p50), round(t.p95), round(t.p99), round(t.max)]),
      },
    ],
    notes,
  });
  log(`wrote ${path.relative(process.cwd(), file)} (${benchResultsDir()})`);
}

async function main(): Promise<number> {
  const opts = readOptions();
  const db = await openScaleDatabase({
    databaseUrl: opts.databaseUrl ?? process.env.DATABASE_URL,
    dataDir: opts.dataDir ?? (opts.clickHouseDir ? path.join(opts.clickHouseDir, "postgres") : DEFAULT_SCALE_DATA_DIR),
    log,
  });
  let clickHouse: TScaleClickHouse | null = null;
  if (opts.clickHouseDir) {
    clickHouse = await openScaleClickHouse(opts.clickHouseDir);
    // What a server started with SWITCHYARD_DECISION_STORE=clickhouse has: the console's reads
    // (consoleClickHouseReads, a process slot) are built from these on first use.
    process.env.SWITCHYARD_DECISION_STORE = "clickhouse";
    process.env.SWITCHYARD_CLICKHOUSE_URL = clickHouse.url;
    log(`ClickHouse mode: embedded chdb at ${clickHouse.url}`);
  }
  // The schema may have moved on since the seed ran (new columns the read models select).
  await applyMigrations(db.url);
  process.env.DATABASE_URL = db.url;
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const facts = await readSeedFacts(client, opts.runs, clickHouse?.client ?? null);
    const { cases, notes } = await readModelCases(facts);
    if (clickHouse) notes.unshift(...(await clickHouseNotes(clickHouse, client, facts.decisions)));
    const timings = await timeCases(cases, notes, opts);
    if (opts.only) return 0;
    const slow = timings.filter((t) => t.p95 >= TARGET_MS);
    const figures: TBenchFigure[] = [
      { label: "decisions in the table", value: facts.decisions, unit: "rows" },
      { label: "read models under the p95 target", value: timings.length - slow.length, unit: `of ${timings.length}` },
      { label: "slowest p95", value: Math.max(...timings.map((t) => t.p95)), unit: "ms", target: `< ${TARGET_MS}` },
    ];
    if (clickHouse) {
      const tables = await clickHouseTableBytes(clickHouse.client);
      for (const t of tables) {
        figures.push({ label: `ClickHouse ${t.table}: bytes per decision, compressed`, value: Math.round(t.compressed / facts.decisions), unit: "B" });
        figures.push({ label: `ClickHouse ${t.table}: bytes per decision, uncompressed`, value: Math.round(t.uncompressed / facts.decisions), unit: "B" });
      }
    }
    if (!opts.skipDecide && !clickHouse) {
      await client.end().catch(() => {});
      figures.push(...decideFigures(opts, db.url));
    }
    writeScaleResult(opts, facts, timings, figures, notes);
    return 0;
  } finally {
    await client.end().catch(() => {});
    await getPrisma().$disconnect();
    await clickHouse?.close();
    await db.stop();
  }
}

const round = (v: number) => Math.round(v * 10) / 10;

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench:scale: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
