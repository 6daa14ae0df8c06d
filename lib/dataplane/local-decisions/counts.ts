import type pg from "pg";
import { z } from "zod";
import { REASON_CODES } from "../../../router-core/index";
import { type TPrincipal, sendJson, registerEndpoint, ZErrorBody, type TRoute } from "../../edge";
import { addRollupDeltas, type TRollupDelta } from "../decision-log/rollup";
import { isUnavailable } from "../decision-log/postgres-errors";
import { invalid } from "../../http";
import { readReport } from "./read-report";
import type { createLocalDecisionValidator } from "./validate";

export const MAX_COUNT_ITEMS = 5_000;
/** Decisions one count cell, and one report, may add: far above what a client decides in a flush interval, and bounded. */
export const MAX_COUNT_PER_ITEM = 1_000_000;
export const MAX_COUNT_PER_REPORT = 5_000_000;
const MAX_BODY_BYTES = 2 * 1024 * 1024;
const MINUTE_MS = 60_000;
/** How far a report's minutes may lie from the server's now (a client's buffer, its clock). */
const MAX_AGE_MS = 7 * 86_400_000;
const MAX_AHEAD_MS = 5 * 60_000;

const ZLocalCount = z.strictObject({
  /** The minute's start, epoch ms. */
  minute: z
    .number()
    .int()
    .refine((m) => m % MINUTE_MS === 0, "minute must be the start of a minute in epoch ms"),
  operation: z.string().min(1).max(128),
  region: z.string().min(1).max(64),
  selected: z.string().min(1).max(200).nullable(),
  /** router-core's reason code, or fail_static. */
  reasonCode: z.enum([...REASON_CODES, "fail_static"]),
  policyVersion: z.string().max(200).nullable(),
  shadow: z.enum(["agree", "disagree", "none"]),
  /** The shadow policy's pick (absent or null: none). */
  shadowPick: z.string().min(1).max(200).nullable().optional(),
  stale: z.boolean(),
  degraded: z.boolean(),
  source: z.enum(["local", "fail_static"]),
  count: z.number().int().min(1).max(MAX_COUNT_PER_ITEM),
});

export const ZLocalCountReport = z.strictObject({
  /** The reporting client's id for its lifetime (one per process), with batchId the report's idempotency key. */
  clientInstance: z.string().min(1).max(100),
  batchId: z.string().min(1).max(100),
  counts: z.array(ZLocalCount).min(1).max(MAX_COUNT_ITEMS),
});
export type TLocalCountReport = z.infer<typeof ZLocalCountReport>;

registerEndpoint({
  method: "post",
  path: "/api/v1/decisions/counts",
  summary: "Count the decisions a client made itself, every one of them",
  description:
    "Exact per-minute counts of a client's local and fail-static decisions by the decision rollup's dimensions (operation, region, " +
    "selected provider, reason code, policy version, shadow agreement, stale, degraded, source), added to the console's counts. " +
    "Full records go to /decisions/batch: every non-routine one, and a sample of routine ones with their sampleRate. Idempotent per " +
    "(clientInstance, minute, batchId): a report sent again adds nothing. The whole report is refused (422, fields naming the item) " +
    `when an item names an operation the key may not use, an unknown region, provider or policy version, a minute more than 7 days ` +
    `ago or 5 minutes ahead, or when its counts add up to more than ${MAX_COUNT_PER_REPORT}. 503 with Retry-After while the database ` +
    "is unreachable: send the same report again.",
  tags: ["decisions"],
  request: ZLocalCountReport,
  responses: {
    200: { description: "{counted: decisions added, duplicate: true when this report had been counted already}" },
    400: { description: "Invalid body (names the field)", schema: ZErrorBody },
    401: { description: "Missing or invalid API key", schema: ZErrorBody },
    422: { description: "An item the key may not report, or out of bounds (names the field)", schema: ZErrorBody },
    503: { description: "The database is unreachable (Retry-After); the report was not counted", schema: ZErrorBody },
  },
});

type TValidator = ReturnType<typeof createLocalDecisionValidator>;

/** The report's cells, or the refusal naming the first item that may not be counted. */
function checkReport(
  report: TLocalCountReport,
  principal: TPrincipal,
  validate: TValidator,
  knownProvider: (key: string) => boolean,
  now: number,
): TRollupDelta[] {
  let total = 0;
  const deltas = report.counts.map((c, i): TRollupDelta => {
    const refused = validate({ operation: c.operation, region: c.region, selected: c.selected, policyVersion: c.policyVersion }, i, principal, "counts", true);
    if (refused) throw invalid(refused.error.fields ?? [], refused.error.message);
    if (c.minute < now - MAX_AGE_MS || c.minute > now + MAX_AHEAD_MS)
      throw invalid([{ path: `counts.${i}.minute`, message: "the minute is more than 7 days ago or 5 minutes ahead" }]);
    if (c.shadowPick != null && !knownProvider(c.shadowPick))
      throw invalid([{ path: `counts.${i}.shadowPick`, message: `unknown provider "${c.shadowPick}"` }]);
    if (c.source === "fail_static" && c.reasonCode !== "fail_static")
      throw invalid([{ path: `counts.${i}.reasonCode`, message: "a fail_static decision's reason code is fail_static" }]);
    total += c.count;
    return {
      minute: c.minute,
      operation: c.operation,
      region: c.region,
      selectedProvider: c.selected ?? "",
      reasonCode: c.reasonCode,
      policyVersion: c.policyVersion ?? "",
      shadow: c.shadow,
      stale: c.stale,
      degraded: c.degraded,
      source: c.source,
      shadowPick: c.shadowPick ?? "",
      count: c.count,
    };
  });
  if (total > MAX_COUNT_PER_REPORT) throw invalid([{ path: "counts", message: `the counts add up to ${total}, more than ${MAX_COUNT_PER_REPORT} per report` }]);
  return deltas;
}

/**
 * Adds a report's cells in one transaction, once: each of its minutes claims (clientInstance,
 * minute, batchId) in local_count_report, and only the cells of minutes claimed now are added. A
 * report is sent again whole, so either every minute is new or none is.
 */
async function countOnce(pool: pg.Pool, report: TLocalCountReport, principal: TPrincipal, deltas: TRollupDelta[]): Promise<number> {
  const perMinute = new Map<number, number>();
  for (const d of deltas) perMinute.set(d.minute, (perMinute.get(d.minute) ?? 0) + d.count);
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query("begin");
    const { rows } = await client.query<{ minute: Date }>(
      `insert into local_count_report (client_instance, minute, batch_id, api_key_id, count)
       select $1, to_timestamp(m / 1000.0), $2, $3, n from unnest($4::int8[], $5::int8[]) as t(m, n) order by m
       on conflict do nothing returning minute`,
      [report.clientInstance, report.batchId, principal.id, [...perMinute.keys()], [...perMinute.values()]],
    );
    const fresh = new Set(rows.map((r) => r.minute.getTime()));
    const added = deltas.filter((d) => fresh.has(d.minute));
    await addRollupDeltas(client, added);
    await client.query("commit");
    return added.reduce((s, d) => s + d.count, 0);
  } catch (err) {
    broken = isUnavailable(err);
    await client.query("rollback").catch(() => {});
    throw err;
  } finally {
    client.release(broken);
  }
}

/**
 * POST /api/v1/decisions/counts: a client's exact counts of the decisions it made itself. Counts
 * are untrusted input: each cell is validated like a reported decision (the key's own operations,
 * known regions, providers and policy versions), bounded, and counted once per report. Each
 * counted decision with a provider spends that provider's call quota, as a reported one does.
 */
export function createLocalCountRoute(deps: {
  pool: pg.Pool;
  validate: TValidator;
  /** Whether the catalogue has this provider (a shadow pick may be one the active policy does not name). */
  knownProvider: (key: string) => boolean;
  now?: () => number;
  spendQuota?: (provider: string, at: number, calls: number) => void;
}): TRoute {
  const now = deps.now ?? Date.now;
  return {
    method: "POST",
    path: "/api/v1/decisions/counts",
    handler: async (req, res) => {
      const report = await readReport(req, res, ZLocalCountReport, MAX_BODY_BYTES);
      if (!report) return;
      const { auth, data } = report;
      const deltas = checkReport(data, auth.principal, deps.validate, deps.knownProvider, now());
      let counted: number;
      try {
        counted = await countOnce(deps.pool, data, auth.principal, deltas);
      } catch (err) {
        if (!isUnavailable(err)) throw err;
        sendJson(
          res,
          503,
          { error: { code: "decision_log_unavailable", message: "the database is unreachable; send the same report again" } },
          { "retry-after": "1" },
        );
        return;
      }
      if (counted > 0 && deps.spendQuota) {
        // At the minute's last instant at most: a quota window is counted only while it is current.
        const at = now();
        for (const d of deltas) if (d.selectedProvider !== "") deps.spendQuota(d.selectedProvider, Math.min(at, d.minute + MINUTE_MS - 1), d.count);
      }
      sendJson(res, 200, { counted, duplicate: counted === 0 });
    },
  };
}
