import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { emailOf, ensureAccounts, originOf, signIn } from "./support/accounts";

/**
 * Issue 35 items 2 and 10 in the console: the password policy refuses what an attacker tries
 * first, a person changes their own password, an admin resets and disables someone else, and the
 * API keys table names each key's owner and last use.
 */
test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
});

test("passwords follow the policy; an admin resets and disables an account; keys show their owner", async ({ page, browser }) => {
  const suffix = randomBytes(4).toString("hex");
  const email = `e2e-temp-${suffix}@switchyard.test`;
  const first = `first phrase ${suffix} ok`;
  await signIn(page.request, "admin");

  // A control key the admin owns: the table says whose permissions it acts with.
  const key = await page.request.post("/api/control/api-keys", { headers: { origin: originOf() }, data: { name: `cli-${suffix}`, scopes: ["control"] } });
  expect(key.status(), await key.text()).toBe(201);

  await page.goto("/governance/access");
  const create = page.getByTestId("create-user");
  await create.locator('input[name="email"]').fill(email);
  await create.locator('input[name="name"]').fill("Temp");
  await create.locator('input[name="password"]').fill("password1234");
  await create.getByRole("button", { name: "Create user" }).click();
  await expect(create.getByRole("alert")).toContainText("password: this password is on the list of the most common ones");
  // A form action resets the form's fields: fill them again.
  await create.locator('input[name="email"]').fill(email);
  await create.locator('input[name="name"]').fill("Temp");
  await create.locator('input[name="password"]').fill(first);
  await create.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByTestId(`user-row-${email}`)).toBeVisible();
  await expect(
    page
      .getByTestId("api-keys-table")
      .locator("tr", { hasText: `cli-${suffix}` })
      .getByTestId("api-key-owner"),
  ).toHaveText(emailOf("admin"));

  // The new person changes their own password: the current one is required, the policy applies.
  const theirs = await browser.newContext({ baseURL: originOf() });
  const own = await theirs.newPage();
  const login = await own.request.post("/api/auth/login", { headers: { origin: originOf() }, data: { email, password: first } });
  expect(login.status()).toBe(200);
  await own.goto("/governance/access");
  const change = own.getByTestId("change-password");
  await change.locator('input[name="currentPassword"]').fill(first);
  await change.locator('input[name="newPassword"]').fill("aaaaaaaaaaaa");
  await change.getByRole("button", { name: "Change password" }).click();
  await expect(own.getByTestId("change-password-problem")).toContainText("newPassword: this password is mostly one character");
  await change.locator('input[name="currentPassword"]').fill(first);
  await change.locator('input[name="newPassword"]').fill(`second phrase ${suffix} ok`);
  await change.getByRole("button", { name: "Change password" }).click();
  await expect(own.getByTestId("password-changed")).toBeVisible();

  // The admin resets it (the policy applies here too), then disables the account: its session ends.
  await page.reload();
  const row = page.getByTestId(`user-row-${email}`);
  const reset = row.getByTestId("reset-password");
  await reset.locator('input[name="password"]').fill(" ".repeat(12));
  await reset.getByRole("button", { name: "Reset password" }).click();
  await expect(row.getByTestId("reset-password-problem")).toContainText("password:");
  await reset.locator('input[name="password"]').fill(`third phrase ${suffix} ok`);
  await reset.getByRole("button", { name: "Reset password" }).click();
  await expect(reset).toContainText("reset; 1 sessions ended");
  await row.getByTestId("disable-user").click();
  await expect(row.getByTestId("user-disabled")).toBeVisible();
  await expect(row.getByTestId("enable-user")).toBeVisible();
  await page.screenshot({ path: "e2e/output/screenshots/access-accounts.png", fullPage: true });

  const again = await own.request.post("/api/auth/login", { headers: { origin: originOf() }, data: { email, password: `third phrase ${suffix} ok` } });
  expect(again.status()).toBe(401);
  await theirs.close();
});
