import pg from "pg";
import { readFileSync } from "node:fs";
import { insertDecisions, type TDecisionRow } from "../lib/dataplane/decision-log/rows";
import { maintainPartitions } from "../lib/dataplane/decision-log/partitions";

const url = process.argv[2]!;
const pool = new pg.Pool({ connectionString: url, max: 2 });
function cpuOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10_000; // µs (100 Hz ticks)
}
let seq = 0;
function row(): TDecisionRow {
  const id = crypto.randomUUID();
  return { id, createdAt: Date.now(), operation: "SEND_SMS", region: "EU", requestId: `tc-${process.pid}-${seq++}`, policyVersion: "v1",
    shadowVersion: null, selectedProvider: "provider_A", reasonCode: "share_weighted", shadowPick: null, shadowAgrees: null,
    scoreMargin: 1.5, stale: true, metricAgeMs: null, fallbackAction: null, degraded: false,
    body: JSON.stringify({ decisionId: id, operation: "SEND_SMS", x: "y".repeat(380) }), durability: "sync", instanceId: "tc" };
}
const client = await pool.connect();
await maintainPartitions(pool, { now: Date.now(), daysAhead: 1, retentionDays: 3 });
const pid = (await client.query<{ p: number }>("select pg_backend_pid() as p")).rows[0]!.p;
for (const size of [1, 3, 10, 30, 100]) {
  const calls = Math.max(100, Math.round(3000 / size));
  for (let i = 0; i < 50; i++) await insertDecisions(client, Array.from({ length: size }, () => ({ row: row(), stored: null })));
  const c0 = cpuOf(pid); const t0 = performance.now();
  for (let i = 0; i < calls; i++) await insertDecisions(client, Array.from({ length: size }, () => ({ row: row(), stored: null })));
  const us = (performance.now() - t0) * 1000; const cpu = cpuOf(pid) - c0;
  console.log(`batch ${size}: wall ${(us / calls).toFixed(0)} µs/txn, backend CPU ${(cpu / calls).toFixed(0)} µs/txn = ${(cpu / calls / size).toFixed(1)} µs/row`);
}
client.release(); await pool.end();
