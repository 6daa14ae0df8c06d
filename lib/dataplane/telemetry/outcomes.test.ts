import http from "node:http";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuthenticator, setAuthenticator } from "../../edge/authenticate";
import { announceBacklog, readBacklog, withdrawBacklog } from "../decision-log/backlog";
import { decisionIdAt } from "../decision-id";
import { loadConfig } from "../load-config";
import { createFastPath } from "../../edge/router";
import type { RoutingState } from "../routing-state";
import { createSpool } from "../spool";
import { createOutcomeService, MAX_CALL_OUTCOMES_PER_ATTEMPT, type TPendingOutcome } from "./outcomes";
import { startTelemetry, type Telemetry } from "./runtime";
import { MAX_OUTCOME_BATCH, type TOutcome } from "./schemas";
import { createTelemetryDatabase, insertDecision, loadedState, waitFor } from "../../../test/support/telemetry-fixtures";

const KEY = "test-key-outcomes";
let env: Awaited<ReturnType<typeof createTelemetryDatabase>>;
let state: RoutingState;
let telemetry: Telemetry;
let server: http.Server;
let base: string;
let spoolDir: string;

beforeAll(async () => {
  env = await createTelemetryDatabase({ min_sample_size: 5 });
  setAuthenticator(createAuthenticator({ apiKey: KEY, allowAnonymousWithoutKey: false }));
  spoolDir = await mkdtemp(path.join(tmpdir(), "switchyard-outcome-spool-"));
  state = await loadedState(env.prisma);
  telemetry = await startTelemetry({
    databaseUrl: env.db.url,
    state,
    instanceId: "test",
    reloadConfig: async () => {
      await loadConfig(env.prisma, state);
    },
    spoolDir,
    metricsRefreshMs: 60_000,
    controllerTickMs: 60_000,
  });
  const fast = createFastPath(telemetry.routes);
  server = http.createServer((req, res) => {
    if (!fast(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address() as { port: number };
  base = `http://127.0.0.1:${addr.port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await telemetry.close();
  await env.close();
  await rm(spoolDir, { recursive: true, force: true });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response shapes are asserted field by field
type TJson = any;

async function post(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: TJson }> {
  const res = await fetch(`${base}/api/v1/outcomes`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}`, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const call = (decisionId: string, extra: Record<string, unknown> = {}) => ({
  type: "provider_call",
  decisionId,
  provider: "provider_A",
  status: "success",
  latencyMs: 120,
  retryCount: 0,
  ...extra,
});

describe("POST /api/v1/outcomes", () => {
  it("stores a single provider-call outcome (201) and a business outcome attributed to the selected provider", async () => {
    const id = await insertDecision(env.pool, { region: "EU", selected: "provider_A" });
    const r1 = await post(call(id));
    expect(r1.status).toBe(201);
    expect(r1.body).toEqual({ status: 201, result: "recorded", decisionId: id });
    const r2 = await post({ type: "business", decisionId: id, completed: false, failureStage: "provider_call", withinSla: false });
    expect(r2.status).toBe(201);

    const calls = await env.pool.query("select provider_key, region, operation_key, status, latency_ms from provider_call_outcome where decision_id = $1", [
      id,
    ]);
    expect(calls.rows).toEqual([{ provider_key: "provider_A", region: "EU", operation_key: "SEND_SMS", status: "success", latency_ms: 120 }]);
    const business = await env.pool.query("select provider_key, completed, failure_stage from business_outcome where decision_id = $1", [id]);
    expect(business.rows).toEqual([{ provider_key: "provider_A", completed: false, failure_stage: "provider_call" }]);
  });

  it("a batch answers per item: recorded, invalid naming the field, unknown decision; nothing is written for rejected items", async () => {
    const id = await insertDecision(env.pool, { region: "NA", selected: "provider_B" });
    const unknown = "0190a5f0-0000-7000-8000-000000000000";
    const r = await post({
      outcomes: [
        call(id, { provider: "provider_B" }),
        call(id, { latencyMs: -1 }),
        call(unknown),
        { type: "business", decisionId: id, completed: false, withinSla: true },
        call(id, { status: "failure" }),
        call(id, { provider: "provider_Z" }),
        { type: "nope", decisionId: id },
        call(id, { provider: "provider_B", status: "failure", errorClass: "timeout", latencyMs: 5_000 }),
      ],
    });
    expect(r.status).toBe(200);
    const summary = r.body.results.map((x: { status: number; result: string; error?: { fields?: { path: string }[] } }) => [
      x.status,
      x.result,
      x.error?.fields?.[0]?.path ?? null,
    ]);
    expect(summary).toEqual([
      [201, "recorded", null],
      [400, "invalid", "latencyMs"],
      [404, "unknown_decision", "decisionId"],
      [400, "invalid", "failureStage"],
      [400, "invalid", "errorClass"],
      [422, "invalid", "provider"],
      [400, "invalid", "type"],
      [201, "recorded", null],
    ]);
    expect(r.body).toMatchObject({ recorded: 2, spooled: 0, rejected: 6 });
    const rows = await env.pool.query("select status, error_class from provider_call_outcome where decision_id = $1 order by id", [id]);
    expect(rows.rows).toEqual([
      { status: "success", error_class: null },
      { status: "failure", error_class: "timeout" },
    ]);
  });

  it("single outcomes: 404 for an unknown decision, 400 malformed naming the field, 413 beyond the batch limit, 415, 401", async () => {
    const unknown = await post(call("0190a5f0-0000-7000-8000-000000000001"));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "unknown_decision", fields: [{ path: "decisionId" }] });
    const notUuid = await post(call("not-a-uuid"));
    expect(notUuid.status).toBe(404);

    const bad = await post({ type: "provider_call", decisionId: "x", provider: "provider_A", status: "success", latencyMs: "fast", retryCount: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "malformed", fields: [{ path: "latencyMs" }] });
    const extra = await post({ ...call("x"), latency_ms: 3 });
    expect(extra.status).toBe(400);

    const id = await insertDecision(env.pool, { region: "EU", selected: "provider_A" });
    const big = await post({ outcomes: Array.from({ length: MAX_OUTCOME_BATCH + 1 }, () => call(id)) });
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ code: "batch_too_large", fields: [{ path: "outcomes" }] });
    const before = await env.pool.query("select count(*)::int as n from provider_call_outcome where decision_id = $1", [id]);
    expect(before.rows[0].n).toBe(0);

    // A full batch is read whole; one decision and provider take MAX_CALL_OUTCOMES_PER_ATTEMPT of it.
    const full = await post({ outcomes: Array.from({ length: MAX_OUTCOME_BATCH }, () => call(id)) });
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ recorded: MAX_CALL_OUTCOMES_PER_ATTEMPT, rejected: MAX_OUTCOME_BATCH - MAX_CALL_OUTCOMES_PER_ATTEMPT });
    expect(full.body.results.at(-1)).toMatchObject({ status: 409, error: { code: "outcome_limit" } });

    const notArray = await post({ outcomes: "all of them" });
    expect(notArray.status).toBe(400);
    expect(notArray.body.error).toMatchObject({ code: "malformed", fields: [{ path: "outcomes" }] });
    expect((await post("{not json")).status).toBe(400);
    expect((await post(call(id), { "content-type": "text/plain" })).status).toBe(415);
    expect((await post(call(id), { authorization: "Bearer wrong" })).status).toBe(401);
  });

  it("outcomes feed the rolling metrics and the circuit breaker; a 4xx does not count against the provider", async () => {
    // One decision per call, as a caller would have: a decision takes only a few outcomes per provider.
    const ids = await Promise.all(Array.from({ length: 10 }, () => insertDecision(env.pool, { region: "APAC", selected: "provider_B" })));
    const fail = (n: number, errorClass: string) => call(ids[n]!, { provider: "provider_B", status: "failure", errorClass, latencyMs: 900 });
    await post({ outcomes: [fail(0, "http_4xx"), fail(1, "http_4xx"), fail(2, "http_4xx"), fail(3, "http_4xx"), fail(4, "http_4xx")] });
    expect(telemetry.breakers.views()["provider_B|APAC"]?.state).toBe("closed");
    await post({ outcomes: [fail(5, "http_5xx"), fail(6, "timeout"), fail(7, "network"), fail(8, "throttled"), fail(9, "other")] });
    expect(telemetry.breakers.views()["provider_B|APAC"]?.state).toBe("open");
    expect(state.snapshotFor("SEND_SMS", "APAC")?.breakers["provider_B|APAC"]?.state).toBe("open");

    await telemetry.metrics.refresh();
    const m = state.snapshotFor("SEND_SMS", "APAC")?.metrics.provider_B;
    expect(m?.sampleCount).toBe(10);
    expect(m?.errorRate).toBe(0.5);
    // The opening is an incident in the provider's metrics.
    expect(m?.recentIncidents).toBe(1);

    await telemetry.breakers.flush(env.pool);
    const history = await env.pool.query("select provider_key, region, from_state, to_state, reason from breaker_event where provider_key = 'provider_B'");
    const [apac, others] = [history.rows.filter((r) => r.region === "APAC"), history.rows.filter((r) => r.region !== "APAC")];
    expect(apac).toEqual([{ provider_key: "provider_B", region: "APAC", from_state: "closed", to_state: "open", reason: "consecutive_failures" }]);
    // Five failures with no success in any region: provider_B's breakers in regions seen earlier in this file open with it.
    for (const row of others) expect(row).toMatchObject({ provider_key: "provider_B", from_state: "closed", to_state: "open", reason: "correlated_failures" });
  });

  it("GET /api/v1/metrics exposes decisions, outcomes, breakers and controller gauges in Prometheus format", async () => {
    expect((await fetch(`${base}/api/v1/metrics`)).status).toBe(401);
    const res = await fetch(`${base}/api/v1/metrics`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toContain("# TYPE switchyard_outcomes_total counter");
    expect(text).toMatch(/switchyard_outcomes_total\{type="provider_call",provider="provider_A",result="recorded"\} \d+/);
    expect(text).toContain('switchyard_breaker_state{provider="provider_B",region="APAC",state="open"} 1');
    expect(text).toMatch(/switchyard_controller_leader [01]/);
    expect(text).toMatch(/switchyard_metrics_refresh_age_seconds [\d.]+/);
    expect(text).toContain("# TYPE switchyard_event_loop_delay_seconds summary");
    expect(text).toMatch(/switchyard_event_loop_delay_seconds\{quantile="0\.99"\} (NaN|[\d.e-]+)/);
  });
});

describe("outcomes during a database outage", () => {
  it("are fsynced to the spool (202), then written with their decision's routing when the spool is replayed", async () => {
    const id = await insertDecision(env.pool, { region: "LATAM", selected: "provider_C" });
    // Nothing listens on port 1: every query fails the way an unreachable server does.
    const down = new pg.Pool({ connectionString: "postgres://x@127.0.0.1:1/none", connectionTimeoutMillis: 500 });
    down.on("error", () => {});
    const dir = await mkdtemp(path.join(tmpdir(), "switchyard-outage-spool-"));
    const spool = createSpool<TPendingOutcome>({ dir, name: "outcomes", maxBytes: 1024 * 1024 });
    const offline = createOutcomeService({
      pool: down,
      state,
      lookup: async () => {
        await down.query("select 1");
        return new Map();
      },
      metrics: telemetry.metrics,
      breakers: telemetry.breakers,
      spool,
    });
    const r = await offline.handle({
      outcomes: [call(id, { provider: "provider_C" }), { type: "business", decisionId: id, completed: true, withinSla: true }, call(id, { latencyMs: -5 })],
    });
    expect((r.body as { results: Array<{ status: number }> }).results.map((x) => x.status)).toEqual([202, 202, 400]);
    const single = await offline.handle(call("0190a5f0-0000-7000-8000-00000000dead"));
    expect(single.status).toBe(202);
    // Decision known (from a cache, say) but the insert fails: spooled too, already counted in metrics.
    const writeDown = createOutcomeService({
      pool: down,
      state,
      lookup: async () => new Map([[id, { operation: "SEND_SMS", region: "LATAM", selected: "provider_C" }]]),
      metrics: telemetry.metrics,
      breakers: telemetry.breakers,
      spool,
    });
    expect((await writeDown.handle(call(id, { provider: "provider_C", latencyMs: 77 }))).status).toBe(202);
    expect(spool.hasPending()).toBe(true);
    await down.end();

    // Postgres is back: the replay writes what was spooled; the outcome of a decision not (yet) in the
    // table goes back to the spool for the grace period, since its decision may still be in a spool.
    let deferred = 0;
    const seen: TPendingOutcome[] = [];
    const replayed = await spool.replay(async (items) => {
      seen.push(...items);
      deferred += (await telemetry.outcomes.replay(items)).deferred;
    });
    expect(replayed).toBe(4);
    expect(deferred).toBe(1);
    expect(seen.map((p) => [p.decision === null, p.applied])).toEqual([
      [true, false],
      [true, false],
      [true, false],
      [false, true],
    ]);
    const calls = await env.pool.query("select provider_key, region, latency_ms from provider_call_outcome where decision_id = $1 order by latency_ms", [id]);
    expect(calls.rows).toEqual([
      { provider_key: "provider_C", region: "LATAM", latency_ms: 77 },
      { provider_key: "provider_C", region: "LATAM", latency_ms: 120 },
    ]);
    const business = await env.pool.query("select provider_key, completed from business_outcome where decision_id = $1", [id]);
    expect(business.rows).toEqual([{ provider_key: "provider_C", completed: true }]);
    await rm(dir, { recursive: true, force: true });
  });

  // Regression (chaos:db-outage): outcomes spooled by one instance were dropped as "unknown" when
  // replayed before the other instance had replayed the spooled decision they belong to.
  it("an outcome for a decision another instance announced as spooled is held (202) and written once the decision arrives", async () => {
    const t = Date.now();
    await announceBacklog(env.pool, "instance-x", { oldest: t - 60_000, newest: t - 20_000 });
    await new Promise((r) => setTimeout(r, 150)); // past the announcements' read cache
    try {
      const inSpool = decisionIdAt(t - 40_000);
      const outside = decisionIdAt(t - 5 * 60_000);
      const r = await post({ outcomes: [call(inSpool, { latencyMs: 41 }), call(outside)] });
      expect(r.body.results.map((x: { status: number; result: string }) => [x.status, x.result])).toEqual([
        [202, "spooled"],
        [404, "unknown_decision"],
      ]);
      expect((await post(call(decisionIdAt(t - 30_000)))).status).toBe(202);
      // instance-x writes its spool to the table: the held outcome follows on the next maintenance pass.
      await env.pool.query(
        `insert into decision (id, created_at, operation, region, request_id, selected_provider, reason_code, stale, record, durability, instance_id)
         values ($1, $2, 'SEND_SMS', 'EU', $3, 'provider_A', 'test', false, '{}'::json, 'sync', 'instance-x')`,
        [inSpool, new Date(t - 40_000), `req-${inSpool}`],
      );
      await waitFor(async () => (await env.pool.query("select 1 from provider_call_outcome where decision_id = $1", [inSpool])).rowCount === 1, 10_000, 50);
      const rows = await env.pool.query("select latency_ms, region from provider_call_outcome where decision_id = $1", [inSpool]);
      expect(rows.rows).toEqual([{ latency_ms: 41, region: "EU" }]);
    } finally {
      await withdrawBacklog(env.pool, "instance-x");
    }
    expect(await readBacklog(env.pool)).toEqual([]);
    await new Promise((r) => setTimeout(r, 150));
    expect((await post(call(decisionIdAt(t - 40_000)))).status).toBe(404);
  });

  it("an outcome replayed before its decision is written waits in the spool, and is dropped only after the grace period", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "switchyard-unmatched-spool-"));
    const spool = createSpool<TPendingOutcome>({ dir, name: "outcomes", maxBytes: 1024 * 1024 });
    let clock = Date.now();
    const service = createOutcomeService({
      pool: env.pool,
      state,
      lookup: async (ids) => {
        const { rows } = await env.pool.query<{ id: string; region: string; selected_provider: string }>(
          "select id::text, region, selected_provider from decision where id = any($1::uuid[])",
          [ids],
        );
        return new Map(rows.map((r) => [r.id, { operation: "SEND_SMS", region: r.region, selected: r.selected_provider }]));
      },
      metrics: telemetry.metrics,
      breakers: telemetry.breakers,
      spool,
      now: () => clock,
      unmatchedGraceMs: 60_000,
    });
    // The decision sits in another instance's spool: its id exists, its row does not yet.
    const at = Date.now();
    const pendingId = decisionIdAt(at);
    const neverId = decisionIdAt(at);
    await spool.append([
      { id: randomUUID(), outcome: call(pendingId, { provider: "provider_B", latencyMs: 31 }) as TOutcome, receivedAt: clock, decision: null, applied: false },
      { id: randomUUID(), outcome: call(neverId, { provider: "provider_B", latencyMs: 32 }) as TOutcome, receivedAt: clock, decision: null, applied: false },
    ]);
    const replay = async () => {
      const total = { written: 0, deferred: 0, unknown: 0 };
      await spool.replay(async (items) => {
        const r = await service.replay(items);
        total.written += r.written;
        total.deferred += r.deferred;
        total.unknown += r.unknown;
      });
      return total;
    };
    expect(await replay()).toEqual({ written: 0, deferred: 2, unknown: 0 });
    expect(spool.hasPending()).toBe(true);

    // The other instance replays its decision spool.
    await env.pool.query(
      `insert into decision (id, created_at, operation, region, request_id, selected_provider, reason_code, stale, record, durability, instance_id)
       values ($1, $2, 'SEND_SMS', 'EU', $3, 'provider_B', 'test', false, '{}'::json, 'sync', 'other')`,
      [pendingId, new Date(at), `req-${pendingId}`],
    );
    clock += 30_000;
    expect(await replay()).toEqual({ written: 1, deferred: 1, unknown: 0 });
    const rows = await env.pool.query("select latency_ms from provider_call_outcome where decision_id = $1", [pendingId]);
    expect(rows.rows).toEqual([{ latency_ms: 31 }]);

    clock += 31_000;
    expect(await replay()).toEqual({ written: 0, deferred: 0, unknown: 1 });
    expect(spool.hasPending()).toBe(false);
    await spool.close();
    await rm(dir, { recursive: true, force: true });
  });
});
