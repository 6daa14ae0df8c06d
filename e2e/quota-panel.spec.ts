import { expect, test, type APIRequestContext } from "@playwright/test";
import { createPrisma } from "../lib/db/client";
import { ensureAccounts, originOf, signIn } from "./support/accounts";

/**
 * An admin gives the provider SEND_SMS in EU routes to now a quota of 3 requests per hour from
 * the catalogue API, and on-call pins SEND_SMS/EU to it, so decisions spend the quota whatever the
 * shares are after earlier specs; the Providers page's quota panel must show the window as
 * provider_quota_window holds it (leased, limit, window bounds) and say it is fully leased, and
 * the next decision's quota_available gate must fail with that window.
 */
let provider = "";
let pinId: string | null = null;
const LIMIT = 3;
const prisma = createPrisma(process.env.E2E_DATABASE_URL ?? "postgres://unset");
const auth = () => ({ authorization: `Bearer ${process.env.SWITCHYARD_API_KEY}` });
const utc = (d: Date) => `${d.toISOString().slice(0, 19).replace("T", " ")}Z`;

type TDecision = { selected: string | null; candidates: { provider: string; gates: { gate: string; passed: boolean; detail: string }[] }[] };

async function decide(request: APIRequestContext, n: number): Promise<TDecision> {
  const res = await request.post("/api/v1/decide", {
    headers: auth(),
    data: { operation: "SEND_SMS", region: "EU", requestId: `quota-panel-${Date.now()}-${n}`, explain: "full" },
  });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as TDecision;
}

async function setQuotas(request: APIRequestContext, quotas: unknown[]): Promise<void> {
  const res = await request.patch(`/api/control/catalog/providers/${provider}`, { headers: { origin: originOf() }, data: { quotas } });
  expect(res.status(), await res.text()).toBe(200);
}

test.afterAll(async ({ request }) => {
  if (pinId) {
    await signIn(request, "on_call");
    await request.post(`/api/control/overrides/${pinId}/end`, { headers: { origin: originOf() }, data: { reason: "e2e: quota panel checked" } });
  }
  if (provider) {
    await signIn(request, "admin");
    await setQuotas(request, []);
  }
  await prisma.$disconnect();
});

test("the Providers page shows a quota's window as the cluster counts it, and when it is spent", async ({ page, request }) => {
  await ensureAccounts(request);
  provider = (await decide(request, -1)).selected ?? "";
  expect(provider).not.toBe("");
  await signIn(request, "admin");
  await setQuotas(request, [{ unit: "requests", limit: LIMIT, windowSeconds: 3_600, reset: "fixed" }]);
  // The catalogue change reaches the data plane through NOTIFY: from then on its decisions count.
  await expect
    .poll(
      async () => {
        const health = (await (await request.get("/api/v1/health", { headers: auth() })).json()) as {
          dataplane: { quotas: { windows: { provider: string; unit: string }[] } };
        };
        return health.dataplane.quotas.windows.some((w) => w.provider === provider && w.unit === "requests");
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  await signIn(request, "on_call");
  const pin = await request.post("/api/control/overrides", {
    headers: { origin: originOf() },
    data: {
      kind: "provider_pin",
      providerKey: provider,
      operationKey: "SEND_SMS",
      region: "EU",
      reason: "e2e: spend the quota",
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    },
  });
  expect(pin.status(), await pin.text()).toBe(201);
  pinId = ((await pin.json()) as { override: { id: string } }).override.id;

  // Pinned decisions spend the quota until its gate says it is spent (quota and pin go again after the test).
  let routed = 0;
  let asked = 0;
  await expect
    .poll(
      async () => {
        // A request id of its own each time: a repeated one is answered from decide's idempotency cache, spending nothing.
        const d = await decide(request, asked++);
        if (d.selected === provider) routed++;
        const gate = d.candidates.find((c) => c.provider === provider)?.gates.find((g) => g.gate === "quota_available");
        return gate?.passed === false ? gate.detail : null;
      },
      { timeout: 30_000, intervals: [100] },
    )
    .toMatch(/^3 requests per 3600 s quota exhausted, resets in \d+s$/);
  // A pin routes around a quota (router-core's PIN_GATES leave it out), so the pinned decisions may pass the
  // limit: what is checked here is that the gate and the table say it is spent, and that the panel shows it.
  expect(routed).toBeGreaterThanOrEqual(LIMIT);

  const row = await prisma.providerQuotaWindow.findFirstOrThrow({ where: { providerKey: provider, unit: "requests" }, orderBy: { windowStart: "desc" } });
  expect(Number(row.used)).toBe(LIMIT);

  await signIn(page.request, "on_call");
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/providers");
  const panel = page.getByTestId(`quota-${provider}-requests`);
  await expect(panel).toContainText("3 requests / 1 h");
  await expect(panel).toContainText(`${utc(row.windowStart)} → ${utc(new Date(row.windowStart.getTime() + 3_600_000))}`);
  await expect(panel.getByTestId("quota-leased")).toHaveText(`${Number(row.used)} of ${LIMIT} (100%)`);
  await expect(panel.getByTestId("quota-state")).toContainText("fully leased");
  await panel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "e2e/output/screenshots/providers-quota-panel.png" });

  // On a phone the panel's table scrolls in its box; the page itself does not scroll sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await page.getByTestId(`quota-${provider}-requests`).scrollIntoViewIfNeeded();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: "e2e/output/screenshots/providers-quota-panel-390.png" });
});
