import { expect, test } from "@playwright/test";
import { createPrisma } from "../lib/db/client";
import { ensureAccounts, originOf, signIn } from "./support/accounts";

/**
 * The pin dialog starts where the operator is looking (operation and region in view, never an
 * operation the provider does not serve), with a 1 h expiry and no "no expiry", and its blast
 * radius lists every provider losing and gaining traffic, read against the controller's shares.
 */
const OPERATION = "SEND_SMS";
const REGION = "EU";
const PROVIDER = "provider_B";

async function sharesOf(operation: string, region: string) {
  const db = createPrisma(process.env.E2E_DATABASE_URL!);
  try {
    return await db.trafficShare.findMany({ where: { operationKey: operation, region }, orderBy: { providerKey: "asc" } });
  } finally {
    await db.$disconnect();
  }
}

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
});

test("the pin dialog defaults to the operation and region in view, a 1 h expiry, and shows who loses and gains", async ({ page }) => {
  await signIn(page.request, "on_call");
  await expect.poll(async () => (await sharesOf(OPERATION, REGION)).length, { timeout: 30_000 }).toBeGreaterThan(1);

  await page.goto(`/providers?operation=${OPERATION}&region=${REGION}`);
  await page.getByTestId(`pin-${PROVIDER}`).click();
  const dialog = page.getByTestId("confirm-dialog");
  await expect(dialog.getByTestId("override-operation")).toHaveValue(OPERATION);
  await expect(dialog.getByTestId("override-region")).toHaveValue(REGION);
  await expect(dialog.getByTestId("override-expiry")).toHaveValue("60");
  const expiries = await dialog
    .getByTestId("override-expiry")
    .locator("option")
    .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
  expect(expiries).not.toContain("0");
  expect(Math.max(...expiries.map(Number))).toBeLessThanOrEqual(24 * 60);

  // Every provider the controller routes to in this operation and region, with the right direction.
  const shares = await sharesOf(OPERATION, REGION);
  const radius = dialog.getByTestId("blast-radius");
  const losing: string[] = [];
  for (const s of shares) {
    const row = radius.getByTestId(`blast-${OPERATION}-${REGION}-${s.providerKey}`);
    await expect(row).toBeVisible();
    await expect(row).toContainText(`${(s.share * 100).toFixed(1)}%`);
    if (s.providerKey === PROVIDER) await expect(row).toContainText(s.share < 0.9995 ? "gains" : "unchanged");
    else if (s.share > 0.0005) {
      await expect(row).toContainText("loses");
      losing.push(s.providerKey);
    }
  }
  expect(await radius.locator("tbody tr").count()).toBe(shares.length + (shares.some((s) => s.providerKey === PROVIDER) ? 0 : 1));
  await expect(dialog.getByTestId("blast-summary")).toContainText(`Losing traffic: ${losing.join(", ") || "none"}.`);
  await page.screenshot({ path: "e2e/output/screenshots/pin-dialog-defaults.png" });
  await page.keyboard.press("Escape");

  // With nothing in view, a pin starts on an operation the provider carries, not the catalogue's first (LLM_CHAT).
  await page.goto("/providers");
  await page.getByTestId(`pin-${PROVIDER}`).click();
  await expect(dialog.getByTestId("override-operation")).toHaveValue(OPERATION);
  await expect(dialog.getByTestId("override-region")).toHaveValue("");
});

test("governance refuses a pin without an expiry or beyond the maximum, naming expiresAt", async ({ request }) => {
  await signIn(request, "on_call");
  const pin = { kind: "provider_pin", operationKey: OPERATION, providerKey: PROVIDER, region: REGION, reason: "e2e: pin limits" };
  const headers = { origin: originOf() };
  for (const body of [pin, { ...pin, expiresAt: new Date(Date.now() + 25 * 3_600_000).toISOString() }]) {
    const res = await request.post("/api/control/overrides", { headers, data: body });
    expect(res.status()).toBe(422);
    expect(((await res.json()) as { error: { fields: { path: string }[] } }).error.fields.map((f) => f.path)).toEqual(["expiresAt"]);
  }
});
