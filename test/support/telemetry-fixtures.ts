import type pg from "pg";
import { createPool } from "../../lib/dataplane/pool";
import { parseFactorList, type TFactorListInput } from "../../router-core/index";
import { createPrisma, type PrismaClient } from "../../lib/db/client";
import { demoSmsPolicyYaml, seedDemo } from "../../lib/demo/seed-demo";
import { createTestDatabase, type TTestDatabase } from "./database";
import { decisionIdAt } from "../../lib/dataplane/decision-id";
import { maintainPartitions } from "../../lib/dataplane/decision-log/partitions";
import { loadConfig } from "../../lib/dataplane/load-config";
import { createRoutingState, type RoutingState } from "../../lib/dataplane/routing-state";

/**
 * A migrated test database with the demo catalogue and SEND_SMS policy (optionally with some
 * fields changed, e.g. a smaller min_sample_size so tests need fewer outcomes), and today's
 * decision-log partition.
 */
export async function createTelemetryDatabase(policy: Partial<TFactorListInput> = {}): Promise<{
  db: TTestDatabase;
  prisma: PrismaClient;
  pool: pg.Pool;
  close(): Promise<void>;
}> {
  const db = await createTestDatabase();
  const prisma = createPrisma(db.url);
  await seedDemo(prisma);
  if (Object.keys(policy).length > 0) await setPolicy(prisma, policy);
  const pool = createPool({ connectionString: db.url, max: 4 });
  await maintainPartitions(pool, { now: Date.now(), daysAhead: 1, retentionDays: 0 });
  return {
    db,
    prisma,
    pool,
    close: async () => {
      await pool.end();
      await prisma.$disconnect();
      await db.drop();
    },
  };
}

/** Replaces SEND_SMS's active document in place (the loader keys by version, so bump it). */
export async function setPolicy(prisma: PrismaClient, changes: Partial<TFactorListInput>): Promise<void> {
  const base = parseFactorList(demoSmsPolicyYaml());
  if (!base.ok) throw new Error("demo policy does not parse");
  const parsed = parseFactorList(JSON.stringify({ ...base.value, ...changes, max_metric_age_seconds: undefined }));
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => `${e.path}: ${e.message}`).join("; "));
  const pointer = await prisma.operationPolicy.findUniqueOrThrow({ where: { operationKey: "SEND_SMS" } });
  await prisma.factorListVersion.update({
    where: { id: pointer.activeVersionId! },
    data: { document: parsed.value, version: { increment: 100 } },
  });
}

export async function loadedState(prisma: PrismaClient): Promise<RoutingState> {
  const state = createRoutingState();
  await loadConfig(prisma, state);
  return state;
}

/** A logged decision row, as the decide path would have written it. */
export async function insertDecision(pool: pg.Pool, d: { operation?: string; region: string; selected: string | null; at?: number }): Promise<string> {
  const at = d.at ?? Date.now();
  const id = decisionIdAt(at);
  await pool.query(
    `insert into decision (id, created_at, operation, region, request_id, selected_provider, reason_code, stale, record, durability, instance_id)
     values ($1, $2, $3, $4, $5, $6, 'test', false, '{}'::jsonb, 'sync', 'test')`,
    [id, new Date(at), d.operation ?? "SEND_SMS", d.region, `req-${id}`, d.selected],
  );
  return id;
}

/** Polls `check` until it returns true or `timeoutMs` passes; returns the elapsed ms. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, stepMs = 10): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    if (await check()) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
