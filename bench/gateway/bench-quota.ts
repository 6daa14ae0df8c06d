import pg from "pg";
import { parseArgs } from "node:util";
import { createScratchDatabase, type TScratchDatabase } from "../../lib/db/drift";
import { applyMigrations } from "../../lib/db/migrate";
import type { TEmbeddedDatabase } from "../../lib/db/embedded";
import { createClusterQuota } from "../../lib/dataplane/quota/cluster-quota";
import { startThrowawayCluster } from "../../test/support/throwaway-cluster";
import { decisionDriver } from "../core/fixture";
import { writeBenchResult } from "../lib/bench-results";

// `npm run bench:quota -- [--decisions 1000000] [--runs 5]`: what a cluster call quota adds to a
// decision. Each decision routed to a provider spends one call of its quota in process
// (lib/dataplane/quota/cluster-quota.ts; leases go to Postgres in the background). Three cases,
// interleaved run by run so the machine's drift hits each alike: router-core's decide alone (the
// reference, bench/core's 3-candidate workload); decide plus the spend for a provider with a
// requests quota and a tokens quota; decide plus the spend for a provider without one (what every
// decision pays since quotas are counted); the added cost is the median of the per-run
// differences. The loop yields every 10,000 decisions, so leases
// complete as they would between requests.

const { values } = parseArgs({ options: { decisions: { type: "string" }, runs: { type: "string" } } });
const DECISIONS = Number(values.decisions ?? 1_000_000);
const RUNS = Number(values.runs ?? 5);
const YIELD_EVERY = 10_000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

type TCase = "decide" | "decide + quota spend" | "decide + spend, no quota";

async function timeRun(decide: () => number, spend: (() => void) | null): Promise<number> {
  let sink = 0;
  const t0 = performance.now();
  for (let i = 0; i < DECISIONS; i++) {
    sink += decide();
    if (spend) spend();
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((r) => setImmediate(r));
  }
  const ns = ((performance.now() - t0) * 1e6) / DECISIONS;
  if (sink === 0) throw new Error("no decision selected a provider");
  return ns;
}

async function main(): Promise<void> {
  let cluster: TEmbeddedDatabase | null = null;
  let scratch: TScratchDatabase | null = null;
  let pool: pg.Pool | null = null;
  try {
    const admin = process.env.DATABASE_URL ?? (cluster = await startThrowawayCluster()).adminUrl;
    scratch = await createScratchDatabase(admin, "switchyard_bench_quota");
    await applyMigrations(scratch.url);
    pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
    let exhausted = 0;
    const quota = createClusterQuota({ pool, instanceId: "bench", publish: (views) => (exhausted += Object.keys(views).length) });
    // Large enough never to run out within the run: the steady state, not the exhausted one.
    quota.configure(
      new Map([
        [
          "provider_0",
          [
            { unit: "requests", windowSeconds: 3_600, limit: 1_000_000_000 },
            { unit: "tokens", windowSeconds: 86_400, limit: 1_000_000_000 },
          ],
        ],
      ]),
    );
    for (let i = 0; i < 200 && quota.status().leases < 2; i++) await new Promise((r) => setTimeout(r, 10));

    const cases: Array<[TCase, (() => void) | null]> = [
      ["decide", null],
      ["decide + quota spend", () => quota.consume("provider_0")],
      ["decide + spend, no quota", () => quota.consume("provider_without_quota")],
    ];
    const perCase = new Map<TCase, number[]>(cases.map(([c]) => [c, []]));
    // One warm-up pass of every case, then RUNS interleaved passes.
    for (const [, spend] of cases) await timeRun(decisionDriver(3), spend);
    for (let r = 0; r < RUNS; r++) {
      for (const [name, spend] of cases) perCase.get(name)!.push(await timeRun(decisionDriver(3), spend));
    }
    const m = (c: TCase) => median(perCase.get(c)!);
    // Paired per run: the machine drifts between runs more than the spend costs.
    const added = (c: TCase) => median(perCase.get(c)!.map((x, r) => x - perCase.get("decide")![r]!));
    const base = m("decide");
    const withQuota = m("decide + quota spend");
    const without = m("decide + spend, no quota");
    const addedQuota = added("decide + quota spend");
    const addedLookup = added("decide + spend, no quota");
    const leases = quota.status().leases;
    for (const [name] of cases)
      console.log(
        `${name}: median ${round(m(name))} ns per decision (runs: ${perCase
          .get(name)!
          .map((x) => round(x))
          .join(", ")})`,
      );
    console.log(
      `quota spend adds ${round(addedQuota)} ns (${round((addedQuota / base) * 100)}% of a decide); no quota: ${round(addedLookup)} ns; leases ${leases}`,
    );

    const file = writeBenchResult({
      name: "quota",
      title: "What a cluster call quota adds to a decision",
      command: `npm run bench:quota -- --decisions ${DECISIONS} --runs ${RUNS}`,
      parameters: {
        decisions: DECISIONS,
        runs: RUNS,
        candidates: 3,
        yieldEvery: YIELD_EVERY,
        database: process.env.DATABASE_URL ? "DATABASE_URL" : "embedded throwaway",
      },
      figures: [
        { label: "reference: router-core decide, 3 candidates", value: round(base), unit: "ns/decision" },
        { label: "decide + spend of a provider with a requests and a tokens quota", value: round(withQuota), unit: "ns/decision" },
        { label: "decide + spend for a provider without a quota", value: round(without), unit: "ns/decision" },
        { label: "added by the quota spend (median of per-run differences)", value: round(addedQuota), unit: "ns/decision" },
        { label: "added by the spend lookup without a quota (same)", value: round(addedLookup), unit: "ns/decision" },
      ],
      invariants: [
        { label: "the quota never ran out (steady state measured)", ok: exhausted === 0, detail: `${exhausted} exhausted views published` },
        { label: "leases went to Postgres", ok: leases >= 1, detail: `${leases} leases` },
      ],
      notes: [
        "Medians of interleaved runs; the added cost is the median of each run's difference to the decide run just before it. A decision's spend is synchronous; its leases are background queries.",
      ],
    });
    console.log(`bench:quota: wrote ${file}`);
    if (exhausted !== 0 || leases < 1) process.exitCode = 1;
  } finally {
    await pool?.end();
    await scratch?.drop();
    await cluster?.stop();
  }
}

void main();
