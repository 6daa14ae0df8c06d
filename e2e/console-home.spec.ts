import { expect, test } from "@playwright/test";

test("the providers page lists the seeded catalogue from the database", async ({ page }) => {
  await page.goto("/providers");
  const providers = page.getByTestId("providers-table");
  await expect(providers.getByRole("row")).toHaveCount(4);
  for (const key of ["provider_A", "provider_B", "provider_C"]) {
    await expect(page.getByTestId(`provider-${key}`)).toBeVisible();
  }
  await expect(page.getByTestId("provider-provider_C")).toContainText("LATAM");
  await expect(page.getByTestId("health-SEND_SMS")).toBeVisible();
  await page.screenshot({ path: "e2e/output/screenshots/console-home.png", fullPage: true });
});

test("the health endpoint reports the database as up with no pending migrations", async ({ request }) => {
  const res = await request.get("/api/v1/health");
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(body.status).toBe("ok");
  expect(body.database.status).toBe("up");
  expect(body.migrations.pending).toEqual([]);
  expect(body.migrations.applied).toBeGreaterThan(0);
});
