import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { makeSessionCookie, makeUser, seedCatalog } from "../../test/support/controlplane-fixtures";
import { verifyAuditChain } from "../audit/verify-audit-chain";
import { CLIENT_IP_HEADER } from "./client-ip";
import { hashPassword } from "./password";
import { POST as login } from "@/app/(auth)/api/auth/login/route";
import { POST as createOverrideRoute } from "@/app/api/control/overrides/route";
import { POST as endOverrideRoute } from "@/app/api/control/overrides/[id]/end/route";

/**
 * Sign-in throttling (issue 25, item 4) and a failed-login flood next to governance writes
 * (item 5), through the route handlers on a real Postgres.
 */
const ORIGIN = "http://switchyard.test";
const PASSWORD = "correct horse battery staple";

let db: TTestDatabase;
let prisma: PrismaClient;
let onCallCookie: string;

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  const passwordHash = await hashPassword(PASSWORD);
  await prisma.user.createMany({
    data: ["owner@switchyard.test", "flooded@switchyard.test"].map((email) => ({ email, name: email, passwordHash, roles: ["viewer" as const] })),
  });
  onCallCookie = await makeSessionCookie(prisma, (await makeUser(prisma, ["on_call"])).user.id);
  // Load and warm the override routes, so the floods time creations rather than the first import.
  await flood(0, 1, () => ({ email: "", ip: "" }));
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

function signIn(email: string, password: string, ip: string): Promise<Response> {
  return login(
    new Request(`${ORIGIN}/api/auth/login`, {
      method: "POST",
      headers: { host: new URL(ORIGIN).host, origin: ORIGIN, "content-type": "application/json", [CLIENT_IP_HEADER]: ip },
      body: JSON.stringify({ email, password }),
    }),
  );
}

const auditCount = () => prisma.auditEntry.count();

describe("sign-in throttle at the route", () => {
  it("answers 429 with Retry-After after a few failures from one address, before the database: the right password waits too, elsewhere it works", async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    const before = await auditCount();
    for (let i = 0; i < 30; i++) {
      const res = await signIn("owner@switchyard.test", `wrong password ${i}`, "198.51.100.10");
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter = res.headers.get("retry-after");
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("throttled");
      }
    }
    expect(statuses.slice(0, 6)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(statuses.slice(6).every((s) => s === 429)).toBe(true);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    // Only the attempts that reached a password check were written; the refused ones are counted in the next entry.
    expect((await auditCount()) - before).toBe(6);

    const blocked = await signIn("owner@switchyard.test", PASSWORD, "198.51.100.10");
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("set-cookie")).toBeNull();
    expect((await auditCount()) - before).toBe(6);

    const elsewhere = await signIn("owner@switchyard.test", PASSWORD, "198.51.100.11");
    expect(elsewhere.status).toBe(200);
    expect(((await elsewhere.json()) as { next: string }).next).toBe("/");
    const last = await prisma.auditEntry.findFirstOrThrow({ orderBy: { seq: "desc" } });
    expect(last.action).toBe("auth.sign_in");
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: true });
  });

  it("returns the page to go to next only as a path on this site", async () => {
    const res = await login(
      new Request(`${ORIGIN}/api/auth/login`, {
        method: "POST",
        headers: { host: new URL(ORIGIN).host, origin: ORIGIN, "content-type": "application/json", [CLIENT_IP_HEADER]: "198.51.100.12" },
        body: JSON.stringify({ email: "owner@switchyard.test", password: PASSWORD, next: "/\t/attacker.invalid/phish" }),
      }),
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { next: string }).next).toBe("/");
  });
});

type TFloodResult = { statuses: Record<number, number>; overrideMs: number[]; overrideStatuses: number[] };

/** Sends `total` failed sign-ins, `concurrency` at a time, while on-call creates and ends overrides one after another. */
async function flood(
  total: number,
  concurrency: number,
  attempt: (i: number) => { email: string; ip: string },
  minimum = total > 0 ? 10 : 2,
): Promise<TFloodResult> {
  const statuses: Record<number, number> = {};
  let next = 0;
  let done = false;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const { email, ip } = attempt(i);
      // A handler that throws is what Next answers with a 500.
      const status = await signIn(email, `wrong password ${i}`, ip).then(
        async (res) => (await res.body?.cancel(), res.status),
        () => 500,
      );
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  const overrideMs: number[] = [];
  const overrideStatuses: number[] = [];
  const governance = async () => {
    while (!done || overrideMs.length < minimum) {
      const t0 = performance.now();
      const res = await createOverrideRoute(
        new Request(`${ORIGIN}/api/control/overrides`, {
          method: "POST",
          headers: { host: new URL(ORIGIN).host, origin: ORIGIN, cookie: onCallCookie, "content-type": "application/json" },
          body: JSON.stringify({ kind: "provider_kill", providerKey: "provider_A", operationKey: "SEND_SMS", region: "EU", reason: "flood test: A out in EU" }),
        }),
        { params: Promise.resolve({}) },
      );
      overrideMs.push(performance.now() - t0);
      overrideStatuses.push(res.status);
      const body = (await res.json()) as { override?: { id: string } };
      if (!body.override) continue;
      await endOverrideRoute(
        new Request(`${ORIGIN}/api/control/overrides/${body.override.id}/end`, {
          method: "POST",
          headers: { host: new URL(ORIGIN).host, origin: ORIGIN, cookie: onCallCookie, "content-type": "application/json" },
          body: JSON.stringify({ reason: "flood test over" }),
        }),
        { params: Promise.resolve({ id: body.override.id }) },
      );
    }
  };
  const gov = governance();
  await Promise.all(Array.from({ length: concurrency }, worker));
  done = true;
  await gov;
  return { statuses, overrideMs, overrideStatuses };
}

function p99(ms: number[]): number {
  const sorted = [...ms].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
}

describe("a failed-login flood does not break governance writes", () => {
  it("400 failed sign-ins at concurrency 50 from one address: no 5xx, overrides created in under a second", async () => {
    const r = await flood(400, 50, () => ({ email: "flooded@switchyard.test", ip: "203.0.113.50" }));
    const p = p99(r.overrideMs);
    console.log(`flood from one address: ${JSON.stringify(r.statuses)}; ${r.overrideMs.length} override creations, p99 ${p.toFixed(0)} ms`);
    expect(Object.keys(r.statuses).filter((s) => Number(s) >= 500)).toEqual([]);
    expect(r.overrideStatuses.every((s) => s === 201)).toBe(true);
    expect(p).toBeLessThan(1000);
  });

  it("400 failed sign-ins at concurrency 50 from 400 addresses for 400 accounts (nothing to throttle): no 5xx, overrides created in under a second", async () => {
    const r = await flood(400, 50, (i) => ({ email: `nobody-${i}@switchyard.test`, ip: `10.1.${Math.floor(i / 250)}.${i % 250}` }));
    const p = p99(r.overrideMs);
    console.log(`flood from 400 addresses: ${JSON.stringify(r.statuses)}; ${r.overrideMs.length} override creations, p99 ${p.toFixed(0)} ms`);
    expect(Object.keys(r.statuses).filter((s) => Number(s) >= 500)).toEqual([]);
    expect(r.overrideStatuses.every((s) => s === 201)).toBe(true);
    expect(p).toBeLessThan(1000);
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: true });
  }, 120_000);
});
