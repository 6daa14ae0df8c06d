import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayEnv, type TGatewayEnv } from "../../../test/support/gateway-fixtures";
import { uuidV7At } from "../decision-id";
import { createApiKey } from "../../controlplane/api-keys/create-api-key";
import { SYSTEM_ACTOR } from "../../audit/actor";

/**
 * Decisions a client made in its own process (LocalRouter, or fail-static while Switchyard was
 * unreachable) are calls to providers like any other: once reported, they spend the provider's
 * call quota, once per decision however often the client resends it.
 */
let env: TGatewayEnv;
const previousLimit = process.env.API_KEY_RATE_LIMIT;

beforeAll(async () => {
  // Governance keys: a burst of 100 refilled at 1/s, so a batch can be seen to spend it.
  process.env.API_KEY_RATE_LIMIT = "1/100";
  env = await createGatewayEnv();
  await env.prisma.provider.update({
    where: { key: "provider_B" },
    data: { quotas: [{ unit: "requests", limit: 50, windowSeconds: 86_400, reset: "fixed" }] },
  });
  await env.server.dataPlane.reloadConfig();
}, 120_000);

afterAll(async () => {
  if (previousLimit === undefined) delete process.env.API_KEY_RATE_LIMIT;
  else process.env.API_KEY_RATE_LIMIT = previousLimit;
  await env?.close();
});

const spentOn = (provider: string) => env.server.dataPlane.health().quotas.windows.find((w) => w.provider === provider)?.spent ?? 0;

async function report(decisions: unknown[]): Promise<string[]> {
  const res = await fetch(`${env.server.url}/api/v1/decisions/batch`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ decisions }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: Array<{ result: string }> }).results.map((r) => r.result);
}

describe("POST /api/v1/decisions/batch and call quotas", () => {
  it("spends the selected provider's quota for each newly logged decision, not for a resend", async () => {
    const before = spentOn("provider_B");
    const local = [0, 1, 2].map((n) => {
      const decisionId = uuidV7At(Date.now() - n);
      return { decisionId, operation: "SEND_SMS", region: "EU", requestId: `local-${decisionId}`, selected: "provider_B", mode: "local" };
    });
    const none = { decisionId: uuidV7At(Date.now()), operation: "SEND_SMS", region: "EU", requestId: "local-none", selected: null, mode: "local" };
    expect(await report([...local, none])).toEqual(["committed", "committed", "committed", "committed"]);
    expect(spentOn("provider_B") - before).toBe(3);
    expect(await report(local)).toEqual(["existing", "existing", "existing"]);
    expect(spentOn("provider_B") - before).toBe(3);
  });
});

describe("POST /api/v1/decisions/batch validates what a client reports", () => {
  const local = (over: Record<string, unknown>) => {
    const decisionId = uuidV7At(Date.now());
    return { decisionId, operation: "SEND_SMS", region: "EU", requestId: `local-${decisionId}`, selected: "provider_A", mode: "local", ...over };
  };

  it("refuses unknown providers and providers that do not serve the operation or region, naming the item and field; spends nothing", async () => {
    const before = spentOn("provider_B");
    const res = await fetch(`${env.server.url}/api/v1/decisions/batch`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        decisions: [
          local({ selected: "no_such_provider" }),
          local({ selected: "llm_openai" }),
          local({ region: "APAC", selected: "provider_C" }),
          local({ selected: "provider_B", order: ["provider_B", "llm_gemini"], mode: "fail_static", source: "static" }),
          local({ region: "MARS" }),
          local({ selected: "provider_B", order: ["provider_B", "provider_A"] }),
        ],
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: Array<{ index: number; result: string; error?: { fields?: Array<{ path: string; message: string }> } }> };
    expect(body.results.map((r) => [r.index, r.result, r.error?.fields?.[0]?.path ?? null])).toEqual([
      [0, "refused", "decisions.0.selected"],
      [1, "refused", "decisions.1.selected"],
      [2, "refused", "decisions.2.selected"],
      [3, "refused", "decisions.3.order.1"],
      [4, "refused", "decisions.4.region"],
      [5, "committed", null],
    ]);
    expect(body.results[1]!.error!.fields![0]!.message).toBe('provider "llm_openai" does not serve SEND_SMS');
    expect(spentOn("provider_B") - before).toBe(1);
    const offered = await env.pool.query("select offered_providers from decision where id = $1", [(body.results[5] as { decisionId?: string }).decisionId]);
    expect(offered.rows).toEqual([{ offered_providers: "provider_B,provider_A" }]);
  });

  it("costs one request of the key's rate per item", async () => {
    const { key } = await createApiKey(env.prisma, SYSTEM_ACTOR, { name: "local-router", scopes: ["decide"], operationKeys: [] });
    const send = (n: number) =>
      fetch(`${env.server.url}/api/v1/decisions/batch`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ decisions: Array.from({ length: n }, (_, i) => local({ decisionId: uuidV7At(Date.now() - i) })) }),
      });
    expect((await send(100)).status).toBe(200);
    const next = await send(1);
    expect(next.status).toBe(429);
    expect(next.headers.get("retry-after")).not.toBeNull();
  });
});
