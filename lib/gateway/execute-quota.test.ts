import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayEnv, type TGatewayEnv } from "../../test/support/gateway-fixtures";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response shapes are asserted field by field
type TJson = any;

/**
 * Execute's failover calls spend the provider's call quota like routed decisions do. LLM_CHAT's
 * primary times out; its two secondaries have a quota of 2 calls per hour each. Six concurrent
 * executions are all decided while the quotas still admit, so every one of them fails over: the
 * secondaries may take 2 calls each, and the rest must be skipped before the call. The old code
 * counted only the routed provider, so all six failed over to the best secondary.
 */
let env: TGatewayEnv;
const SECONDARIES = ["llm_anthropic", "llm_gemini"] as const;

beforeAll(async () => {
  env = await createGatewayEnv();
  await env.prisma.providerAdapter.update({ where: { providerKey: "llm_openai" }, data: { timeoutMs: 300 } });
  for (const key of SECONDARIES) {
    await env.prisma.provider.update({ where: { key }, data: { quotas: [{ unit: "requests", limit: 2, windowSeconds: 3_600, reset: "fixed" }] } });
  }
  // Enough retry budget for six concurrent failovers: the quota, not the budget, is under test.
  await env.prisma.gatewayOperation.update({ where: { operationKey: "LLM_CHAT" }, data: { retryBudgetMinPerSecond: 100 } });
  await env.server.dataPlane.reloadConfig();
  await env.reload();
  // The first blocks are leased in the background after a reload.
  for (let i = 0; i < 100; i++) {
    const windows = env.server.dataPlane.health().quotas.windows;
    if (SECONDARIES.every((k) => windows.some((w) => w.provider === k && w.granted > 0))) break;
    await new Promise((r) => setTimeout(r, 50));
  }
}, 120_000);

afterAll(async () => {
  await env?.close();
});

async function execute(n: number): Promise<{ status: number; json: TJson }> {
  const res = await fetch(`${env.server.url}/api/v1/execute/LLM_CHAT`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ region: "EU", input: { messages: [{ role: "user", content: `hello ${n}` }], maxTokens: 16 } }),
  });
  return { status: res.status, json: await res.json() };
}

describe("execute failover under a call quota", () => {
  it("counts failover calls against the quota and skips a provider whose quota ran out since the decision", async () => {
    env.mocks.llm_openai.setAlways({ type: "timeout" });
    const answers = await Promise.all([0, 1, 2, 3, 4, 5].map(execute));
    env.mocks.llm_openai.setAlways(null);

    const calls = Object.fromEntries(SECONDARIES.map((k) => [k, env.mocks[k].requests.length]));
    const windows = env.server.dataPlane.health().quotas.windows;
    const spent = Object.fromEntries(SECONDARIES.map((k) => [k, windows.find((w) => w.provider === k)?.spent ?? 0]));
    const skipped = answers.flatMap((a) => a.json.attempts ?? []).filter((a: TJson) => a.called === false && /quota exhausted/.test(a.detail));
    console.log(
      `execute under quota: statuses ${answers.map((a) => a.status).join(",")}; calls ${JSON.stringify(calls)}; spent ${JSON.stringify(spent)}; ${skipped.length} skipped`,
    );

    for (const k of SECONDARIES) {
      expect(calls[k]).toBeLessThanOrEqual(2);
      // Every call was counted: the quota's own count matches what the provider saw.
      expect(spent[k]).toBe(calls[k]);
    }
    expect(answers.filter((a) => a.status === 200)).toHaveLength(calls.llm_anthropic! + calls.llm_gemini!);
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped[0].detail).toMatch(/^2 requests per 3600 s quota exhausted(, resets in \d+s)?; not called$/);
    for (const a of answers.filter((x) => x.status !== 200)) expect(a.json.error.code).toMatch(/^(all_attempts_failed|no_callable_provider)$/);
  }, 60_000);
});
