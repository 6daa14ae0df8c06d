import type { TQueryable } from "../db";
import { createPool } from "./pool";
import { registerEndpoint } from "../edge";

registerEndpoint({
  method: "get",
  path: "/api/v1/health",
  summary: "Status for load balancers; with a metrics key, version, uptime, database, migrations and each subsystem's state",
  description:
    "Without credentials only {status} (ok, or degraded: e.g. Postgres unreachable while decide answers from cache), always 200. " +
    "With a key holding the metrics scope (keyless in the embedded demo) the whole report; a wrong key or one without the scope is refused (401/403).",
  tags: ["meta"],
  authenticated: false,
  responses: { 200: { description: "Serving: {status} alone without a key, the whole report with a metrics key" } },
});

export type THealthDeps = {
  version: string;
  startedAt: number;
  databaseUrl: string;
  embeddedDatabase: boolean;
  migrationStatus: (db: TQueryable) => Promise<{ applied: string[]; pending: string[] }>;
};

export type THealth = {
  status: "ok" | "degraded";
  version: string;
  uptimeSeconds: number;
  database: { status: "up" | "down"; embedded: boolean; latencyMs: number | null; error?: string };
  migrations: { applied: number; pending: string[]; latest: string | null } | null;
};

/** Health probe with its own short-lived pool, so a saturated app pool cannot hide a live database. */
export function createHealthCheck(deps: THealthDeps): () => Promise<THealth> {
  const pool = createPool({ connectionString: deps.databaseUrl, max: 2, connectionTimeoutMillis: 2_000, idleTimeoutMillis: 10_000 });
  return async () => {
    const uptimeSeconds = Math.round((Date.now() - deps.startedAt) / 1000);
    const t0 = performance.now();
    try {
      await pool.query("select 1");
      const latencyMs = Math.round((performance.now() - t0) * 100) / 100;
      // On the probe's pool: given the URL, it opened a connection of its own per probe, about
      // 100 ms on a busy 2-core machine (a Postgres backend started and ended for each /health).
      const m = await deps.migrationStatus(pool);
      return {
        status: m.pending.length === 0 ? "ok" : "degraded",
        version: deps.version,
        uptimeSeconds,
        database: { status: "up", embedded: deps.embeddedDatabase, latencyMs },
        migrations: { applied: m.applied.length, pending: m.pending, latest: m.applied.at(-1) ?? null },
      };
    } catch (err) {
      return {
        status: "degraded",
        version: deps.version,
        uptimeSeconds,
        database: { status: "down", embedded: deps.embeddedDatabase, latencyMs: null, error: (err as Error).message },
        migrations: null,
      };
    }
  };
}
