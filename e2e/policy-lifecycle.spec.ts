import { expect, test, type Page } from "@playwright/test";
import { ensureAccounts, signIn, type TE2eRole } from "./support/accounts";

/**
 * A policy author drops a gate in a new draft, compliance approves (a gate change needs them),
 * an approver approves and activates, and the next decision runs on the new version.
 */
const OPERATION = "SEND_SMS";
const auth: Record<string, string> = process.env.SWITCHYARD_API_KEY ? { authorization: `Bearer ${process.env.SWITCHYARD_API_KEY}` } : {};

async function as(page: Page, role: TE2eRole) {
  await page.context().clearCookies();
  await signIn(page.request, role);
}

async function act(page: Page, action: string, text?: string) {
  await page.getByTestId(`action-${action}`).click();
  const dialog = page.getByTestId("confirm-dialog");
  if (await dialog.isVisible()) {
    if (text) await dialog.getByTestId("action-text").fill(text);
    await dialog.getByTestId("confirm-button").click();
    await expect(dialog).toBeHidden();
  }
}

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
});

test("author changes a gate, compliance approves, an approver activates, and the new version routes", async ({ page, request }) => {
  await as(page, "policy_author");
  await page.goto("/factor-lists");
  await page.screenshot({ path: "e2e/output/screenshots/factor-lists.png", fullPage: true });
  await page.getByTestId(`new-draft-${OPERATION}`).click();
  const editor = page.getByTestId("yaml-editor");
  await expect(editor).toHaveValue(/quota_available/);

  // Live validation in the browser: a typo shows its field path before anything is sent.
  const original = await editor.inputValue();
  await editor.fill(original.replace("  - quota_available\n", "  - quota_availabel\n"));
  await expect(page.getByTestId("validation-error").first()).toContainText("gates[");
  await expect(page.getByTestId("save-draft")).toBeDisabled();
  await editor.fill(original.replace("  - quota_available\n", ""));
  await expect(page.getByTestId("validation-summary")).toContainText("valid");
  await expect(page.getByTestId("diff-gates")).toContainText("compliance");
  await page.getByTestId("change-note").fill("e2e: drop the quota gate (quota enforced upstream)");
  await page.screenshot({ path: "e2e/output/screenshots/factor-list-editor.png", fullPage: true });
  await page.getByTestId("save-draft").click();
  await expect(page).toHaveURL(/\/factor-lists\/[0-9a-f-]{36}$/);
  const versionUrl = page.url();
  const detail = page.getByTestId("version-detail");
  await expect(detail.getByTestId("version-status").first()).toHaveText("draft");
  await expect(detail.getByTestId("compliance-badge").first()).toBeVisible();
  const heading = (await detail.locator("h1").textContent()) ?? "";
  const newVersion = /version (\d+)/.exec(heading)?.[1];
  expect(newVersion).toBeDefined();

  await act(page, "submit");
  await expect(detail.getByTestId("version-status").first()).toHaveText("in review");
  // Four-eyes: the author has no approve button at all.
  await expect(page.getByTestId("action-approve")).toHaveCount(0);

  await as(page, "compliance");
  await page.goto(versionUrl);
  await expect(page.getByTestId("action-activate")).toHaveCount(0);
  await act(page, "approve-compliance", "quota is enforced by the upstream gateway");
  await expect(page.getByTestId("reviews-table")).toContainText("compliance");

  await as(page, "approver");
  await page.goto(versionUrl);
  await act(page, "approve", "looks right");
  await expect(detail.getByTestId("version-status").first()).toHaveText("approved");
  await act(page, "activate", "e2e rollout");
  await expect(detail.getByTestId("version-status").first()).toHaveText("active");
  await page.screenshot({ path: "e2e/output/screenshots/factor-list-version.png", fullPage: true });

  // Activation reaches the data plane through NOTIFY.
  await expect
    .poll(
      async () => {
        const res = await request.post("/api/v1/decide", {
          headers: auth,
          data: { operation: OPERATION, region: "EU", requestId: `e2e-policy-${Date.now()}-${Math.random()}` },
        });
        return ((await res.json()) as { policyVersion: string | null }).policyVersion;
      },
      { timeout: 15_000 },
    )
    .toBe(`v${newVersion}`);
});
