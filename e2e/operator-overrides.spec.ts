import { expect, test, type APIRequestContext } from "@playwright/test";
import { ensureAccounts, originOf, signIn } from "./support/accounts";

/**
 * An operator pins a provider from the Providers page, the next decision through the data-plane
 * API is pinned to it; then they kill it, and the next decision routes around it.
 */
const OPERATION = "SEND_SMS";
const REGION = "EU";
const PROVIDER = "provider_B";
const auth: Record<string, string> = process.env.SWITCHYARD_API_KEY ? { authorization: `Bearer ${process.env.SWITCHYARD_API_KEY}` } : {};

type TDecision = { selected: string | null; reasonCode: string; candidates: { provider: string; gates: { gate: string; passed: boolean }[] }[] };

async function decide(request: APIRequestContext, tag: string): Promise<TDecision> {
  const res = await request.post("/api/v1/decide", {
    headers: auth,
    data: { operation: OPERATION, region: REGION, requestId: `e2e-ops-${tag}-${Date.now()}-${Math.random()}`, explain: "full" },
  });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as TDecision;
}

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
});

// A failure midway would leave the pin or the kill in force for the specs after this one.
test.afterAll(async ({ request }) => {
  await signIn(request, "on_call");
  const res = await request.get("/api/control/overrides");
  const { overrides } = (await res.json()) as { overrides: { id: string; providerKey: string; reason: string }[] };
  for (const o of overrides.filter((o) => o.providerKey === PROVIDER && o.reason.startsWith("e2e: "))) {
    await request.post(`/api/control/overrides/${o.id}/end`, { headers: { origin: originOf() }, data: { reason: "e2e: cleanup after a failed run" } });
  }
});

test("on-call pins then kills a provider from the Providers page and the next decisions show it", async ({ page, request }) => {
  await signIn(page.request, "on_call");
  await page.goto("/providers");

  // Pin, scoped to one operation and region; the dialog states the blast radius first.
  await page.getByTestId(`pin-${PROVIDER}`).click();
  const dialog = page.getByTestId("confirm-dialog");
  await expect(dialog).toBeVisible();
  await dialog.getByTestId("override-operation").selectOption(OPERATION);
  await dialog.getByTestId("override-region").selectOption(REGION);
  await expect(dialog.getByTestId("blast-radius")).toContainText(`${OPERATION}${REGION}${PROVIDER}`);
  // Enter does nothing until the reason is filled.
  await expect(dialog.getByTestId("confirm-button")).toBeDisabled();
  await dialog.getByTestId("override-reason").press("Enter");
  await expect(dialog).toBeVisible();
  await dialog.getByTestId("override-reason").fill("e2e: pin B while A's carrier is flaky");
  await dialog.getByTestId("override-expiry").selectOption("60");
  await page.screenshot({ path: "e2e/output/screenshots/providers-pin-dialog.png", fullPage: true });
  await dialog.getByTestId("override-reason").press("Enter");
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId(`override-provider_pin-${PROVIDER}`)).toContainText("e2e: pin B");

  // Overrides reach the data plane through NOTIFY: poll until the decision reflects the pin.
  await expect.poll(async () => (await decide(request, "pin")).reasonCode, { timeout: 15_000 }).toBe("pinned");
  const pinned = await decide(request, "pin-check");
  expect(pinned.selected).toBe(PROVIDER);

  // Kill the same provider for this operation and region: Escape cancels first, then confirm.
  await page.getByTestId(`kill-${PROVIDER}`).click();
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await page.getByTestId(`kill-${PROVIDER}`).click();
  await dialog.getByTestId("override-operation").selectOption(OPERATION);
  await dialog.getByTestId("override-region").selectOption(REGION);
  await dialog.getByTestId("override-reason").fill("e2e: B is failing too, take it out");
  await dialog.getByTestId("confirm-button").click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId(`override-provider_kill-${PROVIDER}`)).toBeVisible();
  await page.screenshot({ path: "e2e/output/screenshots/providers-overrides.png", fullPage: true });

  await expect.poll(async () => (await decide(request, "kill")).selected, { timeout: 15_000 }).not.toBe(PROVIDER);
  const killed = await decide(request, "kill-check");
  expect(killed.reasonCode).toBe("pin_ineligible");
  const b = killed.candidates.find((c) => c.provider === PROVIDER);
  expect(b?.gates.find((g) => g.gate === "not_killed")?.passed).toBe(false);

  // End both overrides from the list so later journeys route normally.
  for (const testId of [`override-provider_kill-${PROVIDER}`, `override-provider_pin-${PROVIDER}`]) {
    await page.getByTestId(testId).getByTestId("end-override").click();
    await dialog.getByTestId("end-reason").fill("e2e: incident over");
    await dialog.getByTestId("end-reason").press("Enter");
    await expect(page.getByTestId(testId)).toHaveCount(0);
  }
});
