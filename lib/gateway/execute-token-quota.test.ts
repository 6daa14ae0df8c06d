import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayEnv, type TGatewayEnv } from "../../test/support/gateway-fixtures";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response shapes are asserted field by field
type TJson = any;

/**
 * A catalogued `tokens` quota is enforced in execute mode: each answer's usage (17 tokens from the
 * mock) is spent from the provider's window, counted for the cluster in provider_quota_window, and
 * once the window is spent the provider fails quota_available and calls go elsewhere. Tokens are
 * known only after a call, so the window may be overrun by at most the call that spent its last
 * tokens. The old code stored token quotas and never enforced them.
 */
let env: TGatewayEnv;
const LIMIT = 100;
const PER_CALL = 17;

beforeAll(async () => {
  env = await createGatewayEnv();
  await env.prisma.provider.update({
    where: { key: "llm_openai" },
    data: { quotas: [{ unit: "tokens", limit: LIMIT, windowSeconds: 86_400, reset: "fixed" }] },
  });
  await env.server.dataPlane.reloadConfig();
  for (let i = 0; i < 100 && !env.server.dataPlane.health().quotas.windows.some((w) => w.provider === "llm_openai" && w.granted > 0); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
}, 120_000);

afterAll(async () => {
  await env?.close();
});

/** Until the instance holds more tokens than it spent, or the table has granted the whole limit. */
async function leaseSettled(): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const w = env.server.dataPlane.health().quotas.windows.find((x) => x.provider === "llm_openai" && x.unit === "tokens");
    if (!w || w.granted > w.spent) return;
    const used = (await env.pool.query("select coalesce(max(used), 0)::float8 as used from provider_quota_window where provider_key = 'llm_openai'")).rows[0]
      .used;
    if (used >= LIMIT) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function execute(n: number): Promise<TJson> {
  const res = await fetch(`${env.server.url}/api/v1/execute/LLM_CHAT`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ region: "EU", input: { messages: [{ role: "user", content: `count ${n}` }], maxTokens: 16 } }),
  });
  expect(res.status).toBe(200);
  return res.json();
}

describe("a provider's token quota in execute mode", () => {
  it("spends each answer's tokens and routes elsewhere once the window's tokens are spent", async () => {
    const served: string[] = [];
    for (let n = 0; n < 15; n++) {
      served.push((await execute(n)).provider);
      // Leases are in the background: let each finish, as spaced traffic would, however slow the machine.
      await leaseSettled();
    }
    const openaiCalls = env.mocks.llm_openai.requests.length;
    const window = env.server.dataPlane.health().quotas.windows.find((w) => w.provider === "llm_openai" && w.unit === "tokens");
    const row = (
      await env.pool.query("select unit, used::float8 as used, quota_limit::float8 as quota_limit from provider_quota_window where provider_key = 'llm_openai'")
    ).rows[0];
    console.log(
      `token quota ${LIMIT}/day, ${PER_CALL} per call: served ${served.join(",")}; openai ${openaiCalls} calls, spent ${window?.spent}, table ${JSON.stringify(row)}`,
    );

    expect(window?.spent).toBe(openaiCalls * PER_CALL);
    // At most the limit, plus the one call that found tokens left and spent past them.
    expect(openaiCalls * PER_CALL).toBeLessThanOrEqual(LIMIT + PER_CALL);
    expect(openaiCalls * PER_CALL).toBeGreaterThanOrEqual(LIMIT - PER_CALL);
    expect(row).toMatchObject({ unit: "tokens", used: LIMIT, quota_limit: LIMIT });
    expect(served.slice(-3).every((p) => p !== "llm_openai")).toBe(true);

    const last = await execute(99);
    const decision = (await fetch(`${env.server.url}/api/v1/decisions/${last.decisionId}`).then((r) => r.json())) as TJson;
    const gate = decision.candidates.find((c: TJson) => c.provider === "llm_openai").gates.find((g: TJson) => g.gate === "quota_available");
    expect(gate).toMatchObject({ passed: false });
    expect(gate.detail).toMatch(/^100 tokens per 86400 s quota exhausted, resets in \d+s$/);
  }, 60_000);
});
