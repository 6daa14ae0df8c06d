import { expect, test } from "@playwright/test";
import { ensureAccounts, signIn } from "./support/accounts";

/**
 * A policy author writes a draft in the form view: moving weight from completion to latency
 * breaks the sum (the form says so beside the weights and saving is refused), fixing the other
 * weight makes it valid, the YAML view shows the same draft, and the saved version's approval
 * page shows the what-if replay over recorded traffic.
 */
const OPERATION = "SEND_SMS";

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
});

test("an author changes weights in the form view, sees the sum check, and saves the draft", async ({ page }) => {
  test.setTimeout(180_000);
  await signIn(page.request, "policy_author");
  await page.goto(`/factor-lists/new?operation=${OPERATION}`);
  await expect(page.getByTestId("yaml-editor")).toHaveValue(/p95_latency_5m/);
  await page.getByTestId("view-form").click();
  const form = page.getByTestId("factor-list-form");
  await expect(form).toBeVisible();
  const sum = page.getByTestId("weight-sum");
  await expect(sum).toHaveAttribute("data-ok", "true");

  await form.getByTestId("form-weight-p95_latency_5m").fill("0.25");
  await expect(sum).toHaveAttribute("data-ok", "false");
  await expect(sum).toContainText("must be 1 (remove 0.05)");
  await expect(page.getByTestId("validation-summary")).toContainText("1 error");
  await expect(page.getByTestId("save-draft")).toBeDisabled();

  await form.getByTestId("form-weight-completion_rate_5m").fill("0.40");
  await expect(sum).toHaveAttribute("data-ok", "true");
  await expect(page.getByTestId("validation-summary")).toContainText("valid");

  // A bad number is named next to its field.
  const cap = form.getByTestId("form-safety.max_traffic_shift_per_minute");
  await cap.fill("1.5");
  await expect(form.getByTestId("field-error")).toContainText("max_traffic_shift_per_minute must be in (0, 1], got 1.5");
  await cap.fill("0.5");
  await expect(form.getByTestId("field-error")).toHaveCount(0);
  await page.screenshot({ path: "e2e/output/screenshots/factor-list-form.png", fullPage: true });

  // The YAML view edits the same draft.
  await page.getByTestId("view-yaml").click();
  await expect(page.getByTestId("yaml-editor")).toHaveValue(/p95_latency_5m:\s+\{?\s*weight: 0\.25\b/);
  await expect(page.getByTestId("yaml-editor")).toHaveValue(/completion_rate_5m:\s+\{?\s*weight: 0\.4\b/);
  await page.getByTestId("change-note").fill("e2e: latency weighs 0.25 (form view)");
  await page.getByTestId("save-draft").click();
  await expect(page).toHaveURL(/\/factor-lists\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("version-detail").getByTestId("version-status").first()).toHaveText("draft");

  // The approval page replays the draft over the last hours of recorded traffic (or says there was none).
  const whatIf = page.getByTestId("what-if");
  await expect(whatIf).toBeVisible();
  await expect(whatIf.getByTestId("what-if-table").or(whatIf.getByTestId("what-if-unavailable"))).toBeVisible({ timeout: 120_000 });
  await page.screenshot({ path: "e2e/output/screenshots/factor-list-what-if.png", fullPage: true });
});
