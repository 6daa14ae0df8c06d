import { readFileSync } from "node:fs";
import { parseFactorList } from "../../router-core/index";
import type { PrismaClient } from "./generated/client";
import { isDemoMode } from "../auth/demo-mode";
import { seedDemoUsers } from "../auth/demo-users";

/** The paper's SMS scenario (seeds/000 section 6): three providers, one operation, region groups. */
export const DEMO_PROVIDERS = [
  {
    key: "provider_A",
    displayName: "Provider A (primary SMS)",
    supportedRegions: ["EU", "NA", "APAC"],
    complianceTags: ["gdpr", "soc2", "tcpa"],
    costPerRequest: "0.007500",
    credentialStatus: "valid",
  },
  {
    key: "provider_B",
    displayName: "Provider B (secondary SMS)",
    supportedRegions: ["EU", "NA", "APAC", "LATAM"],
    complianceTags: ["gdpr", "soc2", "tcpa"],
    costPerRequest: "0.007900",
    credentialStatus: "valid",
  },
  {
    key: "provider_C",
    displayName: "Provider C (budget SMS)",
    supportedRegions: ["EU", "NA", "LATAM"],
    complianceTags: ["soc2"],
    costPerRequest: "0.006200",
    credentialStatus: "valid",
  },
] as const;

export const DEMO_OPERATIONS = [
  { key: "SEND_SMS", description: "Send an SMS verification code to a user's phone", criticality: "critical" },
] as const;

/**
 * SEND_SMS version 1: the paper's Listing 1 as router-core's fixture holds it, plus the static
 * priority order of the three demo providers (the listing itself names no providers).
 */
export function demoSmsPolicyYaml(): string {
  const listing = readFileSync(new URL("../../router-core/policy/listing1.yaml", import.meta.url), "utf8");
  return `${listing.trimEnd()}\nproviders: [provider_A, provider_B, provider_C]\n`;
}

type TTx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

/**
 * SEND_SMS policy version 1, active, when the operation exists and has never had a factor list
 * (so a policy users created, retired or replaced is never touched).
 */
async function seedDemoPolicy(tx: TTx): Promise<boolean> {
  const operation = await tx.operation.findUnique({ where: { key: "SEND_SMS" } });
  if (!operation || (await tx.factorListVersion.count({ where: { operationKey: "SEND_SMS" } })) > 0) return false;
  if (await tx.operationPolicy.findUnique({ where: { operationKey: "SEND_SMS" } })) return false;
  const yaml = demoSmsPolicyYaml();
  const parsed = parseFactorList(yaml);
  if (!parsed.ok) throw new Error(`demo policy does not parse: ${parsed.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
  const now = new Date();
  const version = await tx.factorListVersion.create({
    data: {
      operationKey: "SEND_SMS",
      version: 1,
      status: "active",
      document: parsed.value,
      yaml,
      changeNote: "Demo seed: the paper's Listing 1 with providers A, B, C in priority order",
      submittedAt: now,
      approvedAt: now,
      activatedAt: now,
    },
  });
  await tx.operationPolicy.create({ data: { operationKey: "SEND_SMS", activeVersionId: version.id } });
  return true;
}

/**
 * Seeds the demo catalogue once. Returns false when the database already holds operations
 * (unless it only lacked the demo policy), so a restart never re-seeds over what users changed.
 */
export async function seedDemo(prisma: PrismaClient): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    // Demo users are upserted on every demo-mode boot (also into databases seeded before they existed).
    if (isDemoMode()) await seedDemoUsers(tx);
    // A database seeded before the demo policy existed gets the policy alone, once.
    if ((await tx.operation.count()) > 0) return seedDemoPolicy(tx);
    for (const p of DEMO_PROVIDERS) {
      await tx.provider.create({ data: { ...p, supportedRegions: [...p.supportedRegions], complianceTags: [...p.complianceTags] } });
    }
    for (const o of DEMO_OPERATIONS) await tx.operation.create({ data: { ...o } });
    await seedDemoPolicy(tx);
    return true;
  });
}
