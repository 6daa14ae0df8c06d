import { expect } from "vitest";
import type { PrismaClient } from "../../lib/db/generated/client";
import { ContractError } from "../../lib/errors/api-errors";
import type { TActor } from "../../lib/audit/actor";
import type { TRole } from "../../lib/auth/permissions";
import { createSession } from "../../lib/auth/session";
import { demoSmsPolicyYaml, seedDemo } from "../../lib/demo/seed-demo";

/** Test-only helpers: users in given roles, and the demo catalogue with SEND_SMS v1 active. */
let counter = 0;

export async function makeUser(prisma: PrismaClient, roles: TRole[], label = roles.join("+") || "none") {
  counter += 1;
  const user = await prisma.user.create({ data: { email: `${label}-${counter}-${Date.now()}@test.local`, name: label, roles } });
  const actor: TActor = { userId: user.id, label: user.email, ip: "127.0.0.1" };
  return { user, actor };
}

export async function makeSessionCookie(prisma: PrismaClient, userId: string): Promise<string> {
  const { token } = await createSession(prisma, userId);
  return `sy_session=${token}`;
}

export async function seedCatalog(prisma: PrismaClient): Promise<void> {
  await seedDemo(prisma);
}

export const BASE_YAML = () => demoSmsPolicyYaml();

/** Listing 1 with weights moved between two scores: not a gate or regional change. */
export const WEIGHTS_YAML = () =>
  demoSmsPolicyYaml()
    .replace("completion_rate_5m: {weight: 0.45", "completion_rate_5m: {weight: 0.40")
    .replace("p95_latency_5m: {weight: 0.20", "p95_latency_5m: {weight: 0.25");

/** Listing 1 without the metric-freshness gate: a gate change, which needs compliance too. */
export const GATES_YAML = () => demoSmsPolicyYaml().replace("  - metric_fresh_or_safe_default\n", "");

/** Awaits a call that must be refused and returns its ContractError. */
export async function refusal(p: Promise<unknown>): Promise<ContractError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ContractError);
  return err as ContractError;
}
