import { expect, test } from "@playwright/test";
import { ensureAccounts, signIn } from "./support/accounts";

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
});

test("a signed-out visitor is sent to the login page and sees no routing data", async ({ page }) => {
  await page.goto("/providers");
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByTestId("providers-table")).toHaveCount(0);
  const api = await page.request.get("/api/console/overview?operation=SEND_SMS&region=EU");
  expect(api.status()).toBe(401);
});

test("the providers page lists the seeded catalogue from the database", async ({ page }) => {
  await signIn(page.request, "viewer");
  await page.goto("/providers");
  await expect(page.getByTestId("user-menu")).toContainText("viewer");
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
  // Without a key a load balancer learns only the status; the report needs a key with the metrics scope.
  expect(await (await request.get("/api/v1/health")).json()).toEqual({ status: "ok" });
  const key = process.env.SWITCHYARD_API_KEY;
  const res = await request.get("/api/v1/health", { headers: key ? { authorization: `Bearer ${key}` } : {} });
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(body.status).toBe("ok");
  expect(body.database.status).toBe("up");
  expect(body.migrations.pending).toEqual([]);
  expect(body.migrations.applied).toBeGreaterThan(0);
});
