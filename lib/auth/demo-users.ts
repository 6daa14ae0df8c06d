import type { Prisma } from "../db";
import type { TRole } from "./permissions";

/** One demo user per role; no password hash, so they exist only for demo mode's sign-in. */
export const DEMO_USERS: readonly { email: string; name: string; roles: TRole[] }[] = [
  { email: "viewer@demo.switchyard.local", name: "Vera Viewer", roles: ["viewer"] },
  { email: "oncall@demo.switchyard.local", name: "Omar On-call", roles: ["on_call"] },
  { email: "author@demo.switchyard.local", name: "Ada Author", roles: ["policy_author"] },
  { email: "compliance@demo.switchyard.local", name: "Chen Compliance", roles: ["compliance"] },
  { email: "approver@demo.switchyard.local", name: "Priya Approver", roles: ["approver"] },
  { email: "admin@demo.switchyard.local", name: "Ari Admin", roles: ["admin"] },
];

export async function seedDemoUsers(tx: Prisma.TransactionClient): Promise<void> {
  for (const u of DEMO_USERS) {
    await tx.user.upsert({
      where: { email: u.email },
      update: {},
      create: { email: u.email, name: u.name, roles: u.roles, demo: true, passwordHash: null },
    });
  }
}
