import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { SwitchyardClient, type TDecision, type TRetryInfo } from "../src/index";
import { uuidV7At } from "../src/uuid";
import { startServerProcess, type TServerProcess } from "./server-process";

const API_KEY = "client-test-key-5b1e";
let db: TTestDatabase;
let pool: pg.Pool;
let server: TServerProcess;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  server = await startServerProcess({ databaseUrl: db.url, apiKey: API_KEY });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await pool?.end();
  await db?.drop();
});

const clients: SwitchyardClient[] = [];
function client(opts: Partial<ConstructorParameters<typeof SwitchyardClient>[0]> = {}): SwitchyardClient {
  const c = new SwitchyardClient({ baseUrl: server.url, apiKey: API_KEY, timeoutMs: 400, flushOnExit: false, buffer: { flushIntervalMs: 100 }, ...opts });
  clients.push(c);
  return c;
}
afterAll(async () => {
  for (const c of clients) await c.close();
});

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function loggedFailStatic(ids: string[]): Promise<number> {
  const r = await pool.query<{ n: string }>(`select count(*) as n from decision where id = any($1::uuid[]) and reason_code = 'fail_static' and stale`, [ids]);
  return Number(r.rows[0]!.n);
}

async function outcomesFor(ids: string[]): Promise<number> {
  const r = await pool.query<{ n: string }>(`select count(*) as n from provider_call_outcome where decision_id = any($1::text[])`, [ids]);
  return Number(r.rows[0]!.n);
}

describe("@switchyard/client against server.ts", () => {
  it("decides through Switchyard and sends outcomes in background batches", async () => {
    const c = client();
    const d = await c.decide({ operation: "SEND_SMS", region: "EU" });
    expect(d).toMatchObject({ failStatic: false, source: "switchyard", operation: "SEND_SMS", region: "EU" });
    expect(d.selected).toMatch(/^provider_[ABC]$/);
    expect(d.order[0]).toBe(d.selected);
    // The compact answer by default: no record; with explain full, the record the order came from.
    expect(d.record).toBeUndefined();
    const explained = await c.decide({ operation: "SEND_SMS", region: "EU", explain: "full" });
    expect(explained.record?.candidates.length).toBeGreaterThan(0);
    expect(explained.order).toEqual(
      explained
        .record!.candidates.filter((x) => x.eligible)
        .sort(
          (a, b) => Number(b.provider === explained.selected) - Number(a.provider === explained.selected) || (b.score ?? -Infinity) - (a.score ?? -Infinity),
        )
        .map((x) => x.provider),
    );
    c.reportOutcome({ type: "provider_call", decisionId: d.decisionId, provider: d.selected!, status: "success", latencyMs: 42, retryCount: 0 });
    await until("the outcome to be sent", () => c.stats().outcomes.sent === 1);
    expect(await outcomesFor([d.decisionId])).toBe(1);
    // The same requestId is the same decision.
    expect((await c.decide({ operation: "SEND_SMS", region: "EU", requestId: d.requestId })).decisionId).toBe(d.decisionId);
  });

  it("answers fail-static while the server is killed, marks and counts it, and reports every decision after the restart", async () => {
    const c = client({ staticOrder: { "SEND_SMS@LATAM": ["provider_C", "provider_B"] } });
    const seen = await c.decide({ operation: "SEND_SMS", region: "EU" });
    const eligible = new Set(seen.order);
    await server.kill();

    const made: TDecision[] = [];
    for (let i = 0; i < 20; i++) made.push(await c.decide({ operation: "SEND_SMS", region: "EU" }));
    for (let i = 0; i < 5; i++) made.push(await c.decide({ operation: "SEND_SMS", region: "LATAM" }));
    for (const d of made) {
      expect(d.failStatic).toBe(true);
      expect(d.reason).toMatch(/^unreachable/);
      c.reportOutcome({ type: "provider_call", decisionId: d.decisionId, provider: d.selected!, status: "success", latencyMs: 5, retryCount: 0 });
    }
    const fromLast = made.slice(0, 20);
    expect(fromLast.every((d) => d.source === "last_decision" && eligible.has(d.selected!))).toBe(true);
    expect(made.slice(20).every((d) => d.source === "static" && d.selected === "provider_C")).toBe(true);
    // A region seen neither in a decision nor in the static order has nothing to answer from.
    await expect(c.decide({ operation: "SEND_SMS", region: "APAC" })).rejects.toMatchObject({ name: "SwitchyardUnavailableError", reason: "unreachable" });
    expect(c.stats().failStatic).toEqual({ made: 25, reported: 0, refused: 0, dropped: 0, pending: 25 });
    expect(c.stats().outcomes.pending).toBe(25);

    await server.restart();
    await until("every fail-static decision to be reported", () => c.stats().failStatic.pending === 0 && c.stats().outcomes.pending === 0);
    const s = c.stats();
    expect(s.failStatic).toEqual({ made: 25, reported: 25, refused: 0, dropped: 0, pending: 0 });
    expect(s.decisions).toEqual({ switchyard: 1, failStatic: 25 });
    const ids = made.map((d) => d.decisionId);
    expect(await loggedFailStatic(ids)).toBe(25);
    expect(await outcomesFor(ids)).toBe(25);
    const row = await pool.query(`select record->>'mode' as mode, (record->>'local')::boolean as local, selected_provider from decision where id = $1`, [
      ids[0],
    ]);
    expect(row.rows[0]).toEqual({ mode: "fail_static", local: true, selected_provider: made[0]!.selected });
  }, 90_000);

  it("answers fail-static when the server is slower than the timeout (process frozen)", async () => {
    const c = client({ timeoutMs: 300 });
    await c.decide({ operation: "SEND_SMS", region: "NA" });
    server.freeze();
    let d: TDecision;
    try {
      d = await c.decide({ operation: "SEND_SMS", region: "NA" });
    } finally {
      server.thaw();
    }
    expect(d).toMatchObject({ failStatic: true, source: "last_decision" });
    expect(d.reason).toMatch(/^timeout/);
    await until("the decision to be reported", () => c.stats().failStatic.reported === 1);
    expect(await loggedFailStatic([d.decisionId])).toBe(1);
  }, 60_000);

  it("bounds the buffer: decisions past it are dropped and counted, so made = reported + dropped", async () => {
    const c = client({ buffer: { maxDecisions: 5, flushIntervalMs: 100 } });
    await c.decide({ operation: "SEND_SMS", region: "EU" });
    await server.kill();
    const made: TDecision[] = [];
    for (let i = 0; i < 8; i++) made.push(await c.decide({ operation: "SEND_SMS", region: "EU" }));
    expect(made.every((d) => d.failStatic)).toBe(true);
    expect(c.stats().failStatic).toEqual({ made: 8, reported: 0, refused: 0, dropped: 3, pending: 5 });
    await server.restart();
    await until("the buffered decisions to be reported", () => c.stats().failStatic.pending === 0);
    const s = c.stats().failStatic;
    expect(s).toEqual({ made: 8, reported: 5, refused: 0, dropped: 3, pending: 0 });
    expect(s.reported + s.dropped).toBe(s.made);
    expect(await loggedFailStatic(made.map((d) => d.decisionId))).toBe(5);
  }, 90_000);

  it("logs a batch of client decisions once, refusing unknown operations per item", async () => {
    const post = (body: unknown) =>
      fetch(`${server.url}/api/v1/decisions/batch`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${API_KEY}` },
        body: JSON.stringify(body),
      });
    const id = uuidV7At(Date.now());
    const decisions = [
      {
        decisionId: id,
        operation: "SEND_SMS",
        region: "EU",
        requestId: `batch-${id}`,
        selected: "provider_B",
        mode: "fail_static",
        source: "static",
        order: ["provider_B"],
      },
      { decisionId: uuidV7At(Date.now()), operation: "NO_SUCH_OP", region: "EU", requestId: "x", selected: null, mode: "fail_static" },
    ];
    const first = (await (await post({ decisions })).json()) as { results: Array<{ result: string }>; logged: number; refused: number };
    expect(first.results.map((r) => r.result)).toEqual(["committed", "refused"]);
    const again = (await (await post({ decisions: [decisions[0], decisions[0]] })).json()) as { results: Array<{ result: string }> };
    expect(again.results.map((r) => r.result)).toEqual(["existing", "existing"]);
    expect(await loggedFailStatic([id])).toBe(1);
    const bad = await post({ decisions: [{ ...decisions[0], decisionId: "4b8f3c2e-1d2a-4c3b-9a8e-0f1e2d3c4b5a" }] });
    expect(bad.status).toBe(400);
  });

  it("retries 429s after the server's Retry-After, with jitter on top", async () => {
    await server.kill();
    await server.restart({ API_KEY_RATE_LIMITS: "env=1/1" });
    const retries: TRetryInfo[] = [];
    const c = client({ timeoutMs: 2_000, maxAttempts: 4, onRetry: (r) => retries.push(r) });
    const answers = await Promise.all([0, 1, 2].map(() => c.decide({ operation: "SEND_SMS", region: "EU" })));
    expect(answers.every((d) => d.source === "switchyard" && !d.failStatic)).toBe(true);
    expect(retries.length).toBeGreaterThanOrEqual(2);
    for (const r of retries) {
      expect(r.status).toBe(429);
      expect(r.retryAfterMs).toBeGreaterThanOrEqual(1_000);
      expect(r.delayMs).toBeGreaterThanOrEqual(r.retryAfterMs!);
      expect(r.delayMs).toBeLessThan(r.retryAfterMs! + 50);
    }
    expect(c.stats().retries).toBe(retries.length);
  }, 60_000);
});
