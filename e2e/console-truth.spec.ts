import { expect, test, type Page } from "@playwright/test";
import { createPrisma } from "../lib/db/client";
import { endFault } from "../lib/demo/end-fault";
import { injectFault } from "../lib/demo/inject-fault";
import { createSimulator, type Simulator } from "../lib/demo/simulator";
import { ensureAccounts, originOf } from "./support/accounts";
import { activateShortTimings, as, restoreFirstVersion } from "./support/short-timings";
import { controllerTrail } from "./support/controller-trail";
import { endOpenFaults } from "./support/faults";

/**
 * Issue #29: the overview plots what was served, read from the decision log, not the plan. During
 * a pin and during an injected outage the served share per bucket on the page (the served table's
 * data attributes) matches the decision log's counts for that bucket within one percentage point;
 * the outage is one incident on the Why page with a start and an end. Short timings are activated
 * first (as in demo-outage) so the failback completes within the test; Listing 1 is restored after.
 */
const OPERATION = "SEND_SMS";
const REGION = "EU";
// The pin is in another region: a pin starves the other providers of samples in its region, and
// the controller's moves that follow would belong to the outage's incident if they were in EU.
const PIN_REGION = "NA";
const BUCKET_MS = 10_000;

const FAST_TIMINGS = `
safety:
  max_traffic_shift_per_minute: 1
  primary_probe_share: 0.05
  primary_recovery_cooldown_seconds: 10
  require_reason_code: true
circuit_breaker: {open_seconds: 3, max_open_seconds: 6, half_open_probes: 3, half_open_successes_to_close: 2}
hysteresis_score_margin: 1
`;

const prisma = createPrisma(process.env.E2E_DATABASE_URL ?? "postgres://unset");
let sim: Simulator | null = null;

/** Served share per provider in [t, t + bucket) straight from the decision log. */
async function loggedShares(region: string, t: number): Promise<{ served: number; shares: Record<string, number> }> {
  const rows = await prisma.decision.groupBy({
    by: ["selectedProvider"],
    where: { operation: OPERATION, region, createdAt: { gte: new Date(t), lt: new Date(t + BUCKET_MS) }, selectedProvider: { not: null } },
    _count: { _all: true },
  });
  const served = rows.reduce((s, r) => s + r._count._all, 0);
  return { served, shares: Object.fromEntries(rows.map((r) => [r.selectedProvider!, r._count._all / served])) };
}

type TRow = { t: number; served: number; shares: Record<string, number> };

/** Loads the overview and reads the served table; compares every bucket in [from, to) with the decision log. */
async function servedMatchesLog(page: Page, region: string, from: number, to: number): Promise<TRow[]> {
  await page.goto(`/?operation=${OPERATION}&region=${region}&range=15m`);
  const rows: TRow[] = await page
    .getByTestId("served-table")
    .locator("tr[data-bucket]")
    .evaluateAll((trs) =>
      trs.map((tr) => ({
        t: Number(tr.getAttribute("data-bucket")),
        served: Number(tr.getAttribute("data-served")),
        shares: JSON.parse(tr.getAttribute("data-shares") ?? "{}"),
      })),
    );
  const compared = rows.filter((r) => r.t >= from && r.t + BUCKET_MS <= to);
  expect(compared.length, "buckets to compare").toBeGreaterThanOrEqual(2);
  for (const r of compared) {
    const log = await loggedShares(region, r.t);
    for (const p of new Set([...Object.keys(r.shares), ...Object.keys(log.shares)])) {
      expect(
        Math.abs((r.shares[p] ?? 0) - (log.shares[p] ?? 0)),
        `${p} at ${new Date(r.t).toISOString()}: page ${r.shares[p]} log ${log.shares[p]}`,
      ).toBeLessThanOrEqual(0.01);
    }
  }
  return compared;
}

/** Waits until `n` whole buckets after `from` have ended, however slow the machine is. */
const untilBuckets = (from: number, n: number) => new Promise((r) => setTimeout(r, Math.max(0, from + n * BUCKET_MS + 500 - Date.now())));

/** Decisions are logged asynchronously: give the spool a moment before the page reads the log. */
const settle = () => new Promise((r) => setTimeout(r, 5_000));

test.afterAll(async ({ browser }) => {
  await sim?.stop();
  await endOpenFaults(prisma, "e2e: console truth cleanup");
  await restoreFirstVersion(browser, prisma, OPERATION, "e2e: restore Listing 1");
  await prisma.$disconnect();
});

test("served shares match the decision log during a pin and an outage; the outage is one incident", async ({ page, request }) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await ensureAccounts(request);
  await activateShortTimings(page, { operation: OPERATION, timings: FAST_TIMINGS, note: "e2e: console truth timings" });
  sim = createSimulator({ baseUrl: originOf(), apiKey: process.env.SWITCHYARD_API_KEY, rate: 40, operations: [{ key: OPERATION, weight: 1 }] });
  sim.start();

  // A pin: every decision goes to provider_B, whatever the plan says.
  await as(page, "on_call");
  const pinned = await page.request.post("/api/control/overrides", {
    headers: { origin: originOf() },
    data: {
      kind: "provider_pin",
      providerKey: "provider_B",
      operationKey: OPERATION,
      region: PIN_REGION,
      reason: "e2e: pin B to check served shares",
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    },
  });
  expect(pinned.status(), await pinned.text()).toBe(201);
  const pin = ((await pinned.json()) as { override: { id: string } }).override;
  await expect
    .poll(async () => (await prisma.decision.findFirst({ where: { operation: OPERATION, region: PIN_REGION }, orderBy: { createdAt: "desc" } }))?.reasonCode, {
      timeout: 20_000,
    })
    .toBe("pinned");
  const pinFrom = Math.ceil(Date.now() / BUCKET_MS) * BUCKET_MS;
  await untilBuckets(pinFrom, 3);
  const pinTo = Math.floor(Date.now() / BUCKET_MS) * BUCKET_MS;
  await settle();
  const duringPin = await servedMatchesLog(page, PIN_REGION, pinFrom, pinTo);
  for (const r of duringPin) expect(r.shares.provider_B, new Date(r.t).toISOString()).toBe(1);
  await expect(page.getByTestId("health-provider_B").locator("[data-served-share]")).toHaveText(/%/);
  await page.screenshot({ path: "e2e/output/screenshots/console-truth-overview-pin.png" });
  expect(
    (await page.request.post(`/api/control/overrides/${pin.id}/end`, { headers: { origin: originOf() }, data: { reason: "e2e: pin checked" } })).status(),
  ).toBeLessThan(300);

  // The outage: provider_A in EU fails every call; its breaker opens and decide serves it nothing.
  // It starts once the pin's end reached the data plane and provider_A leads again, as the decision log shows.
  const pinEnded = new Date();
  await expect
    .poll(
      async () =>
        prisma.decision.count({
          where: { operation: OPERATION, region: REGION, createdAt: { gt: pinEnded }, selectedProvider: "provider_A", reasonCode: { not: "pinned" } },
        }),
      { timeout: 30_000, intervals: [500] },
    )
    .toBeGreaterThanOrEqual(20);
  const fault = await injectFault(
    prisma,
    { userId: null, label: "e2e", ip: null },
    { provider: "provider_A", region: REGION, kind: "outage", durationSeconds: 600 },
  );
  sim.inject(fault);
  const outFrom = Math.ceil((fault.startsAt + 10_000) / BUCKET_MS) * BUCKET_MS;
  await untilBuckets(outFrom, 3);
  const outTo = Math.floor(Date.now() / BUCKET_MS) * BUCKET_MS;
  await settle();
  await servedMatchesLog(page, REGION, outFrom, outTo);
  await page.getByText("Served per bucket").click();
  await page.screenshot({ path: "e2e/output/screenshots/console-truth-overview-outage.png", fullPage: true });
  const ended = await endFault(prisma, { userId: null, label: "e2e", ip: null }, fault.id);
  sim.endFault(fault.id, ended.endsAt);

  // Recovery completes; the Why page shows the outage as one incident with its start and end.
  const since = { operationKey: OPERATION, region: REGION, at: { gte: new Date(fault.startsAt) } };
  // Two failback steps (as demo-outage waits for): the full failback can take minutes more at the capped rate.
  const failbackSteps = { ...since, type: { in: ["failback_step", "full_failback_completed"] } };
  await expect
    .poll(async () => prisma.shiftEvent.count({ where: failbackSteps }), { timeout: 150_000, intervals: [2_000] })
    .toBeGreaterThanOrEqual(2)
    .catch(async (e: Error) => {
      throw new Error(`${e.message}\n${await controllerTrail(prisma, OPERATION, REGION, fault.startsAt - 120_000)}`);
    });
  const firstOpen = await prisma.shiftEvent.findFirstOrThrow({ where: { ...since, type: "circuit_open_shift_to_secondary" }, orderBy: { at: "asc" } });
  const failback = (await prisma.shiftEvent.findMany({ where: failbackSteps, orderBy: { at: "asc" } }))[1]!;
  await page.goto(`/why?operation=${OPERATION}&region=${REGION}`);
  const incidents = page.getByTestId("incident");
  const outage = incidents.filter({ hasText: "circuit_open_shift_to_secondary" });
  await expect(outage)
    .toHaveCount(1)
    .catch(async (e: Error) => {
      throw new Error(`${e.message}\n${await controllerTrail(prisma, OPERATION, REGION, fault.startsAt - 120_000)}`);
    });
  const start = Number(await outage.getAttribute("data-start"));
  const end = Number(await outage.getAttribute("data-end"));
  // Its trigger is the outage itself: no move of EU before the fault (a healthy provider_A is not
  // demoted on a probe-floor peer's thin window) and not the floor restored when the short timings
  // went live just before.
  expect(start).toBeGreaterThanOrEqual(fault.startsAt);
  expect(start).toBeLessThanOrEqual(firstOpen.at.getTime());
  await expect(outage.locator("summary")).toContainText("breaker_open provider_A");
  expect(firstOpen.at.getTime() - fault.startsAt).toBeLessThan(60_000);
  expect(end).toBeGreaterThanOrEqual(failback.at.getTime());
  await expect(outage.locator("summary")).toContainText(new Date(start).toISOString().slice(0, 19).replace("T", " "));
  await outage.locator("summary").click();
  await expect(outage.getByTestId("incident-evidence")).toContainText("breaker provider_A");
  await page.screenshot({ path: "e2e/output/screenshots/console-truth-why.png", fullPage: true });

  // The nav's plain Overview link reopens the last operation, region and range (issue #29 item 8).
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Overview" }).click();
  await expect(page).toHaveURL(/operation=SEND_SMS&region=EU&range=15m/);
  await expect(page.getByTestId("overview")).toContainText(`Traffic share · ${OPERATION} · ${REGION}`);

  // "?" opens the keyboard cheat-sheet as a dialog; Escape closes it (item 11).
  await page.locator("body").press("?");
  const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(help).toBeVisible();
  await expect(help).toContainText("Go to Overview");
  await page.keyboard.press("Escape");
  await expect(help).toHaveCount(0);
});
