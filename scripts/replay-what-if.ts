/**
 * `npm run replay:what-if -- --operation SEND_SMS --from 2026-06-14T09:00Z --to 2026-06-14T10:00Z --factor-list draft.yaml [--json]`
 *
 * Replays a draft factor list over the recorded decisions and metric buckets of DATABASE_URL (or
 * the embedded database) and prints projected provider shares and success next to what happened,
 * how much of the range had recorded traffic, and the replayed decisions that would have gone to
 * a provider the operation's active factor list's compliance rules refuse.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import pg from "pg";
import { resolveDatabaseUrl } from "../lib/db/database-url";
import { loadRecordedTraffic } from "../lib/replay/load-recorded";
import { runWhatIf } from "../lib/replay/what-if";
import { parseFactorList } from "../router-core/policy/codec";

/** The operation's active factor list, whose compliance rules the replayed decisions are checked against. */
async function activePolicy(pool: pg.Pool, operation: string) {
  const { rows } = await pool.query<{ version: number; yaml: string }>(
    `SELECT v.version, v.yaml FROM operation_policy p JOIN factor_list_version v ON v.id = p.active_version_id WHERE p.operation_key = $1`,
    [operation],
  );
  const row = rows[0];
  const parsed = row ? parseFactorList(row.yaml) : null;
  return row && parsed?.ok ? { policy: parsed.value, version: `v${row.version}` } : undefined;
}

function date(name: string, v: string | undefined): Date {
  const d = new Date(v ?? "");
  if (v === undefined || Number.isNaN(d.getTime())) throw new Error(`--${name} must be an ISO date-time, got ${v ?? "nothing"}`);
  return d;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      operation: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      "factor-list": { type: "string" },
      seed: { type: "string", default: "1" },
      json: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (!values.operation) throw new Error("--operation is required");
  if (!values["factor-list"]) throw new Error("--factor-list is required");
  const parsed = parseFactorList(readFileSync(values["factor-list"], "utf8"));
  if (!parsed.ok) throw new Error(`--factor-list: ${parsed.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
  const from = date("from", values.from);
  const to = date("to", values.to);

  const db = await resolveDatabaseUrl();
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  try {
    const recorded = await loadRecordedTraffic(pool, values.operation, from, to, parsed.value.providers);
    const report = runWhatIf(recorded, parsed.value, { seed: Number(values.seed), active: await activePolicy(pool, values.operation) });
    if (values.json) {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return;
    }
    const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);
    console.log(`${report.operation} ${new Date(report.from).toISOString()} .. ${new Date(report.to).toISOString()}: ${report.requests} requests`);
    console.log(`success: recorded ${pct(report.actualSuccessRate)}, projected with the draft ${pct(report.projectedSuccessRate)}`);
    console.log("provider   recorded share   projected share");
    for (const p of report.providers) console.log(`${p.provider.padEnd(10)} ${pct(p.actualShare).padStart(14)}   ${pct(p.projectedShare).padStart(15)}`);
    const c = report.coverage;
    console.log(`coverage: ${c.recordedMinutes} min with recorded decisions of the ${c.askedMinutes} min asked`);
    for (const b of report.compliance?.breaches ?? []) {
      console.log(
        `compliance: ${b.region} ${b.provider}: ${b.decisions} of ${b.regionDecisions} replayed decisions refused by active ${report.compliance?.activeVersion}: ${b.reason}`,
      );
    }
    for (const a of report.assumed) console.log(`note: ${a.provider} in ${a.region} had no recorded traffic for ${a.minutes} min; assumed healthy there`);
  } finally {
    await pool.end();
    await db.stop();
  }
}

main().catch((err: unknown) => {
  console.error(`replay:what-if: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
