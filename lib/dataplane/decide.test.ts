/* eslint-disable @typescript-eslint/no-explicit-any -- JSON response bodies are asserted field by field */
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "@/test/support/database";
import { startStandaloneDataPlane, type TStandaloneServer } from "../../test/support/standalone-dataplane";
import { dataPlaneSettings } from "./settings";

let db: TTestDatabase;
let server: TStandaloneServer;
let pool: pg.Pool;
let spoolDir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  spoolDir = await mkdtemp(path.join(tmpdir(), "sy-spool-"));
  server = await startStandaloneDataPlane({ databaseUrl: db.url, settings: { ...dataPlaneSettings({}, process.cwd()), spoolDir } });
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
});

afterAll(async () => {
  await server?.close();
  await pool?.end();
  await db?.drop();
  await rm(spoolDir, { recursive: true, force: true });
});

async function post(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/api/v1/decide`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as Record<string, any> };
}

async function rowCount(): Promise<number> {
  const { rows } = await pool.query<{ n: number }>("select count(*)::int as n from decision");
  return rows[0]!.n;
}

describe("POST /api/v1/decide", () => {
  it("answers compactly by default: the provider, reason, policy version, fallback and failover order", async () => {
    const r = await post({ operation: "SEND_SMS", region: "EU", requestId: "compact-1" });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-decision-durability")).toBe("committed");
    expect(Object.keys(r.body)).toEqual([
      "decisionId",
      "operation",
      "region",
      "requestId",
      "policyVersion",
      "selected",
      "reasonCode",
      "fallback",
      "degraded",
      "order",
    ]);
    expect(r.body).toMatchObject({ operation: "SEND_SMS", region: "EU", requestId: "compact-1", policyVersion: "v1", fallback: null, degraded: false });
    expect(r.headers.get("content-length")).toBe(String(Buffer.byteLength(r.text)));
    // The order is the full record's eligible candidates, the selected one first, then by score.
    const full = (await (await fetch(`${server.url}/api/v1/decisions/${r.body.decisionId}`)).json()) as Record<string, any>;
    expect(full.selected).toBe(r.body.selected);
    expect(full.reasonCode).toBe(r.body.reasonCode);
    const eligible = (full.candidates as Array<{ provider: string; eligible: boolean; score: number | null; selectionProbability: number }>)
      .filter((c) => c.eligible)
      .sort((a, b) => (b.score ?? -Infinity) - (a.score ?? -Infinity));
    const expected = [...eligible.filter((c) => c.provider === full.selected), ...eligible.filter((c) => c.provider !== full.selected)];
    expect(r.body.order).toEqual(expected.map((c) => ({ provider: c.provider, selectionProbability: c.selectionProbability })));
    expect(r.body.order[0].provider).toBe(r.body.selected);
    // A retry gets the same compact answer; with explain full, the full record of the same decision.
    const again = await post({ operation: "SEND_SMS", region: "EU", requestId: "compact-1" });
    expect(again.text).toBe(r.text);
    const explained = await post({ operation: "SEND_SMS", region: "EU", requestId: "compact-1", explain: "full" });
    expect(explained.body.decisionId).toBe(r.body.decisionId);
    expect(explained.body.candidates).toEqual(full.candidates);
  });

  it("refuses an explain other than compact or full (400 malformed, naming the field)", async () => {
    const r = await post({ operation: "SEND_SMS", region: "EU", requestId: "explain-bad", explain: "everything" });
    expect(r.status).toBe(400);
    expect(r.body.error.fields).toEqual([expect.objectContaining({ path: "explain" })]);
    expect(await pool.query("select 1 from decision where request_id = 'explain-bad'").then((q) => q.rowCount)).toBe(0);
  });

  it("answers with the full decision record with explain full, after its row is committed", async () => {
    const r = await post({ operation: "SEND_SMS", region: "EU", requestId: "happy-1", explain: "full" });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-decision-durability")).toBe("committed");
    expect(r.body.decisionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r.body.id).toBe(r.body.decisionId);
    expect(r.body.policyVersion).toBe("v1");
    expect(["provider_A", "provider_B", "provider_C"]).toContain(r.body.selected);
    expect(r.body.candidates.map((c: { provider: string }) => c.provider)).toEqual(["provider_A", "provider_B", "provider_C"]);
    expect(r.body.degraded).toBe(false);
    const { rows } = await pool.query("select * from decision where id = $1", [r.body.decisionId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ operation: "SEND_SMS", region: "EU", request_id: "happy-1", policy_version: "v1", durability: "sync" });
    expect(rows[0].selected_provider).toBe(r.body.selected);
    expect(rows[0].record.decisionId).toBe(r.body.decisionId);
  });

  it("returns the same decision for the same requestId, and a different one for another", async () => {
    const a = await post({ operation: "SEND_SMS", region: "NA", requestId: "idem-1", explain: "full" });
    const b = await post({ operation: "SEND_SMS", region: "NA", requestId: "idem-1", explain: "full" });
    const c = await post({ operation: "SEND_SMS", region: "NA", requestId: "idem-2" });
    expect(b.body.decisionId).toBe(a.body.decisionId);
    // The replay is the first answer byte for byte (the cache keeps it without its candidate list and puts the list back).
    expect(b.text).toBe(a.text);
    expect(b.body.candidates.length).toBeGreaterThan(0);
    expect(b.headers.get("content-length")).toBe(String(Buffer.byteLength(b.text)));
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(c.body.decisionId).not.toBe(a.body.decisionId);
    const { rows } = await pool.query("select count(*)::int as n from decision where request_id = 'idem-1'");
    expect(rows[0].n).toBe(1);
  });

  it("a retry on another instance gets the first instance's decision from the decision table", async () => {
    const other = await startStandaloneDataPlane({ databaseUrl: db.url, seed: false, settings: { ...dataPlaneSettings({}, process.cwd()), spoolDir } });
    try {
      const first = await post({ operation: "SEND_SMS", region: "EU", requestId: "cross-1" });
      const res = await fetch(`${other.url}/api/v1/decide`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ operation: "SEND_SMS", region: "EU", requestId: "cross-1" }),
      });
      const againText = await res.text();
      const again = JSON.parse(againText) as Record<string, any>;
      expect(res.headers.get("x-decision-durability")).toBe("replayed");
      expect(againText).toBe(first.text);
      expect(again.decisionId).toBe(first.body.decisionId);
      expect(again.selected).toBe(first.body.selected);
      const { rows } = await pool.query("select count(*)::int as n from decision where request_id = 'cross-1'");
      expect(rows[0].n).toBe(1);
    } finally {
      await other.close();
    }
  });

  it("concurrent duplicates share one decision", async () => {
    const all = await Promise.all(Array.from({ length: 20 }, () => post({ operation: "SEND_SMS", region: "EU", requestId: "dup-burst" })));
    expect(new Set(all.map((r) => r.body.decisionId)).size).toBe(1);
    const { rows } = await pool.query("select count(*)::int as n from decision where request_id = 'dup-burst'");
    expect(rows[0].n).toBe(1);
  });

  describe("bad input writes nothing", () => {
    const cases: Array<[string, () => Promise<{ status: number; body: Record<string, any> }>, number, string, string | undefined]> = [
      ["non-JSON body", () => post("{not json"), 400, "malformed", ""],
      [
        "wrong content type",
        async () => {
          const res = await fetch(`${server.url}/api/v1/decide`, { method: "POST", headers: { "content-type": "text/plain" }, body: "x" });
          return { status: res.status, body: (await res.json()) as Record<string, any> };
        },
        415,
        "unsupported_media_type",
        "content-type",
      ],
      ["oversized body", () => post({ operation: "SEND_SMS", region: "EU", requestId: "x".repeat(20_000) }), 413, "payload_too_large", undefined],
      ["missing operation", () => post({ region: "EU", requestId: "bad-1" }), 400, "malformed", "operation"],
      ["missing requestId", () => post({ operation: "SEND_SMS", region: "EU" }), 400, "malformed", "requestId"],
      ["region of the wrong type", () => post({ operation: "SEND_SMS", region: 7, requestId: "bad-2" }), 400, "malformed", "region"],
      [
        "attribute value of the wrong type",
        () => post({ operation: "SEND_SMS", region: "EU", requestId: "bad-3", attributes: { compliance: 1 } }),
        400,
        "malformed",
        "attributes.compliance",
      ],
      ["unknown field", () => post({ operation: "SEND_SMS", region: "EU", requestId: "bad-4", regoin: "EU" }), 400, "malformed", "regoin"],
      ["a JSON array", () => post([1, 2]), 400, "malformed", ""],
      ["unknown operation", () => post({ operation: "SEND_FAX", region: "EU", requestId: "bad-5" }), 422, "invalid", "operation"],
      ["unknown region", () => post({ operation: "SEND_SMS", region: "MARS", requestId: "bad-6" }), 422, "invalid", "region"],
    ];
    it.each(cases)("%s", async (_name, call, status, code, field) => {
      const before = await rowCount();
      const r = await call();
      expect(r.status).toBe(status);
      expect(r.body.error.code).toBe(code);
      if (field !== undefined) expect(r.body.error.fields.map((f: { path: string }) => f.path)).toContain(field);
      expect(Object.keys(r.body.error).sort()).toEqual(field === undefined ? ["code", "message"] : ["code", "fields", "message"]);
      expect(await rowCount()).toBe(before);
    });

    it("unknown region lists the known ones", async () => {
      const r = await post({ operation: "SEND_SMS", region: "MARS", requestId: "bad-7" });
      expect(r.body.error.fields).toEqual([{ path: "region", message: expect.stringContaining("known regions: APAC, EU, LATAM, NA") }]);
    });
  });

  it("stores the shadow pick, version and agreement when a shadow version is set", async () => {
    const doc = (await pool.query("select document, operation_key from factor_list_version where version = 1")).rows[0];
    const shadowDoc = { ...doc.document, providers: ["provider_C", "provider_B", "provider_A"], strategy: "priority_failover" };
    const { rows } = await pool.query(
      `insert into factor_list_version (id, operation_key, version, status, document, yaml, updated_at)
       values (gen_random_uuid(), 'SEND_SMS', 2, 'shadow', $1, '', now()) returning id`,
      [shadowDoc],
    );
    await pool.query("update operation_policy set shadow_version_id = $1 where operation_key = 'SEND_SMS'", [rows[0].id]);
    await server.dataPlane.reloadConfig();
    // NA: the demo catalogue requires gdpr for EU SMS, which provider_C (SOC 2 only) lacks.
    const r = await post({ operation: "SEND_SMS", region: "NA", requestId: "shadow-1", explain: "full" });
    expect(r.body.shadow).toMatchObject({ policyVersion: "v2", selected: "provider_C" });
    expect(r.body.shadow.agrees).toBe(r.body.selected === "provider_C");
    const row = (await pool.query("select shadow_version, shadow_pick, shadow_agrees from decision where id = $1", [r.body.decisionId])).rows[0];
    expect(row).toEqual({ shadow_version: "v2", shadow_pick: "provider_C", shadow_agrees: r.body.selected === "provider_C" });
    await pool.query("update operation_policy set shadow_version_id = null where operation_key = 'SEND_SMS'");
    await server.dataPlane.reloadConfig();
  });

  it("N concurrent decides give N rows in fewer transactions than rows", async () => {
    const before = server.dataPlane.decisionLog.stats();
    const latency = server.dataPlane.decisionLog.latency();
    const [waitsBefore, commitsBefore] = [latency.waitSeconds.snapshot(), latency.commitSeconds.snapshot()];
    const n = 200;
    const all = await Promise.all(Array.from({ length: n }, (_, i) => post({ operation: "SEND_SMS", region: "EU", requestId: `gc-${i}` })));
    expect(all.every((r) => r.status === 200)).toBe(true);
    const after = server.dataPlane.decisionLog.stats();
    expect(after.rowsCommitted - before.rowsCommitted).toBe(n);
    expect(after.transactions - before.transactions).toBeLessThan(n);
    // The histograms: one wait per decision, one commit per transaction.
    const [waits, commits] = [latency.waitSeconds.snapshot(), latency.commitSeconds.snapshot()];
    expect(waits.count - waitsBefore.count).toBe(n);
    expect(commits.count - commitsBefore.count).toBe(after.transactions - before.transactions);
    expect(waits.sum - waitsBefore.sum).toBeGreaterThan(0);
    const { rows } = await pool.query("select count(*)::int as n from decision where request_id like 'gc-%'");
    expect(rows[0].n).toBe(n);
  });
});

describe("GET /api/v1/decisions/:id", () => {
  it("returns the record with its outcomes", async () => {
    const d = await post({ operation: "SEND_SMS", region: "EU", requestId: "get-1", explain: "full" });
    await pool.query(
      `insert into provider_call_outcome (outcome_id, decision_id, operation_key, region, provider_key, status, error_class, latency_ms, retry_count, reported_at)
       values (gen_random_uuid(), $1, 'SEND_SMS', 'EU', $2, 'error', 'timeout', 812, 1, now())`,
      [d.body.decisionId, d.body.selected],
    );
    await pool.query(
      `insert into business_outcome (outcome_id, decision_id, operation_key, region, provider_key, completed, within_sla, reported_at)
       values (gen_random_uuid(), $1, 'SEND_SMS', 'EU', $2, true, true, now())`,
      [d.body.decisionId, d.body.selected],
    );
    const res = await fetch(`${server.url}/api/v1/decisions/${d.body.decisionId}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, any>;
    expect(body.decisionId).toBe(d.body.decisionId);
    expect(body.candidates).toEqual(d.body.candidates);
    expect(body.outcomes.providerCalls).toEqual([expect.objectContaining({ provider: d.body.selected, errorClass: "timeout", latencyMs: 812, retryCount: 1 })]);
    expect(body.outcomes.business).toEqual([expect.objectContaining({ completed: true, withinSla: true })]);
  });

  it("404 for an unknown id, 400 malformed for a non-UUID", async () => {
    expect((await fetch(`${server.url}/api/v1/decisions/0190a8b2-0000-7000-8000-000000000000`)).status).toBe(404);
    const bad = await fetch(`${server.url}/api/v1/decisions/nope`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Record<string, any>).error).toMatchObject({ code: "malformed", fields: [{ path: "id" }] });
  });
});

describe("GET /api/v1/openapi.json", () => {
  it("describes decide and decisions from the zod schemas", async () => {
    const doc = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as Record<string, any>;
    expect(doc.openapi).toBe("3.1.0");
    const decide = doc.paths["/api/v1/decide"].post;
    expect(decide.requestBody.content["application/json"].schema.required).toEqual(["operation", "region", "requestId"]);
    // Both shapes: the compact answer (default) and the full record.
    const shapes = decide.responses["200"].content["application/json"].schema.anyOf as Array<Record<string, any>>;
    expect(shapes).toHaveLength(2);
    expect(shapes.map((x) => Object.keys(x.properties).includes("order"))).toEqual([true, false]);
    expect(shapes.map((x) => Object.keys(x.properties).includes("candidates"))).toEqual([false, true]);
    expect(shapes.every((x) => x.properties.decisionId.type === "string")).toBe(true);
    expect(doc.paths["/api/v1/decisions/{id}"].get.parameters[0].name).toBe("id");
  });
});

describe("a body over the limit", () => {
  /** One raw HTTP/1.1 request; resolves with what the server sent before closing or within 5 s. */
  function rawPost(head: string, body: Buffer, chunked: boolean): Promise<string> {
    return new Promise((resolve) => {
      const socket = net.connect(server.port, "127.0.0.1");
      let got = "";
      const finish = () => {
        socket.destroy();
        resolve(got);
      };
      socket.on("data", (d) => {
        got += d.toString("latin1");
        if (/\r\n\r\n[\s\S]*\}$/.test(got)) finish();
      });
      socket.on("error", finish);
      socket.on("close", finish);
      setTimeout(finish, 5_000);
      socket.write(head);
      if (!chunked) socket.write(body);
      else {
        for (let at = 0; at < body.length; at += 64 * 1024) {
          const part = body.subarray(at, at + 64 * 1024);
          socket.write(`${part.length.toString(16)}\r\n`);
          socket.write(part);
          socket.write("\r\n");
        }
        socket.write("0\r\n\r\n");
      }
    });
  }

  it("is answered 413 with its JSON body, never a reset connection, declared or chunked", async () => {
    const body = Buffer.from(JSON.stringify({ operation: "SEND_SMS", region: "EU", requestId: "x".repeat(3 * 1024 * 1024) }));
    for (let i = 0; i < 5; i++) {
      for (const chunked of [false, true]) {
        const head =
          `POST /api/v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
          (chunked ? "Transfer-Encoding: chunked\r\n\r\n" : `Content-Length: ${body.length}\r\n\r\n`);
        const answer = await rawPost(head, body, chunked);
        expect(answer, chunked ? "chunked" : "declared").toMatch(/^HTTP\/1\.1 413 [\s\S]*"code":"payload_too_large"/);
      }
    }
  });
});
