import { expect, test } from "@playwright/test";
import { createPrisma } from "../lib/db/client";
import { endFault } from "../lib/demo/end-fault";
import { injectFault } from "../lib/demo/inject-fault";
import { createSimulator, type Simulator } from "../lib/demo/simulator";
import { restoreControllerState } from "../router-core/index";
import { ensureAccounts, originOf } from "./support/accounts";
import { activateShortTimings, as, restoreFirstVersion } from "./support/short-timings";
import { endOpenFaults } from "./support/faults";

/**
 * A recovered primary on its way back (issues 28 and 42): provider_A goes down in EU, traffic
 * moves to provider_B, the fault ends and A is healthy again. A outranks B, so it needs no
 * hysteresis lead, only B's score: it is detected, probed harder during its cooldown, and the Why
 * page must say so in terms a person can act on (probe share, samples, when failback can start),
 * as the controller state in Postgres records it. Timings are shortened through governance, as
 * demo-outage does; the cooldown is long enough to read the page during it.
 */
const OPERATION = "SEND_SMS";
const REGION = "EU";
const FAST = `
safety:
  max_traffic_shift_per_minute: 1
  primary_probe_share: 0.05
  primary_recovery_cooldown_seconds: 90
  require_reason_code: true
circuit_breaker: {open_seconds: 3, max_open_seconds: 6, half_open_probes: 3, half_open_successes_to_close: 2}
`;

let sim: Simulator | null = null;
const prisma = createPrisma(process.env.E2E_DATABASE_URL ?? "postgres://unset");

async function storedRegain() {
  const row = await prisma.controllerState.findUnique({ where: { operationKey_region: { operationKey: OPERATION, region: REGION } } });
  return row ? (restoreControllerState(row.state).regain ?? []) : [];
}

test.afterAll(async ({ browser }) => {
  await sim?.stop();
  await endOpenFaults(prisma, "e2e: recovery cleanup");
  await restoreFirstVersion(browser, prisma, OPERATION, "e2e: restore Listing 1 after the hysteresis demo");
  await prisma.$disconnect();
});

test("a recovered former primary in its cooldown: the Why page says its probe, its samples and when failback can start", async ({ page, request }) => {
  test.setTimeout(300_000);
  await ensureAccounts(request);
  // 40 decisions/s go to provider_B during the outage: a quota an earlier spec left would exclude it and skip the recovery.
  const quotas = await prisma.provider.findMany({
    where: { key: { in: ["provider_A", "provider_B"] } },
    select: { key: true, quotas: true },
    orderBy: { key: "asc" },
  });
  expect(quotas.map((p) => [p.key, p.quotas])).toEqual([
    ["provider_A", []],
    ["provider_B", []],
  ]);
  await activateShortTimings(page, { operation: OPERATION, timings: FAST, note: "e2e: recovery" });

  sim = createSimulator({ baseUrl: originOf(), apiKey: process.env.SWITCHYARD_API_KEY, rate: 40, operations: [{ key: OPERATION, weight: 1 }] });
  sim.start();
  await expect.poll(() => sim!.stats().outcomesSent, { timeout: 30_000 }).toBeGreaterThan(300);
  const actor = { userId: null, label: "e2e", ip: null };
  const fault = await injectFault(prisma, actor, { provider: "provider_A", region: REGION, kind: "outage", durationSeconds: 600 });
  sim.inject(fault);
  // A's breaker opens and A is displaced; then the fault ends and A serves its floor healthily.
  await expect
    .poll(async () => (await prisma.controllerState.findUnique({ where: { operationKey_region: { operationKey: OPERATION, region: REGION } } }))?.state, {
      timeout: 60_000,
      intervals: [1_000],
    })
    .toMatchObject({ displaced: expect.arrayContaining(["provider_A"]) });
  const ended = await endFault(prisma, actor, fault.id);
  sim.endFault(fault.id, ended.endsAt);
  await expect
    // Healthy again: once its one-minute window holds no outage calls it scores at least B and its recovery is detected.
    .poll(async () => (await storedRegain()).find((g) => g.provider === "provider_A" && g.phase === "cooldown") !== undefined, {
      timeout: 150_000,
      intervals: [2_000],
    })
    .toBe(true);

  await as(page, "on_call");
  await page.goto(`/why?operation=${OPERATION}&region=${REGION}`);
  const note = page.getByTestId("regain-note");
  await expect(note).toBeVisible();
  const gap = (await storedRegain()).find((g) => g.provider === "provider_A")!;
  await expect(note).toContainText(`provider_A looks recovered and is on its way back from ${gap.leader}.`);
  await expect(note).toContainText(/It is probed at \d+(\.\d)?% of the traffic \(about [\d.]+ calls a minute\)/);
  // The time shown is the stored cooldown end.
  await expect(note).toContainText(`Failback can start at ${new Date(gap.reconsiderAt!).toISOString().slice(11, 19)} UTC`);
  await expect(note).not.toContainText("policy, not a failure");
  await page.screenshot({ path: "e2e/output/screenshots/why-regain.png", fullPage: true });
});
