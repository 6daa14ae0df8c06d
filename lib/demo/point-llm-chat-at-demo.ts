import { randomBytes } from "node:crypto";
import type { PrismaClient } from "../db";
import { DEMO_LLM_PROVIDERS } from "./llm-provider-keys";
import { DEMO_LLM_BASE_PATHS } from "./llm-providers";

/** The demo providers check that a key is sent, as real ones do; the key exists only in this process. */
export const DEMO_LLM_CREDENTIAL_ENV = "SWITCHYARD_SECRET_DEMO_LLM_KEY";
/** Shorter than the mock's 5 s hang, so a simulated timeout is classified as one and fails over in time. */
const DEMO_LLM_TIMEOUT_MS = 2_500;

/**
 * Demo mode: LLM_CHAT's adapters call the demo providers on this machine instead of the public
 * APIs (the port changes on every start, so the rows are rewritten each time). Returns how many
 * adapters it pointed there; 0 when LLM_CHAT was not seeded.
 */
export async function pointLlmChatAtDemo(prisma: PrismaClient, baseUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  env[DEMO_LLM_CREDENTIAL_ENV] ||= `demo-${randomBytes(12).toString("hex")}`;
  let updated = 0;
  await prisma.$transaction(async (tx) => {
    for (const provider of DEMO_LLM_PROVIDERS) {
      const r = await tx.providerAdapter.updateMany({
        where: { providerKey: provider },
        data: { baseUrl: `${baseUrl}${DEMO_LLM_BASE_PATHS[provider]}`, credentialRef: `env:${DEMO_LLM_CREDENTIAL_ENV}`, timeoutMs: DEMO_LLM_TIMEOUT_MS },
      });
      // The provider's reference too: a catalogue edit rewrites the adapter's from it (lib/catalog).
      await tx.provider.updateMany({ where: { key: provider }, data: { credentialRef: `env:${DEMO_LLM_CREDENTIAL_ENV}` } });
      updated += r.count;
    }
  });
  return updated;
}
