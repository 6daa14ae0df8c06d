import { expect, test, type Page } from "@playwright/test";
import { ensureAccounts, originOf, signIn, type TE2eRole } from "./support/accounts";

/**
 * A policy author opens the Evaluation page (the paper's Listing 1 is computed on the first view
 * by someone holding evaluation.run; a viewer's visit never starts a run),
 * reruns the evaluation with the active SEND_SMS version and another seed, reads Table 14 and
 * Table 15, and opens a run's per-minute charts. A viewer sees the results without a Run button,
 * and a forged run request is refused.
 */
const RUN_TIMEOUT = 120_000;

async function as(page: Page, role: TE2eRole) {
  await page.context().clearCookies();
  await signIn(page.request, role);
}

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
});

test("an author reruns the evaluation with the active factor list and reads Tables 14 and 15", async ({ page }) => {
  test.setTimeout(300_000);
  await as(page, "policy_author");
  await page.goto("/evaluation");
  const table14 = page.getByTestId("table-14");
  await expect(table14).toBeVisible({ timeout: RUN_TIMEOUT });
  await expect(table14.locator("tbody tr")).toHaveCount(24);
  await expect(page.getByTestId("t14-outage-factor_list")).toContainText("met");

  // The active SEND_SMS version, seed 7: not evaluated yet on this server.
  const source = page.getByTestId("evaluation-source");
  const option = source.locator("option", { hasText: /^SEND_SMS v\d+ · active$/ });
  await source.selectOption((await option.getAttribute("value"))!);
  await expect(page).toHaveURL(/version=[0-9a-f-]{36}/);
  await expect(page.getByTestId("evaluation-empty")).toContainText("has not been evaluated");
  const seed = page.getByTestId("evaluation-seed");
  await seed.fill("x7");
  await expect(page.getByTestId("evaluation-run")).toBeDisabled();
  await seed.fill("7");
  await page.getByTestId("evaluation-run").click();
  await expect(page.getByTestId("evaluation-status")).toHaveAttribute("data-state", /queued|running|done/);
  await expect(table14).toBeVisible({ timeout: RUN_TIMEOUT });
  await expect(page.getByTestId("evaluation-status")).toHaveAttribute("data-state", "done");
  await expect(page.getByTestId("evaluation-status")).toContainText("e2e-policy-author");
  await expect(page.locator("section[aria-label='Table 14'] h2")).toContainText("seed 7");
  await expect(page.getByTestId("evaluation-mapping")).toContainText("provider_A → A");
  for (const scenario of ["outage", "latency", "partial", "quota", "regional", "stale"]) {
    await expect(page.getByTestId(`t14-${scenario}-factor_list`).getByTestId("t14-success")).toHaveText(/^\d{2,3}\.\d{2}%$/);
  }
  await expect(page.getByTestId("table-15").locator("tbody tr")).toHaveCount(5);

  // A row's per-minute charts: shares, success and latency per provider.
  await page.getByTestId("t14-latency-factor_list").getByRole("button").click();
  await expect(page).toHaveURL(/scenario=latency&policy=factor_list/);
  const charts = page.getByTestId("trace-charts");
  await expect(charts).toBeVisible();
  await expect(charts.locator(".recharts-wrapper")).toHaveCount(3);
  await page.screenshot({ path: "e2e/output/screenshots/evaluation.png", fullPage: true });
});

test("a viewer reads the evaluation but cannot start one, not even by a forged request", async ({ page }) => {
  await as(page, "viewer");
  await page.goto("/evaluation");
  await expect(page.getByTestId("evaluation")).toBeVisible();
  await expect(page.getByTestId("evaluation-run")).toHaveCount(0);
  await expect(page.getByTestId("evaluation")).toContainText("needs the evaluation.run permission");
  // The last result (the author's run above) or, on a fresh server, the empty state: never a run started for the viewer.
  await expect(page.getByTestId("table-14").or(page.getByTestId("evaluation-empty"))).toBeVisible();
  await expect(page.getByTestId("evaluation-status")).toHaveAttribute("data-state", /^(done|idle)$/);
  const forged = await page.request.post("/api/console/evaluation", { headers: { origin: originOf() }, data: { version: "listing1", seed: 99 } });
  expect(forged.status()).toBe(403);
  expect(((await forged.json()) as { error: { code: string } }).error.code).toBe("forbidden");
});
