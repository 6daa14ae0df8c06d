import { randomUUID } from "node:crypto";
import type { PrismaClient } from "../../lib/db/generated/client";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { createSession, resolveSession } from "../../lib/auth/session";
import { createApiKey } from "../../lib/controlplane/api-keys/create-api-key";
import type { TControlFixture } from "./control-targets";
import type { TDataPlaneFixture } from "./dataplane-targets";

const REGIONS = ["EU", "US", "APAC", "LATAM"];

/**
 * Valid material for the data-plane fuzzer: keys that each lack one scope, and decisions that
 * exist (made through the API), so mutations start one step away from a valid call.
 */
export async function prepareDataPlaneFixture(opts: { port: number; prisma: PrismaClient; apiKey: string }): Promise<TDataPlaneFixture> {
  const decideOnly = await createApiKey(opts.prisma, SYSTEM_ACTOR, { name: "fuzz decide-only", scopes: ["decide"], operationKeys: [] });
  const outcomesOnly = await createApiKey(opts.prisma, SYSTEM_ACTOR, { name: "fuzz outcomes-only", scopes: ["outcomes"], operationKeys: [] });
  const operations = (await opts.prisma.operation.findMany({ select: { key: true }, orderBy: { key: "asc" } })).map((o) => o.key);
  const decisionIds: string[] = [];
  const decided: TDataPlaneFixture["decided"] = [];
  const usable = { operations: new Set<string>(), regions: new Set<string>() };
  for (const operation of operations) {
    for (const region of REGIONS) {
      const requestId = randomUUID();
      const res = await fetch(`http://127.0.0.1:${opts.port}/api/v1/decide`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${opts.apiKey}` },
        body: JSON.stringify({ operation, region, requestId }),
      });
      const body = (await res.json()) as { decisionId?: string };
      if (res.status === 200 && body.decisionId) {
        decisionIds.push(body.decisionId);
        decided.push({ operation, region, requestId });
        usable.operations.add(operation);
        usable.regions.add(region);
      }
    }
  }
  if (decisionIds.length === 0) throw new Error("no decide call succeeded: the fuzz database has no routable operation");
  return {
    port: opts.port,
    apiKey: opts.apiKey,
    keysLacking: { decide: outcomesOnly.key, outcomes: decideOnly.key, read: outcomesOnly.key },
    decisionIds,
    decided,
    operations: [...usable.operations],
    regions: [...usable.regions],
  };
}

/** An admin session for the in-process control-plane calls; a new one is minted if a fuzzed sign-out ends it. */
export async function prepareControlFixture(
  prisma: PrismaClient,
  origin: string,
): Promise<TControlFixture & { tokens: () => string[]; ensureSession: () => Promise<boolean> }> {
  const user = await prisma.user.create({ data: { email: `fuzz-admin-${randomUUID()}@fuzz.local`, name: "fuzz admin", roles: ["admin"] } });
  const tokens: string[] = [(await createSession(prisma, user.id)).token];
  return {
    origin,
    adminToken: async () => tokens.at(-1)!,
    /** True when it had to mint a new session (a row the request under test did not write). */
    ensureSession: async () => {
      if (await resolveSession(prisma, tokens.at(-1)!)) return false;
      tokens.push((await createSession(prisma, user.id)).token);
      return true;
    },
    tokens: () => [...tokens],
  };
}
