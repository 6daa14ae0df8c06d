import { expect, test, type Page } from "@playwright/test";
import { createPrisma } from "../lib/db/client";
import { notifyConfigChange } from "../lib/db/notify";
import { demoSmsPolicyYaml } from "../lib/demo/seed-demo";
import { parseFactorList } from "../router-core/index";
import { endFault } from "../lib/demo/end-fault";
import { injectFault } from "../lib/demo/inject-fault";
import { createSimulator, type Simulator } from "../lib/demo/simulator";
import { ensureAccounts, originOf } from "./support/accounts";
import { as } from "./support/short-timings";

/**
 * Issue 38 item 5: every share chart has a provider legend, and a provider has one colour on
 * every chart: on SEND_SMS (providers A, B, C) and on a second operation routing to B and C only,
 * where the old colouring by position made B the colour A has on SEND_SMS. A fault on provider_A
 * in EU is marked on SEND_SMS·EU only, not on the other operation's chart in EU.
 */
const prisma = createPrisma(process.env.E2E_DATABASE_URL ?? "postgres://unset");
const OTHER = "E2E_CHART_COLOURS";
let sim: Simulator | null = null;

/** A second operation with SEND_SMS's factor list but providers B and C, active at once (test setup, not governance's flow). */
async function createOtherOperation(): Promise<void> {
  const yaml = demoSmsPolicyYaml()
    .replace(/^operation: SEND_SMS$/m, `operation: ${OTHER}`)
    .replace(/^providers: .*$/m, "providers: [provider_C, provider_B]");
  const parsed = parseFactorList(yaml);
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => e.message).join("; "));
  await prisma.operation.create({ data: { key: OTHER, description: "e2e: a second operation sharing providers with SEND_SMS", criticality: "low" } });
  const now = new Date();
  const version = await prisma.factorListVersion.create({
    data: { operationKey: OTHER, version: 1, status: "active", document: parsed.value, yaml, submittedAt: now, approvedAt: now, activatedAt: now },
  });
  await prisma.operationPolicy.create({ data: { operationKey: OTHER, activeVersionId: version.id } });
  await notifyConfigChange(prisma, { kind: "policy", operationKey: OTHER });
}

test.afterAll(async () => {
  await sim?.stop();
  // The other specs see the catalogue as seeded: the operation and its factor list go again.
  await prisma.operationPolicy.deleteMany({ where: { operationKey: OTHER } });
  await prisma.factorListVersion.deleteMany({ where: { operationKey: OTHER } });
  await prisma.operation.deleteMany({ where: { key: OTHER } });
  await notifyConfigChange(prisma, { kind: "policy", operationKey: OTHER });
  await prisma.trafficShare.deleteMany({ where: { operationKey: OTHER } });
  await prisma.$disconnect();
});

/** The legend of the overview's share chart for (operation, region): provider → colour, and the chart's served area colours. */
async function legendOf(page: Page, operation: string, region: string): Promise<{ legend: Record<string, string>; fills: string[] }> {
  await page.goto(`/?operation=${operation}&region=${region}&range=15m`);
  const legend = page.getByTestId("provider-legend");
  await expect(legend).toBeVisible();
  await expect(legend.locator("li").first()).toBeVisible();
  const entries = await legend.locator("li").evaluateAll((lis) => lis.map((li) => [li.getAttribute("data-provider")!, li.getAttribute("data-color")!]));
  const fills = await page
    .getByTestId("share-chart")
    .locator("path.recharts-area-area")
    .evaluateAll((ps) => ps.map((p) => p.getAttribute("fill") ?? ""));
  return { legend: Object.fromEntries(entries), fills };
}

test("one colour per provider on every chart, a legend on each, fault marks only where the fault was", async ({ page, request }) => {
  test.setTimeout(180_000);
  await ensureAccounts(request);
  sim = createSimulator({
    baseUrl: originOf(),
    apiKey: process.env.SWITCHYARD_API_KEY,
    rate: 30,
    operations: [
      { key: "SEND_SMS", weight: 1 },
      { key: OTHER, weight: 1 },
    ],
    regions: [
      { key: "EU", weight: 1 },
      { key: "NA", weight: 1 },
    ],
  });
  await createOtherOperation();
  sim.start();
  // Every (operation, region) the simulator drives has logged decisions; a failure lists those that have.
  const recentScopes = async () =>
    (await prisma.decision.groupBy({ by: ["operation", "region"], where: { createdAt: { gt: new Date(Date.now() - 60_000) } } }))
      .map((g) => `${g.operation}/${g.region}`)
      .sort();
  await expect.poll(recentScopes, { timeout: 60_000 }).toEqual(expect.arrayContaining([`${OTHER}/EU`, `${OTHER}/NA`, "SEND_SMS/EU", "SEND_SMS/NA"]));
  const actor = { userId: null, label: "e2e", ip: null };
  const fault = await injectFault(prisma, actor, { provider: "provider_A", region: "EU", kind: "outage", durationSeconds: 60 });
  await endFault(prisma, actor, fault.id);
  // A few 10 s buckets of decisions, so every chart has areas to colour.
  await new Promise((r) => setTimeout(r, 25_000));

  await as(page, "on_call");
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    const smsEu = await legendOf(page, "SEND_SMS", "EU");
    await page.screenshot({ path: `e2e/output/screenshots/chart-colours-sms-eu-${width}.png`, fullPage: width === 390 });
    await expect(page.getByTestId("marks-table")).toContainText("fault injected: outage provider_A EU");
    const smsNa = await legendOf(page, "SEND_SMS", "NA");
    const otherEu = await legendOf(page, OTHER, "EU");
    await page.screenshot({ path: `e2e/output/screenshots/chart-colours-other-eu-${width}.png`, fullPage: width === 390 });
    await expect(page.getByTestId("marks-table")).not.toContainText("outage provider_A");

    expect(Object.keys(smsEu.legend).sort()).toEqual(["provider_A", "provider_B", "provider_C"]);
    expect(Object.keys(otherEu.legend).sort()).toEqual(["provider_B", "provider_C"]);
    for (const view of [smsNa, otherEu]) for (const [p, c] of Object.entries(view.legend)) expect([p, c]).toEqual([p, smsEu.legend[p]]);
    expect(new Set(Object.values(smsEu.legend)).size).toBe(3);
    // The plot uses the legend's colours.
    for (const view of [smsEu, smsNa, otherEu]) {
      expect(view.fills.length).toBeGreaterThan(0);
      for (const f of view.fills) expect(Object.values(view.legend)).toContain(f);
    }
  }
});
