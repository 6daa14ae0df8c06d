import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createClient, type ClickHouseClient } from "@clickhouse/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startClickHouseShim, type ClickHouseShim } from "../../test/support/clickhouse-shim";
import { startServerInstance, type TServerInstance } from "../../test/support/server-instances";
import { createTelemetryDatabase, waitFor } from "../../test/support/telemetry-fixtures";

/**
 * ClickHouse mode under faults, on real server processes: ClickHouse's HTTP endpoint goes away
 * under load (CLICKHOUSE_OUTAGE_MS, 30 s for the run, short by default) and one instance
 * is SIGKILLed while it writes. Every acknowledged decision and outcome must be in ClickHouse
 * once, and a committed decision retried on another instance is answered with the same decision.
 */
const KEY = "chaos-clickhouse-key";
const OUTAGE_MS = Number(process.env.CLICKHOUSE_OUTAGE_MS ?? 3_000);

let env: Awaited<ReturnType<typeof createTelemetryDatabase>>;
let dir: string;
let shim: ClickHouseShim;
let ch: ClickHouseClient;
const running: TServerInstance[] = [];

async function start(name: string): Promise<TServerInstance> {
  const inst = await startServerInstance({
    name,
    databaseUrl: env.db.url,
    apiKey: KEY,
    spoolRoot: path.join(dir, "spool"),
    env: { SWITCHYARD_DECISION_STORE: "clickhouse", SWITCHYARD_CLICKHOUSE_URL: shim.url },
  });
  running.push(inst);
  return inst;
}

beforeAll(async () => {
  env = await createTelemetryDatabase();
  dir = await mkdtemp(path.join(tmpdir(), "sy-ch-chaos-"));
  shim = await startClickHouseShim({ path: path.join(dir, "engine") });
  ch = createClient({ url: shim.url });
}, 60_000);

afterAll(async () => {
  for (const i of running) i.child.kill("SIGKILL");
  await ch?.close();
  await shim?.close();
  await env?.close();
  await rm(dir, { recursive: true, force: true });
});

type TAck = { id: string; durability: string; instance: string; body: string };

/** A provider-call outcome acknowledged (201 recorded, 202 spooled) for an acknowledged decision. */
type TOutcomeAck = { decisionId: string; provider: string; status: number };

/** Reports a successful call of the decision's provider to `inst`; the acknowledgement, or null. */
async function reportOutcome(inst: TServerInstance, decisionId: string, provider: string): Promise<TOutcomeAck | null> {
  try {
    const res = await fetch(`${inst.url}/api/v1/outcomes`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ type: "provider_call", decisionId, provider, status: "success", latencyMs: 12, retryCount: 0 }),
    });
    await res.text();
    return res.status === 201 || res.status === 202 ? { decisionId, provider, status: res.status } : null;
  } catch {
    return null;
  }
}

/** Closed-loop decides from `workers` callers over whichever instances are up, until stopped. */
function load(instances: () => TServerInstance[], workers: number) {
  const acked: TAck[] = [];
  const outcomes: TOutcomeAck[] = [];
  const statuses = new Map<number, string>();
  let stop = false;
  let seq = 0;
  const worker = async (w: number) => {
    while (!stop) {
      const up = instances();
      const inst = up[seq % up.length]!;
      const requestId = `chaos-${w}-${seq++}`;
      const body = JSON.stringify({ operation: "SEND_SMS", region: seq % 3 ? "EU" : "NA", requestId });
      try {
        const res = await fetch(`${inst.url}/api/v1/decide`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
          body,
        });
        const text = await res.text();
        if (res.status !== 200 && statuses.size < 5) statuses.set(res.status, text.slice(0, 300));
        if (res.status === 200) {
          const answer = JSON.parse(text) as { decisionId: string; selected: string | null };
          acked.push({ id: answer.decisionId, durability: res.headers.get("x-decision-durability")!, instance: inst.name, body });
          // Every other decision's outcome goes to the other instance, as a load balancer may send it.
          const to = up[(seq + (seq % 2)) % up.length]!;
          const ack = answer.selected ? await reportOutcome(to, answer.decisionId, answer.selected) : null;
          if (ack) outcomes.push(ack);
        }
      } catch {
        // The killed instance: its callers see a reset, nothing acknowledged.
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  };
  const done = Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  return {
    acked,
    outcomes,
    statuses,
    async stop() {
      stop = true;
      await done;
    },
  };
}

async function stored(): Promise<{ rows: number; distinct: number; ids: Set<string> }> {
  const rs = await ch.query({ query: "SELECT toString(id) AS decision_id FROM decision", format: "JSONEachRow" });
  const all = (await rs.json<{ decision_id: string }>()).map((r) => r.decision_id);
  return { rows: all.length, distinct: new Set(all).size, ids: new Set(all) };
}

/** Stored provider-call outcomes per decision id. */
async function storedOutcomes(): Promise<Map<string, number>> {
  const rs = await ch.query({ query: "SELECT toString(decision_id) AS decision_id, count() AS n FROM outcome GROUP BY decision_id", format: "JSONEachRow" });
  return new Map((await rs.json<{ decision_id: string; n: string }>()).map((r) => [r.decision_id, Number(r.n)]));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("ClickHouse mode under faults", () => {
  it("loses and duplicates no acknowledged decision or outcome through a ClickHouse outage and an instance SIGKILLed mid-batch", async () => {
    const a = await start("ch-a");
    let b: TServerInstance | null = await start("ch-b");
    const up = () => (b ? [a, b] : [a]);
    const traffic = load(up, 8);
    await waitFor(() => traffic.acked.length >= 50, 30_000, 50).catch(() => {
      throw new Error(`no decisions acknowledged: ${JSON.stringify([...traffic.statuses])}\n${a.output.join("").slice(-2000)}`);
    });
    const beforeOutage = traffic.acked.length;

    await shim.stop();
    const outageStart = performance.now();
    await waitFor(() => traffic.acked.filter((x) => x.durability === "spooled").length >= 20, OUTAGE_MS, 20).catch(() => {});
    await sleep(Math.max(0, OUTAGE_MS / 2 - (performance.now() - outageStart)));
    // Killed while it writes: batches in flight to ClickHouse, its spool mid-append.
    b.child.kill("SIGKILL");
    await new Promise((r) => b!.child.once("exit", r));
    b = null;
    await sleep(Math.max(0, OUTAGE_MS - (performance.now() - outageStart)));
    await shim.start();
    // Back with the same spool directory: it replays what the killed process left.
    b = await start("ch-b");
    const after = traffic.acked.length;
    await waitFor(() => traffic.acked.length >= after + 20, 60_000, 50).catch(() => {
      throw new Error(
        `no decisions acknowledged after the outage: ${JSON.stringify([...traffic.statuses])}\n${a.output.join("").slice(-2000)}\n${b?.output.join("").slice(-2000)}`,
      );
    });
    await traffic.stop();

    const acked = traffic.acked;
    const spooled = acked.filter((x) => x.durability === "spooled").length;
    expect(beforeOutage).toBeGreaterThan(0);
    expect(spooled).toBeGreaterThan(0);
    await waitFor(
      async () => {
        const s = await stored();
        return acked.every((x) => s.ids.has(x.id));
      },
      30_000,
      250,
    ).catch(() => {});
    const s = await stored();
    const missing = acked.filter((x) => !s.ids.has(x.id));
    console.log(
      `clickhouse chaos: ${acked.length} acknowledged (${spooled} spooled during a ${OUTAGE_MS} ms outage), ${s.rows} rows, ${s.distinct} distinct, ${missing.length} missing`,
    );
    expect(missing).toEqual([]);
    expect(s.rows).toBe(s.distinct);
    expect(new Set(acked.map((x) => x.id)).size).toBe(acked.length);

    // Outcomes: every acknowledged one (recorded, or spooled and replayed once its decision is
    // back) stored exactly once, through the outage and the kill.
    const reported = traffic.outcomes;
    expect(reported.some((o) => o.status === 202)).toBe(true);
    await waitFor(
      async () => {
        const o = await storedOutcomes();
        return reported.every((x) => o.has(x.decisionId));
      },
      60_000,
      250,
    ).catch(() => {});
    const o = await storedOutcomes();
    const outcomesMissing = reported.filter((x) => !o.has(x.decisionId));
    const outcomesTwice = [...o.values()].filter((n) => n > 1).length;
    console.log(
      `clickhouse chaos: ${reported.length} outcomes acknowledged (${reported.filter((x) => x.status === 202).length} spooled), ${outcomesMissing.length} missing, ${outcomesTwice} stored twice`,
    );
    expect(outcomesMissing).toEqual([]);
    expect(outcomesTwice).toBe(0);

    // Idempotency across instances: a committed decision retried on the other instance (the
    // restarted one, whose in-process cache is empty) is answered with the same decision.
    const retried = acked.filter((x) => x.durability === "committed" && x.instance === "ch-a").slice(0, 20);
    expect(retried.length).toBeGreaterThan(0);
    for (const x of retried) {
      const res = await fetch(`${b.url}/api/v1/decide`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
        body: x.body,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-decision-durability")).toBe("replayed");
      expect(((await res.json()) as { decisionId: string }).decisionId).toBe(x.id);
    }
    expect((await stored()).rows).toBe(s.rows);
  }, 120_000);
});
