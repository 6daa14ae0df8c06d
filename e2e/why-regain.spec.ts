import { expect, test } from "@playwright/test";
import { createPrisma } from "../lib/db/client";
import { endFault } from "../lib/demo/end-fault";
import { injectFault } from "../lib/demo/inject-fault";
import { createSimulator, type Simulator } from "../lib/demo/simulator";
import { restoreControllerState } from "../router-core/index";
import { ensureAccounts, originOf } from "./support/accounts";
import { activateShortTimings, as, restoreFirstVersion } from "./support/short-timings";

/**
 * Hysteresis after recovery is policy (issue 28): provider_A goes down in EU, traffic moves to
 * provider_B, the fault ends and A is healthy again, but under a margin A cannot reach it keeps
 * only its probe floor. The Why page must say what A needs to regain traffic, as the controller
 * state in Postgres records it. Timings are shortened through governance, as demo-outage does.
 */
const OPERATION = "SEND_SMS";
const REGION = "EU";
const MARGIN = 40;
const FAST = `
safety:
  max_traffic_shift_per_minute: 1
  primary_probe_share: 0.05
  primary_recovery_cooldown_seconds: 15
  require_reason_code: true
circuit_breaker: {open_seconds: 3, max_open_seconds: 6, half_open_probes: 3, half_open_successes_to_close: 2}
hysteresis_score_margin: ${MARGIN}
`;

let sim: Simulator | null = null;
const prisma = createPrisma(process.env.E2E_DATABASE_URL ?? "postgres://unset");

async function storedRegain() {
  const row = await prisma.controllerState.findUnique({ where: { operationKey_region: { operationKey: OPERATION, region: REGION } } });
  return row ? (restoreControllerState(row.state).regain ?? []) : [];
}

test.afterAll(async ({ browser }) => {
  await sim?.stop();
  await restoreFirstVersion(browser, prisma, OPERATION, "e2e: restore Listing 1 after the hysteresis demo");
  await prisma.$disconnect();
});

test("a recovered former leader short of the hysteresis margin: the Why page says what it needs", async ({ page, request }) => {
  test.setTimeout(300_000);
  await ensureAccounts(request);
  await activateShortTimings(page, { operation: OPERATION, timings: FAST, note: "e2e: hysteresis", drop: ["hysteresis_score_margin"] });

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
    // Healthy again: its one-minute window holds no outage calls any more, so it scores within a few points of the leader, yet short of the margin.
    .poll(
      async () => (await storedRegain()).find((g) => g.provider === "provider_A" && g.trusted && g.needs > 0 && g.score >= g.leaderScore - 5) !== undefined,
      {
        timeout: 150_000,
        intervals: [2_000],
      },
    )
    .toBe(true);

  await as(page, "on_call");
  await page.goto(`/why?operation=${OPERATION}&region=${REGION}`);
  const note = page.getByTestId("regain-note");
  await expect(note).toBeVisible();
  const gap = (await storedRegain()).find((g) => g.provider === "provider_A")!;
  await expect(note).toContainText(new RegExp(`provider_A needs \\+\\d+\\.\\d points over ${gap.leader} to regain traffic \\(hysteresis margin ${MARGIN}\\)`));
  await expect(note).toContainText("this is policy, not a failure");
  // The figure shown is the stored one (it moves a little every tick as scores do).
  const shown = Number((await note.textContent())?.match(/needs \+(\d+\.\d)/)?.[1]);
  expect(Math.abs(shown - gap.needs)).toBeLessThan(10);
  await page.screenshot({ path: "e2e/output/screenshots/why-regain.png", fullPage: true });
});
