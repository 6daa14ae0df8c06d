import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayEnv, setLlmPolicy, type TGatewayEnv } from "../../test/support/gateway-fixtures";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response shapes are asserted field by field
type TJson = any;

/**
 * A provider that answered 429 + Retry-After is skipped by execute mode until the reset, whatever
 * the factor list's gates say: here LLM_CHAT's gates leave quota_available out, so the decision
 * still selects the throttled provider. The old code called it again on every execution (only
 * failovers checked the throttle) until its breaker opened on the 429s.
 */
let env: TGatewayEnv;
const PROVIDERS = ["llm_openai", "llm_anthropic", "llm_gemini"] as const;

beforeAll(async () => {
  env = await createGatewayEnv();
  await setLlmPolicy(env.prisma, {
    gates: ["supports_region", "compliance_allowed", "credentials_valid", "circuit_breaker_closed", "metric_fresh_or_safe_default", "not_killed"],
  });
  await env.prisma.gatewayOperation.update({ where: { operationKey: "LLM_CHAT" }, data: { retryBudgetMinPerSecond: 100, maxAttempts: 3 } });
  await env.server.dataPlane.reloadConfig();
  await env.reload();
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

describe("execute under a provider-announced throttle", () => {
  it("skips a throttled provider even when the gates leave quota_available out", async () => {
    for (const k of PROVIDERS) env.mocks[k].setAlways({ type: "status", status: 429, headers: { "retry-after": "120" }, body: { error: "slow down" } });
    const first = await execute(0);
    const throttled = (first.json.attempts as TJson[]).filter((a) => a.called && a.httpStatus === 429).map((a) => a.provider as (typeof PROVIDERS)[number]);
    expect(throttled.length).toBeGreaterThan(0);
    const before = Object.fromEntries(PROVIDERS.map((k) => [k, env.mocks[k].requests.length]));

    const later = [];
    for (let i = 1; i <= 5; i++) later.push(await execute(i));
    for (const k of throttled) expect(env.mocks[k].requests.length, k).toBe(before[k]);
    const skipped = later.flatMap((a) => (a.json.attempts ?? []) as TJson[]).filter((a) => throttled.includes(a.provider));
    expect(skipped.length).toBeGreaterThanOrEqual(5);
    for (const a of skipped) expect([a.called, a.detail]).toEqual([false, "throttled until its reset; not called"]);
  }, 60_000);
});
