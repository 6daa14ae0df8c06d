import { expect, test } from "@playwright/test";
import { ensureAccounts, originOf, signIn } from "./support/accounts";

/** A viewer reads everything and can change nothing: no mutation control renders, and a forged request is refused. */
test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
});

test("a viewer sees no mutation control and a forged control-plane POST is refused with 403", async ({ page }) => {
  await signIn(page.request, "viewer");

  await page.goto("/providers");
  await expect(page.getByTestId("overrides-table")).toBeVisible();
  await expect(page.locator('[data-testid^="kill-"], [data-testid^="pin-"], [data-testid="end-override"]')).toHaveCount(0);

  await page.goto("/factor-lists");
  await expect(page.getByTestId("versions-table")).toBeVisible();
  await expect(page.locator('[data-testid^="new-draft-"]')).toHaveCount(0);
  await page.getByTestId("versions-table").getByRole("link").first().click();
  await expect(page.getByTestId("version-detail")).toBeVisible();
  await expect(page.getByTestId("version-actions")).toHaveCount(0);
  await expect(page.getByTestId("export-yaml")).toBeVisible();

  // The audit log is readable (and verifiable) by every role; it records the journeys' changes.
  await page.goto("/audit");
  await expect(page.getByTestId("audit-row").first()).toBeVisible();
  await page.getByTestId("audit-filters").locator('select[name="action"]').selectOption("user.create");
  await page.getByTestId("audit-filters").getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/action=user.create/);
  await expect(page.getByTestId("audit-table")).not.toContainText("override.create");
  await page.getByTestId("verify-chain").click();
  await expect(page.getByTestId("verify-result")).toContainText("intact");
  await expect(page.getByTestId("export-csv")).toHaveAttribute("href", /format=csv/);
  await page.screenshot({ path: "e2e/output/screenshots/audit.png", fullPage: true });

  // The request a hidden button would have sent, forged with the viewer's own session cookie.
  const forged = await page.request.post("/api/control/overrides", {
    headers: { origin: originOf() },
    data: { kind: "provider_kill", providerKey: "provider_A", reason: "forged by a viewer" },
  });
  expect(forged.status()).toBe(403);
  expect(((await forged.json()) as { error: { code: string } }).error.code).toBe("forbidden");
  const overrides = await page.request.get("/api/control/overrides");
  expect(((await overrides.json()) as { overrides: unknown[] }).overrides).toHaveLength(0);
});
