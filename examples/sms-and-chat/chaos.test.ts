import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockProvider, type TMockProvider } from "../../test/support/mock-provider";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { startServerProcess, type TServerProcess } from "../../client/test/server-process";
import { startService, type TService } from "./service";

// The chaos run keeps Switchyard down for 30 s: CHAOS_DOWN_SECONDS=30 (the suite uses 5).
const DOWN_SECONDS = Number(process.env.CHAOS_DOWN_SECONDS ?? 5);
const API_KEY = "chaos-test-key";
let db: TTestDatabase;
let pool: pg.Pool;
let server: TServerProcess;
let providers: TMockProvider[];
let service: TService;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  server = await startServerProcess({ databaseUrl: db.url, apiKey: API_KEY });
  providers = await Promise.all([startMockProvider({ kind: "http_json" }), startMockProvider({ kind: "http_json" })]);
  service = await startService({
    switchyardUrl: server.url,
    apiKey: API_KEY,
    providerUrls: { provider_A: providers[0]!.url, provider_B: providers[1]!.url, provider_C: providers[1]!.url },
  });
}, 120_000);
afterAll(async () => {
  await service?.close();
  await server?.stop();
  await Promise.all((providers ?? []).map((p) => p.close()));
  await pool?.end();
  await db?.drop();
});

describe("chaos: the example service routes in local mode while Switchyard is SIGKILLed", () => {
  it(`never stops sending, and afterwards every decision is in the log or counted as dropped (down ${DOWN_SECONDS} s)`, async () => {
    const ids: string[] = [];
    const failures: string[] = [];
    const phases = { before: 0, down: 0, after: 0 };
    let phase: keyof typeof phases = "before";
    let running = true;
    const load = (async () => {
      while (running) {
        const r = await fetch(`${service.url}/sms`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ to: "+100", text: "x", local: true }),
        });
        const body = (await r.json()) as { sent: boolean; decisionId: string; source: string };
        if (r.status !== 200 || body.source !== "local") failures.push(`${phase}: ${r.status} ${JSON.stringify(body)}`);
        else {
          ids.push(body.decisionId);
          phases[phase]++;
        }
        await new Promise((res) => setTimeout(res, 20));
      }
    })();
    await new Promise((res) => setTimeout(res, 2_000));
    await server.kill();
    phase = "down";
    await new Promise((res) => setTimeout(res, DOWN_SECONDS * 1_000));
    await server.restart();
    phase = "after";
    await new Promise((res) => setTimeout(res, 2_000));
    running = false;
    await load;

    expect(failures).toEqual([]);
    expect(phases.before).toBeGreaterThan(0);
    expect(phases.down).toBeGreaterThan(0);
    expect(phases.after).toBeGreaterThan(0);
    const deadline = Date.now() + 30_000;
    while (service.switchyard.stats().local.pending > 0 && Date.now() < deadline) {
      await service.switchyard.flush().catch(() => {});
      await new Promise((res) => setTimeout(res, 100));
    }
    const s = service.switchyard.stats().local;
    expect(s.made).toBe(ids.length);
    expect(s.pending).toBe(0);
    const logged = await pool.query<{ n: number }>(`select count(*)::int as n from decision where id = any($1::uuid[]) and record->>'mode' = 'local'`, [ids]);
    const missing = ids.length - s.dropped - logged.rows[0]!.n;
    process.stdout.write(
      `chaos: ${ids.length} local decisions (before ${phases.before}, down ${phases.down}, after ${phases.after}); logged ${logged.rows[0]!.n}, dropped ${s.dropped}, missing ${missing}\n`,
    );
    expect(missing).toBe(0);
    expect(s.reported + s.dropped + s.refused).toBe(s.made);
  }, 180_000);
});
