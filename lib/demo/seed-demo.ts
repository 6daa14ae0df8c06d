import { readFileSync } from "node:fs";
import { parseFactorList } from "../../router-core/index";
import type { PrismaClient } from "../db";
import { isDemoMode, DEMO_USERS, seedDemoUsers } from "../auth";
import type { TActor } from "../audit";
import { createFactorListDraft, submitFactorList, approveFactorList, shadowFactorList } from "../controlplane";

/** The paper's SMS scenario: three providers, one operation, region groups. */
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

/**
 * EU SMS requires GDPR (the catalogue's regional requirement, enforced by the compliance gate):
 * provider_C, SOC 2 only, never serves EU SMS under the active policy.
 */
export const DEMO_OPERATIONS = [
  { key: "SEND_SMS", description: "Send an SMS verification code to a user's phone", criticality: "critical", regionRequirements: { EU: ["gdpr"] } },
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
 * Demo mode's second operation, so the simulated traffic and the overview have more than SMS:
 * two email providers and a factor list in Listing 1's shape. Demo mode only (the simulator that
 * feeds it runs only there), and only while no SEND_EMAIL operation exists.
 */
const EMAIL_PROVIDERS = [
  {
    key: "provider_D",
    displayName: "Provider D (primary email)",
    supportedRegions: ["EU", "NA", "APAC"],
    complianceTags: ["gdpr", "soc2"],
    costPerRequest: "0.000900",
    credentialStatus: "valid",
  },
  {
    key: "provider_E",
    displayName: "Provider E (secondary email)",
    supportedRegions: ["EU", "NA", "APAC"],
    complianceTags: ["gdpr", "soc2"],
    costPerRequest: "0.000700",
    credentialStatus: "valid",
  },
] as const;

export function demoEmailPolicyYaml(): string {
  return demoSmsPolicyYaml()
    .replace(/^operation: SEND_SMS$/m, "operation: SEND_EMAIL")
    .replace(/^providers: .*$/m, "providers: [provider_D, provider_E]");
}

async function seedDemoEmail(tx: TTx): Promise<boolean> {
  if (await tx.operation.findUnique({ where: { key: "SEND_EMAIL" } })) return false;
  for (const p of EMAIL_PROVIDERS) {
    await tx.provider.upsert({
      where: { key: p.key },
      update: {},
      create: { ...p, supportedRegions: [...p.supportedRegions], complianceTags: [...p.complianceTags] },
    });
  }
  await tx.operation.create({ data: { key: "SEND_EMAIL", description: "Send a transactional email (receipts, password resets)", criticality: "high" } });
  const yaml = demoEmailPolicyYaml();
  const parsed = parseFactorList(yaml);
  if (!parsed.ok) throw new Error(`demo email policy does not parse: ${parsed.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
  const now = new Date();
  const version = await tx.factorListVersion.create({
    data: {
      operationKey: "SEND_EMAIL",
      version: 1,
      status: "active",
      document: parsed.value,
      yaml,
      changeNote: "Demo seed: Listing 1's weights and safety for email providers D and E",
      submittedAt: now,
      approvedAt: now,
      activatedAt: now,
    },
  });
  await tx.operationPolicy.create({ data: { operationKey: "SEND_EMAIL", activeVersionId: version.id } });
  return true;
}

/** SEND_SMS version 2: latency weighs as much as completion. In shadow, it shows what it would have picked. */
export function demoSmsShadowYaml(): string {
  return demoSmsPolicyYaml()
    .replace(/completion_rate_5m: \{weight: 0\.45/, "completion_rate_5m: {weight: 0.35")
    .replace(/p95_latency_5m: \{weight: 0\.20/, "p95_latency_5m: {weight: 0.30");
}

/**
 * Puts the latency-heavier SEND_SMS draft in shadow through governance's own lifecycle (the demo
 * author creates and submits it, the demo approver approves and shadows it, each step audited),
 * once: only while SEND_SMS has nothing but the seeded version 1.
 */
async function seedDemoShadow(prisma: PrismaClient): Promise<boolean> {
  const versions = await prisma.factorListVersion.count({ where: { operationKey: "SEND_SMS" } });
  const policy = await prisma.operationPolicy.findUnique({ where: { operationKey: "SEND_SMS" } });
  if (versions !== 1 || !policy?.activeVersionId || policy.shadowVersionId) return false;
  const actorFor = async (role: string): Promise<TActor> => {
    const email = DEMO_USERS.find((u) => u.roles.includes(role as (typeof u.roles)[number]))!.email;
    const user = await prisma.user.findUniqueOrThrow({ where: { email } });
    return { userId: user.id, label: user.email, ip: null };
  };
  const author = await actorFor("policy_author");
  const approver = await actorFor("approver");
  const draft = await createFactorListDraft(prisma, author, {
    yaml: demoSmsShadowYaml(),
    changeNote: "Latency weighs as much as completion (0.35 / 0.30): does it pick faster providers without losing completions?",
  });
  await submitFactorList(prisma, author, draft.id);
  await approveFactorList(prisma, approver, draft.id, "approver", "Try it in shadow first");
  await shadowFactorList(prisma, approver, draft.id, { reason: "Demo: compare against Listing 1 on live traffic" });
  return true;
}

/**
 * LLM_CHAT: an execute-mode operation (lib/gateway) over three LLM APIs, one per adapter kind.
 * Credentials are references to environment variables; without them set, execute skips the
 * provider (it is never called with no key). `baseUrls` points them elsewhere (a local mock in
 * tests and benchmarks).
 */
export const LLM_CHAT_PROVIDERS = [
  {
    key: "llm_openai",
    displayName: "OpenAI (chat completions)",
    costPerRequest: "0.002000",
    adapter: {
      kind: "openai_chat",
      baseUrl: "https://api.openai.com/v1",
      model: "gpt-4o-mini",
      contextWindow: 128_000,
      inputPricePer1k: 0.00015,
      outputPricePer1k: 0.0006,
      credentialRef: "env:OPENAI_API_KEY",
    },
  },
  {
    key: "llm_anthropic",
    displayName: "Anthropic (messages)",
    costPerRequest: "0.003000",
    adapter: {
      kind: "anthropic_messages",
      baseUrl: "https://api.anthropic.com/v1",
      model: "claude-3-5-haiku-latest",
      contextWindow: 200_000,
      inputPricePer1k: 0.0008,
      outputPricePer1k: 0.004,
      credentialRef: "env:ANTHROPIC_API_KEY",
    },
  },
  {
    key: "llm_gemini",
    displayName: "Google Gemini (generateContent)",
    costPerRequest: "0.001000",
    adapter: {
      kind: "gemini_generate",
      baseUrl: "https://generativelanguage.googleapis.com/v1beta",
      model: "gemini-2.0-flash",
      contextWindow: 1_048_576,
      inputPricePer1k: 0.0001,
      outputPricePer1k: 0.0004,
      credentialRef: "env:GEMINI_API_KEY",
    },
  },
] as const;

export function llmChatPolicyYaml(): string {
  return `operation: LLM_CHAT
description: Chat completion through execute mode; fails over across three LLM APIs
providers: [llm_openai, llm_anthropic, llm_gemini]
refresh_interval_seconds: 30
metric_window_minutes: 5
min_sample_size: 20
fallback_policy: use_secondary_then_degraded_message
gates: [supports_region, credentials_valid, quota_available, circuit_breaker_closed, metric_fresh_or_safe_default]
scores:
  completion_rate_5m: {weight: 0.45, direction: higher}
  p95_latency_5m: {weight: 0.20, direction: lower}
  cost_per_request: {weight: 0.15, direction: lower}
  recent_incident_penalty: {weight: 0.10, direction: lower}
  confidence_from_sample: {weight: 0.10, direction: higher}
`;
}

/** Creates LLM_CHAT, its providers, adapters and active policy once (false when it exists). */
export async function seedLlmChat(prisma: PrismaClient, opts: { baseUrls?: Partial<Record<string, string>> } = {}): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    if (await tx.operation.findUnique({ where: { key: "LLM_CHAT" } })) return false;
    for (const p of LLM_CHAT_PROVIDERS) {
      await tx.provider.upsert({
        where: { key: p.key },
        update: {},
        create: {
          key: p.key,
          displayName: p.displayName,
          supportedRegions: ["EU", "NA", "APAC"],
          complianceTags: ["soc2"],
          costPerRequest: p.costPerRequest,
          credentialStatus: "valid",
          credentialRef: p.adapter.credentialRef,
          costPerInputToken1k: p.adapter.inputPricePer1k.toFixed(6),
          costPerOutputToken1k: p.adapter.outputPricePer1k.toFixed(6),
        },
      });
      const a = p.adapter;
      await tx.providerAdapter.upsert({
        where: { providerKey: p.key },
        update: {},
        create: {
          providerKey: p.key,
          kind: a.kind,
          baseUrl: opts.baseUrls?.[p.key] ?? a.baseUrl,
          model: a.model,
          contextWindow: a.contextWindow,
          inputPricePer1k: a.inputPricePer1k,
          outputPricePer1k: a.outputPricePer1k,
          credentialRef: a.credentialRef,
          timeoutMs: 30_000,
        },
      });
    }
    await tx.operation.create({
      data: { key: "LLM_CHAT", description: "Chat completion through execute mode (POST /api/v1/execute/LLM_CHAT)", criticality: "medium" },
    });
    const yaml = llmChatPolicyYaml();
    const parsed = parseFactorList(yaml);
    if (!parsed.ok) throw new Error(`LLM_CHAT policy does not parse: ${parsed.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
    const now = new Date();
    const version = await tx.factorListVersion.create({
      data: {
        operationKey: "LLM_CHAT",
        version: 1,
        status: "active",
        document: parsed.value,
        yaml,
        changeNote: "Demo seed: execute mode over three LLM APIs",
        submittedAt: now,
        approvedAt: now,
        activatedAt: now,
      },
    });
    await tx.operationPolicy.create({ data: { operationKey: "LLM_CHAT", activeVersionId: version.id } });
    await tx.gatewayOperation.create({ data: { operationKey: "LLM_CHAT", deadlineMs: 60_000, maxAttempts: 3 } });
    return true;
  });
}

/**
 * Seeds the demo catalogue once. Returns false when the database already holds operations
 * (unless it only lacked the demo policy), so a restart never re-seeds over what users changed.
 * In demo mode also the email operation and the SMS shadow version, each once.
 */
export async function seedDemo(prisma: PrismaClient): Promise<boolean> {
  const seeded = await seedDemoCatalog(prisma);
  if (!isDemoMode()) return seeded;
  const email = await prisma.$transaction((tx) => seedDemoEmail(tx));
  const shadow = await seedDemoShadow(prisma);
  const llm = await seedLlmChat(prisma);
  return seeded || email || shadow || llm;
}

/** The regions and certifications the demo catalogue names, declared as every install's must be. */
const DEMO_REGIONS = ["APAC", "EU", "LATAM", "NA"] as const;
const DEMO_CERTIFICATIONS = [
  { name: "gdpr", description: "EU General Data Protection Regulation" },
  { name: "soc2", description: "SOC 2 Type II report" },
  { name: "tcpa", description: "US Telephone Consumer Protection Act (SMS consent)" },
] as const;

async function seedDemoDeclarations(tx: TTx): Promise<void> {
  await tx.certification.createMany({ data: [...DEMO_CERTIFICATIONS], skipDuplicates: true });
  await tx.region.createMany({ data: DEMO_REGIONS.map((name) => ({ name })), skipDuplicates: true });
}

async function seedDemoCatalog(prisma: PrismaClient): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    // Demo users are upserted on every demo-mode boot (also into databases seeded before they existed).
    if (isDemoMode()) await seedDemoUsers(tx);
    // A database seeded before the demo policy existed gets the policy alone, once.
    if ((await tx.operation.count()) > 0) {
      // Seeded before operations had regional requirements, and never edited since (version 1): EU SMS requires GDPR.
      await tx.operation.updateMany({
        where: { key: "SEND_SMS", version: 1, regionRequirements: { equals: {} } },
        data: { regionRequirements: { EU: ["gdpr"] } },
      });
      return seedDemoPolicy(tx);
    }
    await seedDemoDeclarations(tx);
    for (const p of DEMO_PROVIDERS) {
      await tx.provider.create({ data: { ...p, supportedRegions: [...p.supportedRegions], complianceTags: [...p.complianceTags] } });
    }
    for (const o of DEMO_OPERATIONS) await tx.operation.create({ data: { ...o, regionRequirements: { EU: [...o.regionRequirements.EU] } } });
    await seedDemoPolicy(tx);
    return true;
  });
}
