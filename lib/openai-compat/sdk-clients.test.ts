import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAuthenticator, setAuthenticator } from "../edge/authenticate";
import { createGatewayEnv, setLlmPolicy, type TGatewayEnv } from "../../test/support/gateway-fixtures";
import { sdkCalls } from "../../test/support/sdk-calls";

/**
 * The official clients an LLM team already uses (openai chat and responses, @anthropic-ai/sdk
 * messages, each streamed and not), over real HTTP, against providers that fail: a 500 before the
 * first byte fails over; a 429 with Retry-After throttles the provider for every client until it
 * passes; a 2xx in the wrong content type is a protocol error that fails over without opening a
 * healthy provider's breaker. The demo's own providers are in sdk-clients-demo.test.ts.
 */
let env: TGatewayEnv;
let openai: OpenAI;
let anthropic: Anthropic;
const API_KEY = "sy-sdk-clients-key";

beforeAll(async () => {
  env = await createGatewayEnv({ apiKey: API_KEY });
  setAuthenticator(createAuthenticator({ apiKey: API_KEY, allowAnonymousWithoutKey: false }));
  // A breaker that opens after two provider-attributable failures in a row: armed, unlike the fixture's.
  await setLlmPolicy(env.prisma, { circuit_breaker: { consecutive_failures: 2, min_calls: 1000 } });
  await env.server.dataPlane.reloadConfig();
  openai = new OpenAI({ baseURL: `${env.server.url}/api/v1/openai`, apiKey: API_KEY, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: `${env.server.url}/api/v1/anthropic`, apiKey: API_KEY, maxRetries: 0 });
}, 60_000);
afterAll(async () => {
  await env?.close();
});
beforeEach(() => {
  for (const m of Object.values(env.mocks)) {
    m.setFaults([]);
    m.setAlways(null);
    m.requests.length = 0;
  }
});

async function breakerOpen(provider: string, region: string): Promise<boolean> {
  await env.server.gateway.flush();
  const metrics = await (await fetch(`${env.server.url}/api/v1/metrics`, { headers: { authorization: `Bearer ${API_KEY}` } })).text();
  return metrics.includes(`switchyard_breaker_state{provider="${provider}",region="${region}",state="open"} 1`);
}

const outcomeClasses = async (provider: string): Promise<string[]> => {
  await env.server.gateway.flush();
  const r = await env.pool.query<{ c: string }>(`select error_class::text as c from provider_call_outcome where provider_key = $1 and status = 'failure'`, [
    provider,
  ]);
  return r.rows.map((x) => x.c);
};

// Regions keep the cases apart (breakers are per provider and region), in this order: an opening in NA
// can take the provider out elsewhere too (the breakers correlate), and the 429 throttles it everywhere.
describe("official clients against failing providers", () => {
  it("a wrong content type is a protocol error: every client fails over, and the provider's breaker stays closed", async () => {
    env.mocks.llm_openai.setAlways({ type: "wrong_content_type" });
    for (const call of sdkCalls(openai, anthropic, (r) => `LLM_CHAT@${r}`)) {
      const served = await call.run("EU");
      expect(served.provider, call.name).not.toBe("llm_openai");
      expect(served.text, call.name).toMatch(/^Hello from (anthropic|gemini)$/);
    }
    expect(env.mocks.llm_openai.requests).toHaveLength(6);
    await expect.poll(() => outcomeClasses("llm_openai")).toEqual(Array(6).fill("protocol"));
    expect(await breakerOpen("llm_openai", "EU")).toBe(false);
  });

  it("a stream cut after output began ends in an error event each streaming client raises", async () => {
    // Routed to llm_openai only (the `providers` routing attribute), whichever provider the scores would pick.
    const only = { providers: "llm_openai" };
    const calls = sdkCalls(openai, anthropic, (r) => `LLM_CHAT@${r}`, only).filter((c) => c.name.endsWith("stream"));
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      env.mocks.llm_openai.setFaults([{ type: "stream_dies_after", chunks: 1 }]);
      const err = (await call.run("EU").catch((e: unknown) => e)) as { status?: number; message?: string };
      expect(err, call.name).toBeInstanceOf(Error);
      expect(err.message, call.name).toMatch(/stream failed after output began|stream_interrupted/);
      // A whole answer in between, so the armed breaker does not open on two cuts in a row.
      expect((await sdkCalls(openai, anthropic, (r) => `LLM_CHAT@${r}`, only)[0]!.run("EU")).provider).toBe("llm_openai");
    }
  });

  it("a 500 before the first byte fails over for every client", async () => {
    env.mocks.llm_openai.setFaults([{ type: "status", status: 500 }]);
    for (const call of sdkCalls(openai, anthropic, (r) => `LLM_CHAT@${r}`)) {
      env.mocks.llm_openai.setFaults([{ type: "status", status: 500 }]);
      const before = env.mocks.llm_openai.requests.length;
      const served = await call.run("NA");
      // The breaker opens after two; from then on llm_openai is not even tried, and the caller is served all the same.
      expect(served.provider, call.name).not.toBe("llm_openai");
      expect(served.text, call.name).toMatch(/^Hello from (anthropic|gemini)$/);
      expect(env.mocks.llm_openai.requests.length - before, call.name).toBeLessThanOrEqual(1);
    }
    expect(env.mocks.llm_openai.requests.length).toBeGreaterThanOrEqual(2);
    await expect.poll(() => breakerOpen("llm_openai", "NA")).toBe(true);
  });

  it("a 429 with Retry-After throttles the provider: the others serve, and no client calls it again until it passes", async () => {
    // Last in this file: the throttle holds the provider for 30 s, in every region.
    env.mocks.llm_openai.setFaults([{ type: "status", status: 429, headers: { "retry-after": "30" } }]);
    for (const call of sdkCalls(openai, anthropic, (r) => `LLM_CHAT@${r}`)) {
      const served = await call.run("APAC");
      expect(served.provider, call.name).not.toBe("llm_openai");
      expect(served.text, call.name).toMatch(/^Hello from (anthropic|gemini)$/);
    }
    // Called once, by the first client; the five after it skipped it without a call.
    expect(env.mocks.llm_openai.requests).toHaveLength(1);
    await expect.poll(() => outcomeClasses("llm_openai")).toContain("throttled");
  });
});
