import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "@clickhouse/client";
import pg from "pg";
import { createScratchDatabase } from "../../lib/db/drift";
import { applyMigrations } from "../../lib/db/migrate";
import { uuidV7At } from "../../lib/dataplane/decision-id";
import { insertOutcomes, type TPendingOutcome } from "../../lib/dataplane/telemetry/outcomes";
import { createClickHouseOutcomes, outcomeTableDdl } from "../../lib/decision-store/clickhouse/outcomes";
import { startClickHouseShim } from "../../test/support/clickhouse-shim";
import { writeBenchResult } from "../lib/bench-results";

// Bytes per decision that outcomes cost in each store: the same outcomes (the scale seed's mix: a
// provider-call and a business outcome for 95% of decisions) written through each store's own
// path, Postgres's two tables measured with pg_total_relation_size (heap, TOAST, indexes),
// ClickHouse's outcome table with system.parts' bytes_on_disk after OPTIMIZE FINAL. Also the
// outcome bound's counts read in ClickHouse mode (one query per outcome batch's decisions).

const { values: args } = parseArgs({
  options: { decisions: { type: "string", default: "50000" }, "database-url": { type: "string" } },
});
const DECISIONS = Number(args.decisions);
const serverUrl = args["database-url"] ?? process.env.DATABASE_URL ?? "postgresql://root@127.0.0.1:5432/postgres";

function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** One day of decisions, as the outcome service hands their outcomes to a store. */
function outcomes(n: number): { items: TPendingOutcome[]; decisionIds: string[] } {
  const rnd = lcg(37);
  const start = Date.now() - 86_400_000;
  const providers = ["provider_A", "provider_B", "provider_C"];
  const items: TPendingOutcome[] = [];
  const decisionIds: string[] = [];
  for (let i = 0; i < n; i++) {
    const at = start + Math.floor((i / n) * 86_400_000);
    const decisionId = uuidV7At(at);
    decisionIds.push(decisionId);
    if (rnd() >= 0.95) continue;
    const provider = providers[Math.floor(rnd() * providers.length)]!;
    const decision = { operation: i % 2 ? "SEND_SMS" : "SEND_EMAIL", region: i % 3 ? "EU" : "NA", selected: provider, offered: providers };
    const reporter = { apiKeyId: "5f0c6a8e-1c1e-4a53-9a57-4d1b1f0e2a11", operations: null };
    const ok = rnd() < 0.97;
    const latencyMs = Math.round(80 + rnd() * 400);
    const callAt = at + latencyMs;
    items.push({
      id: uuidV7At(callAt),
      outcome: ok
        ? { type: "provider_call", decisionId, provider, status: "success", latencyMs, retryCount: 0, httpStatus: 200 }
        : { type: "provider_call", decisionId, provider, status: "failure", errorClass: "http_5xx", latencyMs, retryCount: 0, httpStatus: 503 },
      receivedAt: callAt,
      decision,
      applied: true,
      reporter,
    });
    const doneAt = callAt + Math.round(rnd() * 5_000);
    const completed = ok && rnd() < 0.98;
    items.push({
      id: uuidV7At(doneAt),
      outcome: completed
        ? { type: "business", decisionId, completed: true, withinSla: true }
        : { type: "business", decisionId, completed: false, failureStage: "provider_call", withinSla: false },
      receivedAt: doneAt,
      decision,
      applied: true,
      reporter,
    });
  }
  return { items, decisionIds };
}

async function main(): Promise<void> {
  const { items, decisionIds } = outcomes(DECISIONS);
  const scratch = await createScratchDatabase(serverUrl, "switchyard_outcome_bytes");
  const dir = await mkdtemp(path.join(tmpdir(), "sy-outcome-bytes-"));
  const shim = await startClickHouseShim({ path: path.join(dir, "engine") });
  const client = createClient({ url: shim.url });
  const pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
  try {
    await applyMigrations(scratch.url);
    for (let i = 0; i < items.length; i += 1_000) await insertOutcomes(pool, items.slice(i, i + 1_000));
    await pool.query("vacuum (analyze) provider_call_outcome, business_outcome");
    const { rows } = await pool.query<{ bytes: string }>(
      `select (pg_total_relation_size('provider_call_outcome') + pg_total_relation_size('business_outcome'))::bigint as bytes`,
    );
    const postgresBytes = Number(rows[0]!.bytes);

    await client.command({ query: outcomeTableDdl({ fullDays: 30, keepDays: 365, routineSampleBasisPoints: 100 }) });
    const store = createClickHouseOutcomes(client);
    for (let i = 0; i < items.length; i += 5_000) await store.insert(items.slice(i, i + 5_000));
    await client.command({ query: "OPTIMIZE TABLE outcome FINAL" });
    const rs = await client.query({
      query: "SELECT sum(bytes_on_disk) AS bytes, sum(rows) AS rows FROM system.parts WHERE active AND database = currentDatabase() AND table = 'outcome'",
      format: "JSONEachRow",
    });
    const [parts] = await rs.json<{ bytes: string; rows: string }>();
    const clickHouseBytes = Number(parts!.bytes);

    // The bound's counts for an outcome batch of 100 decisions, as outcome validation reads them in ClickHouse mode.
    const timings: number[] = [];
    for (let k = 0; k < 50; k++) {
      const ids = Array.from({ length: 100 }, () => decisionIds[Math.floor(Math.random() * decisionIds.length)]!);
      const t = performance.now();
      await store.counts(ids);
      timings.push(performance.now() - t);
    }
    timings.sort((a, b) => a - b);

    const figures = [
      {
        label: "Postgres: outcome bytes per decision (provider_call_outcome + business_outcome, with indexes)",
        value: Math.round(postgresBytes / DECISIONS),
        unit: "B",
      },
      {
        label: "ClickHouse: outcome bytes per decision (outcome table, bytes_on_disk after OPTIMIZE FINAL)",
        value: Math.round(clickHouseBytes / DECISIONS),
        unit: "B",
      },
      { label: "ClickHouse: outcome rows stored", value: Number(parts!.rows), unit: "rows" },
      { label: "ClickHouse: stored counts for 100 decisions (outcome bound), p50", value: Math.round(timings[25]! * 10) / 10, unit: "ms" },
      { label: "ClickHouse: stored counts for 100 decisions (outcome bound), p95", value: Math.round(timings[47]! * 10) / 10, unit: "ms" },
    ];
    for (const f of figures) console.log(`${f.label}: ${f.value} ${f.unit}`);
    writeBenchResult({
      name: "outcome-bytes",
      title: "Outcome bytes per decision in each store",
      command: `tsx bench/decision-store/outcome-bytes.ts --decisions ${DECISIONS}`,
      parameters: { decisions: DECISIONS, outcomes: items.length },
      figures,
      notes: [
        "The scale seed's mix: a provider-call and a business outcome for 95% of decisions, 3% of calls failed, over one day.",
        "ClickHouse is chdb embedded behind the HTTP shim in this process; the counts' timings include its HTTP round trip on a shared machine.",
      ],
    });
  } finally {
    await pool.end();
    await client.close();
    await shim.close();
    await scratch.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
