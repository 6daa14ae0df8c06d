import { expect, type APIRequestContext } from "@playwright/test";
import { createAdmin } from "../../lib/controlplane/users/create-admin";
import type { TRole } from "../../lib/auth/permissions";
import { createPrisma } from "../../lib/db/client";
import { ContractError } from "../../lib/errors/api-errors";

/**
 * The e2e server runs on a DATABASE_URL, so it is not in demo mode and no account exists. As an
 * operator would: the first admin comes from governance's createAdmin (what `npm run
 * user:create-admin` runs), and that admin creates one user per role through POST /api/control/users.
 */
export type TE2eRole = Exclude<TRole, "admin"> | "admin";

const ROLES: TE2eRole[] = ["viewer", "on_call", "policy_author", "compliance", "approver", "admin"];

export const emailOf = (role: TE2eRole) => `e2e-${role.replace("_", "-")}@switchyard.test`;

/** One password for the run's throwaway accounts, derived from the run's secret API key. */
export function passwordOf(): string {
  const secret = process.env.SWITCHYARD_API_KEY;
  if (!secret) throw new Error("SWITCHYARD_API_KEY is not set: run the specs through `npm run test:e2e`");
  return `pw-${secret.slice(-20)}`;
}

export const originOf = () => process.env.E2E_BASE_URL ?? "http://127.0.0.1:3000";

export async function signIn(request: APIRequestContext, role: TE2eRole): Promise<void> {
  const res = await request.post("/api/auth/login", { headers: { origin: originOf() }, data: { email: emailOf(role), password: passwordOf() } });
  expect(res.status(), await res.text()).toBe(200);
}

/** Creates the accounts once per database; later calls (other spec files) find them in place. */
export async function ensureAccounts(request: APIRequestContext): Promise<void> {
  const url = process.env.E2E_DATABASE_URL;
  if (!url) throw new Error("E2E_DATABASE_URL is not set: run the specs through `npm run test:e2e`");
  const prisma = createPrisma(url);
  try {
    await createAdmin(prisma, { email: emailOf("admin"), password: passwordOf(), name: "E2E Admin" });
  } catch (err) {
    if (!(err instanceof ContractError && err.code === "email_taken")) throw err;
    return;
  } finally {
    await prisma.$disconnect();
  }
  await signIn(request, "admin");
  for (const role of ROLES.filter((r) => r !== "admin")) {
    const res = await request.post("/api/control/users", {
      headers: { origin: originOf() },
      data: { email: emailOf(role), name: `E2E ${role}`, password: passwordOf(), roles: [role] },
    });
    expect(res.status(), await res.text()).toBe(201);
  }
}
