import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayEnv, setLlmPolicy, type TGatewayEnv } from "../../test/support/gateway-fixtures";

/**
 * A provider answering a 2xx in the wrong protocol (JSON to a stream request, an HTML page to a
 * JSON one) is a protocol error of that provider: it fails over before the first byte like a 5xx,
 * is recorded as `protocol`, and does not open the provider's breaker (lib/gateway/README.md).
 */
let env: TGatewayEnv;

beforeAll(async () => {
  env = await createGatewayEnv();
  // A breaker that opens after two provider-attributable failures in a row.
  await setLlmPolicy(env.prisma, { circuit_breaker: { consecutive_failures: 2, min_calls: 1000 } });
  await env.server.dataPlane.reloadConfig();
}, 60_000);
afterAll(async () => {
  await env?.close();
});

const execute = (region: string, stream: boolean) =>
  fetch(`${env.server.url}/api/v1/execute/LLM_CHAT`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ region, input: { messages: [{ role: "user", content: "Hi" }], maxTokens: 16 }, stream }),
  });

/** The stream's `start` event, or the JSON answer. */
async function firstAttempts(res: Response): Promise<Array<{ provider: string; outcomeErrorClass: string | null; detail?: string }>> {
  const text = await res.text();
  if (!res.headers.get("content-type")?.startsWith("text/event-stream")) return JSON.parse(text).attempts;
  const start = /event: start\ndata: (.*)\n/.exec(text)![1]!;
  return JSON.parse(start).attempts;
}

async function breakerOpen(provider: string, region: string): Promise<boolean> {
  await env.server.gateway.flush();
  const metrics = await (await fetch(`${env.server.url}/api/v1/metrics`)).text();
  return metrics.includes(`switchyard_breaker_state{provider="${provider}",region="${region}",state="open"} 1`);
}

describe("protocol errors", () => {
  it("fails over from a provider that answers JSON to a stream request or HTML to a JSON one, without opening its breaker", async () => {
    env.mocks.llm_openai.setAlways({ type: "wrong_content_type" });
    try {
      for (let i = 0; i < 4; i++) {
        const stream = i % 2 === 0;
        const res = await execute("EU", stream);
        expect(res.status).toBe(200);
        const attempts = await firstAttempts(res);
        expect(attempts[0]).toMatchObject({ provider: "llm_openai", outcomeErrorClass: "protocol" });
        expect(attempts[0]!.detail).toMatch(stream ? /application\/json to a stream request/ : /text\/html; expected application\/json/);
      }
      const recorded = async () =>
        Number(
          (
            await env.pool.query<{ n: string }>(
              `select count(*) as n from provider_call_outcome where provider_key = 'llm_openai' and error_class = 'protocol'`,
            )
          ).rows[0]!.n,
        );
      await env.server.gateway.flush();
      await expect.poll(recorded).toBe(4);
      expect(await breakerOpen("llm_openai", "EU")).toBe(false);
    } finally {
      env.mocks.llm_openai.setAlways(null);
    }
    // The same number of 5xx opens it: the breaker is armed, and only the protocol errors are exempt.
    env.mocks.llm_openai.setAlways({ type: "status", status: 500 });
    try {
      for (let i = 0; i < 2; i++) expect((await execute("NA", false)).status).toBe(200);
      await expect.poll(() => breakerOpen("llm_openai", "NA")).toBe(true);
    } finally {
      env.mocks.llm_openai.setAlways(null);
    }
  });
});
