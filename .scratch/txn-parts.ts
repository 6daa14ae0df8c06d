import pg from "pg";
import { readFileSync } from "node:fs";
const url = process.argv[2]!;
const client = new pg.Client({ connectionString: url }); await client.connect();
function cpuOf(pid: number): number { const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" "); return (Number(f[11]) + Number(f[12])) * 10_000; }
const pid = (await client.query<{ p: number }>("select pg_backend_pid() as p")).rows[0]!.p;
let n = 0;
async function time(label: string, q: () => Promise<unknown>, calls = 2000) {
  for (let i = 0; i < 100; i++) await q();
  const c0 = cpuOf(pid); const t0 = performance.now();
  for (let i = 0; i < calls; i++) await q();
  console.log(`${label}: wall ${((performance.now() - t0) * 1000 / calls).toFixed(0)} µs, backend CPU ${((cpuOf(pid) - c0) / calls).toFixed(0)} µs`);
}
await client.query("create table if not exists tc_plain (id bigint primary key, at timestamptz, t text)");
await time("select 1", () => client.query({ name: "s1", text: "select 1" }));
await time("insert 1 row plain table (commit, fsync)", () => client.query({ name: "i1", text: "insert into tc_plain values ($1, now(), 'x')", values: [n++] }));
await time("advisory lock xact", () => client.query({ name: "a1", text: "select pg_advisory_xact_lock(hashtextextended($1, 0))", values: [`k${n++}`] }));
await time("insert into partitioned decision 1 row", () => client.query({ name: "d1", text: `insert into decision (id, created_at, operation, region, request_id, reason_code, stale, degraded, record, durability, instance_id) values (gen_random_uuid(), now(), 'SEND_SMS', 'EU', $1, 'r', true, false, '{}', 'sync', 'x')`, values: [`p${n++}`] }));
await time("probe lateral", () => client.query({ name: "p1", text: `select d.id from decision d where d.operation = 'SEND_SMS' and d.request_id = $1 and d.created_at between now() - interval '5 min' and now() + interval '1 min' order by d.operation, d.request_id, d.created_at limit 1`, values: [`q${n++}`] }));
await client.end();
