import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { withScratchDatabase } from "../../lib/db/drift";
import { applyMigrations } from "../../lib/db/migrate";
import { uuidV7At } from "../../lib/dataplane/decision-id";
import { maintainPartitions } from "../../lib/dataplane/decision-log/partitions";
import { createListMemory, insertDecisions, type TDecisionWrite } from "../../lib/dataplane/decision-log/rows";
import { benchPostgresServer } from "../lib/bench-postgres";
import { postgresServerPid, processCpuSeconds, processTreeCpuSeconds } from "../lib/process-cpu";

/**
 * `npx tsx bench/api/row-cost.ts [--batch 10] [--transactions 2000] [--rounds 3] [--variants ...] [--record-chars 705]`:
 * what one decision row costs Postgres, and which part of the row's work costs what. Each variant
 * is a scratch database with every migration applied and then one thing taken away (below); one
 * client writes batches of decide-like rows through the product's insertDecisions, one statement
 * per batch as the decision log sends it, and the backend's and the whole server's CPU per row
 * are read from /proc. Variants run in a rotated order each round, each on a new database. The
 * variants are experiments on the schema, not settings of the product. Findings: README.md.
 */

type TVariant = { what: string; apply(client: pg.Client): Promise<void> };

/** Rewrites decision_log_insert_rolled, the group commit's function, with `edit`. */
async function editInsertFunction(client: pg.Client, edit: (def: string) => string): Promise<void> {
  const { rows } = await client.query<{ def: string }>("select pg_get_functiondef('decision_log_insert_rolled'::regproc) as def");
  const before = rows[0]!.def;
  const after = edit(before);
  if (after === before) throw new Error("the insert function no longer has the text this variant edits");
  await client.query(after);
}

const VARIANTS: Record<string, TVariant> = {
  base: { what: "the schema as migrated", apply: async () => {} },
  "no-console-indexes": {
    what: "without decision's four full indexes for the console (created_at; operation, region, created_at, selected_provider; selected_provider; reason_code)",
    apply: async (client) => {
      const { rows } = await client.query<{ name: string }>(
        `select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid
          where i.indrelid = 'decision'::regclass and not i.indisprimary and i.indpred is null
            and pg_get_indexdef(i.indexrelid) not like '%(operation, request_id, created_at)%'`,
      );
      if (rows.length !== 4) throw new Error(`expected four console indexes on decision, found ${rows.map((r) => r.name).join(", ")}`);
      for (const r of rows) await client.query(`drop index ${pg.escapeIdentifier(r.name)}`);
    },
  },
  "no-lock": {
    what: "without the per-request advisory lock that serialises two instances' rows for one requestId",
    apply: (client) => editInsertFunction(client, (def) => def.replace(/PERFORM pg_advisory_xact_lock[\s\S]*?ORDER BY 1\) s;/, "")),
  },
  "no-probe": {
    what: "without the idempotency probe (the index lookup for an earlier decision on the same requestId)",
    apply: (client) => editInsertFunction(client, (def) => def.replace("AND d.created_at BETWEEN lo AND hi", "AND d.created_at BETWEEN lo AND hi AND false")),
  },
  "text-record": {
    what: "the record stored as text, without json's input check",
    apply: async (client) => {
      await client.query("alter table decision alter column record type text");
      await editInsertFunction(client, (def) =>
        def.replace("t.record::json", "t.record").replace("decision_record_text(d.record,", "decision_record_text(d.record::json,"),
      );
    },
  },
};

/**
 * A record like decide's stored one (`"candidates":null`; the list is stored once beside it),
 * padded to `chars` characters (decide's are about 705) where it is shorter.
 */
function storedText(id: string, requestId: string, at: number, chars: number): string {
  const record = {
    decisionId: id,
    id,
    at,
    operation: "SEND_SMS",
    region: "EU",
    requestId,
    policyVersion: "send-sms@v3",
    strategy: "weighted",
    selected: "provider_A",
    reasonCode: "HIGHEST_SCORE",
    override: "none",
    candidates: null,
    scoreMargin: 0.1234,
    metricAgeSeconds: 1.25,
    stale: false,
    fallback: null,
    shadow: null,
    degraded: false,
    stateAgeMs: 12,
    attributesDigest: "9f2c".repeat(16),
    note: "",
  };
  record.note = "x".repeat(Math.max(0, chars - JSON.stringify(record).length));
  return JSON.stringify(record);
}

const CANDIDATES = JSON.stringify(
  ["provider_A", "provider_B", "provider_C"].map((provider, i) => ({
    provider,
    eligible: true,
    gates: [{ gate: "region", passed: true }],
    score: 0.5 + i / 10,
    share: 1 / 3,
    selectionProbability: 1 / 3,
    factors: [{ factor: "latency_p95_ms", value: 120 + i, normalized: 0.4, weight: 0.3, contribution: 0.12 }],
  })),
);

function batch(size: number, recordChars: number, next: () => number, listId: string): TDecisionWrite[] {
  const writes: TDecisionWrite[] = [];
  for (let i = 0; i < size; i++) {
    const at = Date.now();
    const id = uuidV7At(at);
    const requestId = `row-cost-${next()}`;
    writes.push({
      row: {
        id,
        createdAt: at,
        operation: "SEND_SMS",
        region: i % 2 ? "EU" : "US",
        requestId,
        policyVersion: "send-sms@v3",
        shadowVersion: null,
        selectedProvider: "provider_A",
        reasonCode: "HIGHEST_SCORE",
        shadowPick: null,
        shadowAgrees: null,
        scoreMargin: 0.1234,
        stale: false,
        metricAgeMs: 1250,
        fallbackAction: null,
        degraded: false,
        body: "",
        durability: "sync",
        instanceId: "row-cost",
        apiKeyId: "env:SWITCHYARD_API_KEY",
        offeredProviders: "provider_A,provider_B,provider_C",
        source: "server",
      },
      stored: { text: storedText(id, requestId, at, recordChars), list: { id: listId, json: CANDIDATES } },
    });
  }
  return writes;
}

/** CPU µs per row of the backend and of the whole Postgres server over `transactions` batches, after 200 unmeasured. */
async function measure(
  url: string,
  serverPid: number | null,
  size: number,
  recordChars: number,
  transactions: number,
): Promise<{ backend: number; server: number }> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const client = await pool.connect();
  try {
    const pid = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
    const lists = createListMemory();
    const listId = uuidV7At(Date.now());
    let n = 0;
    const run = async (count: number) => {
      for (let t = 0; t < count; t++)
        await insertDecisions(
          client,
          batch(size, recordChars, () => n++, listId),
          lists,
        );
    };
    await run(200);
    const [b0, s0] = [processCpuSeconds(pid), processTreeCpuSeconds(serverPid)];
    await run(transactions);
    const [b1, s1] = [processCpuSeconds(pid), processTreeCpuSeconds(serverPid)];
    if (b0 === null || b1 === null || s0 === null || s1 === null) throw new Error("no /proc figures for the Postgres processes");
    const rows = size * transactions;
    return { backend: ((b1 - b0) * 1e6) / rows, server: ((s1 - s0) * 1e6) / rows };
  } finally {
    client.release();
    await pool.end();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      batch: { type: "string", default: "10" },
      transactions: { type: "string", default: "2000" },
      rounds: { type: "string", default: "3" },
      "record-chars": { type: "string", default: "705" },
      variants: { type: "string", default: Object.keys(VARIANTS).join(",") },
    },
  });
  const size = Number(values.batch);
  const transactions = Number(values.transactions);
  const rounds = Number(values.rounds);
  const recordChars = Number(values["record-chars"]);
  const names = values.variants.split(",");
  for (const name of names) if (!VARIANTS[name]) throw new Error(`unknown variant ${name} (known: ${Object.keys(VARIANTS).join(", ")})`);
  const server = await benchPostgresServer(path.resolve(".data", "postgres-bench"), 54331);
  const figures = new Map<string, { backend: number; server: number }[]>();
  try {
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const serverPid = await postgresServerPid((sql) => admin.query<{ pid: number }>(sql));
    const version = (await admin.query<{ v: string }>("select current_setting('server_version') as v")).rows[0]!.v;
    await admin.end();
    console.log(
      `Postgres ${version}; ${size} rows per statement, records of ${recordChars} characters, ${transactions} statements per figure; ${os.cpus()[0]?.model ?? "unknown CPU"}`,
    );
    for (let round = 0; round < rounds; round++) {
      // Rotated each round, so no variant always runs first (or last) on the server.
      const order = names.map((_, i) => names[(i + round) % names.length]!);
      for (const name of order) {
        const m = await withScratchDatabase(server.url, async (url) => {
          await applyMigrations(url);
          const pool = new pg.Pool({ connectionString: url, max: 1 });
          await maintainPartitions(pool, { now: Date.now(), daysAhead: 1, retentionDays: 30 }).finally(() => pool.end());
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          await VARIANTS[name]!.apply(client).finally(() => client.end());
          return measure(url, serverPid, size, recordChars, transactions);
        });
        figures.set(name, [...(figures.get(name) ?? []), m]);
        console.log(`round ${round + 1} ${name}: backend ${m.backend.toFixed(1)} µs per row, whole server ${m.server.toFixed(1)}`);
      }
    }
    console.log("\n| variant | backend CPU per row, each round (µs) | whole server, each round (µs) |\n| --- | --- | --- |");
    for (const name of names) {
      const xs = figures.get(name) ?? [];
      console.log(
        `| ${name}: ${VARIANTS[name]!.what} | ${xs.map((x) => x.backend.toFixed(1)).join(", ")} | ${xs.map((x) => x.server.toFixed(1)).join(", ")} |`,
      );
    }
  } finally {
    await server.cluster?.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`row-cost: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
