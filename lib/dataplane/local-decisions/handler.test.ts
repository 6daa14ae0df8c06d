import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayEnv, type TGatewayEnv } from "../../../test/support/gateway-fixtures";
import { uuidV7At } from "../decision-id";

/**
 * Decisions a client made in its own process (LocalRouter, or fail-static while Switchyard was
 * unreachable) are calls to providers like any other: once reported, they spend the provider's
 * call quota, once per decision however often the client resends it.
 */
let env: TGatewayEnv;

beforeAll(async () => {
  env = await createGatewayEnv();
  await env.prisma.provider.update({
    where: { key: "provider_B" },
    data: { quotas: [{ unit: "requests", limit: 50, windowSeconds: 86_400, reset: "fixed" }] },
  });
  await env.server.dataPlane.reloadConfig();
}, 120_000);

afterAll(async () => {
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
