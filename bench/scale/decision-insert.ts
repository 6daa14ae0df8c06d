import pg from "pg";
import type { TDecisionRow } from "../../lib/dataplane/decision-log/rows";

/**
 * Bulk insert of simulated decisions whose records come from a few templates: the client sends
 * each template once (its columns and its body split around the per-row values) and per row only
 * id, time, request id and template number; Postgres assembles each record. That keeps 4–5 KB
 * records off the wire and out of a JSON batch parse, which made the seed several times slower
 * than the write itself (no COPY client is installed; this is INSERT … SELECT FROM unnest()).
 *
 * The columns follow the decision log's row type (lib/dataplane/decision-log/rows.ts,
 * TDecisionRow): FIELDS names the column and SQL type of every field, and `satisfies` makes a
 * field added to or removed from TDecisionRow a compile error here. checkDecisionColumns compares
 * the mapping with the live table before a run.
 */

/** Fields that differ per row; the record (body) is assembled from the template around them. */
type TPerRow = "id" | "createdAt" | "requestId" | "body";
/** `counted` is no column (it steers the decision log's rollup); the seed adds its rollups after the load. */
export type TTemplateFields = Omit<TDecisionRow, TPerRow | "counted">;

const PER_ROW = { id: "id", createdAt: "created_at", requestId: "request_id", body: "record" } as const satisfies Record<TPerRow, string>;

const FIELDS = {
  operation: ["operation", "text"],
  region: ["region", "text"],
  policyVersion: ["policy_version", "text"],
  shadowVersion: ["shadow_version", "text"],
  selectedProvider: ["selected_provider", "text"],
  reasonCode: ["reason_code", "text"],
  shadowPick: ["shadow_pick", "text"],
  shadowAgrees: ["shadow_agrees", "bool"],
  scoreMargin: ["score_margin", "float8"],
  stale: ["stale", "bool"],
  metricAgeMs: ["metric_age_ms", "int"],
  fallbackAction: ["fallback_action", "text"],
  degraded: ["degraded", "bool"],
  durability: ["durability", "text"],
  instanceId: ["instance_id", "text"],
  apiKeyId: ["api_key_id", "text"],
  offeredProviders: ["offered_providers", "text"],
  source: ["source", "text"],
} as const satisfies Record<keyof TTemplateFields, readonly [string, string]>;

const FIELD_KEYS = Object.keys(FIELDS) as (keyof TTemplateFields)[];

/** The record of a template split around its per-row values: decisionId, id, at, requestId (in that order). */
export type TBodyParts = readonly [string, string, string, string, string];

export type TDecisionTemplate = { key: number; fields: TTemplateFields; parts: TBodyParts };
export type TCompactDecision = { id: string; at: number; requestId: string; template: number };

const insertInto = (
  table: string,
) => `insert into ${pg.escapeIdentifier(table)} (${[PER_ROW.id, PER_ROW.createdAt, PER_ROW.requestId, PER_ROW.body, ...FIELD_KEYS.map((k) => FIELDS[k][0])].join(", ")})
  select r.id, to_timestamp(r.at / 1000.0), r.rq, (t.p0 || r.id::text || t.p1 || r.id::text || t.p2 || r.at::text || t.p3 || r.rq || t.p4)::json,
         ${FIELD_KEYS.map((k) => `t.${FIELDS[k][0]}`).join(", ")}
    from unnest($1::uuid[], $2::int8[], $3::text[], $4::int4[]) as r(id, at, rq, k)
    join json_to_recordset($5::json) as t(k int, p0 text, p1 text, p2 text, p3 text, p4 text, ${FIELD_KEYS.map((k) => `${FIELDS[k][0]} ${FIELDS[k][1]}`).join(", ")})
      on t.k = r.k`;

/** Inserts into `table`: the decision log itself, or one of its daily partitions while detached for a bulk load. */
export async function insertTemplatedDecisions(
  client: pg.PoolClient,
  table: string,
  templates: readonly TDecisionTemplate[],
  rows: readonly TCompactDecision[],
): Promise<void> {
  if (rows.length === 0) return;
  const t = templates.map((x) => {
    const o: Record<string, unknown> = { k: x.key, p0: x.parts[0], p1: x.parts[1], p2: x.parts[2], p3: x.parts[3], p4: x.parts[4] };
    for (const k of FIELD_KEYS) o[FIELDS[k][0]] = x.fields[k];
    return o;
  });
  await client.query(insertInto(table), [
    rows.map((r) => r.id),
    rows.map((r) => r.at),
    rows.map((r) => r.requestId),
    rows.map((r) => r.template),
    JSON.stringify(t),
  ]);
}

/**
 * Refuses to seed when the live table and the row type disagree: a mapped column the table lacks,
 * or a required table column (NOT NULL, no default) the row type does not carry.
 */
export async function checkDecisionColumns(client: pg.Pool | pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ column_name: string; is_nullable: string; column_default: string | null }>(
    `select column_name, is_nullable, column_default from information_schema.columns where table_schema = current_schema() and table_name = 'decision'`,
  );
  const table = new Map(rows.map((r) => [r.column_name, r]));
  const mapped = new Set<string>([...Object.values(PER_ROW), ...FIELD_KEYS.map((k) => FIELDS[k][0])]);
  const missing = [...mapped].filter((c) => !table.has(c));
  const unfilled = rows.filter((r) => !mapped.has(r.column_name) && r.is_nullable === "NO" && r.column_default === null).map((r) => r.column_name);
  if (missing.length > 0 || unfilled.length > 0) {
    throw new Error(
      `the decision table and the decision log's row type (TDecisionRow) disagree: ` +
        [
          missing.length > 0 ? `columns not in the table: ${missing.join(", ")}` : "",
          unfilled.length > 0 ? `required columns not in TDecisionRow: ${unfilled.join(", ")}` : "",
        ]
          .filter(Boolean)
          .join("; "),
    );
  }
}
