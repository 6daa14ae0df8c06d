import { expect, test } from "@playwright/test";
import { createPrisma } from "../lib/db/client";
import { approveFactorList } from "../lib/controlplane/factor-lists/approve-factor-list";
import { createFactorListDraft } from "../lib/controlplane/factor-lists/create-factor-list-draft";
import { submitFactorList } from "../lib/controlplane/factor-lists/submit-factor-list";
import { demoSmsPolicyYaml } from "../lib/demo/seed-demo";
import { emailOf, ensureAccounts, originOf, type TE2eRole } from "./support/accounts";
import { submitForReview } from "./support/console-pages";
import { as, restoreFirstVersion } from "./support/short-timings";

/**
 * Reviews that guide: each reviewer finds the version in their inbox (badge and page), the page
 * says after every approval what is still missing and offers only what this person may do, and a
 * refusal reads as a sentence. Then the console at a desktop and a phone: the catalogue fits
 * 1440 px with its Disable buttons, the audit log shows full ids and changed fields, and on a
 * phone Pin/Kill and the diff's "this version" side are in view without scrolling sideways.
 */
const OUT = "e2e/output/screenshots";
let versionId: string;

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
  // A gate change: it needs an approver and compliance.
  versionId = await submitForReview(demoSmsPolicyYaml().replace("  - metric_fresh_or_safe_default\n", ""), "e2e reviews: drop the freshness gate");
});

test("compliance and the approver each find the version waiting, and the page moves with each approval", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await as(page, "compliance");
  await page.goto("/");
  await expect(page.getByTestId("review-badge").first()).toBeVisible();
  await page.goto("/reviews");
  const item = page.getByTestId(`inbox-version-${versionId}`);
  await expect(item).toContainText("as compliance");
  await page.screenshot({ path: `${OUT}/inbox-1440.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${OUT}/inbox-390.png`, fullPage: true });
  await page.setViewportSize({ width: 1440, height: 900 });

  await item.getByRole("link").click();
  await expect(page.getByTestId("need-compliance")).toContainText("waiting");
  await expect(page.getByTestId("action-approve")).toHaveCount(0);
  await page.getByTestId("action-approve-compliance").click();
  await page.getByTestId("confirm-button").click();
  // The page now says compliance approved and what is still missing; the button is gone.
  await expect(page.getByTestId("need-compliance")).toContainText(`approved by ${emailOf("compliance")}`);
  await expect(page.getByTestId("need-approver")).toContainText("waiting");
  await expect(page.getByTestId("action-approve-compliance")).toHaveCount(0);
  await expect(page.getByTestId("review-note")).toContainText("it now waits for an approver");
  await page.screenshot({ path: `${OUT}/review-after-compliance-1440.png`, fullPage: true });
  await page.goto("/reviews");
  await expect(page.getByTestId(`inbox-version-${versionId}`)).toHaveCount(0);

  // The approver's page is loaded; someone approves meanwhile (here: the same person through the API), then the stale button is clicked.
  await as(page, "approver");
  await page.goto(`/factor-lists/${versionId}`);
  await expect(page.getByTestId("need-approver")).toContainText("waiting");
  const approved = await page.request.post(`/api/control/factor-lists/${versionId}/approve`, { headers: { origin: originOf() }, data: { comment: "ok" } });
  expect(approved.status()).toBe(200);
  await page.getByTestId("action-approve").click();
  await page.getByTestId("confirm-button").click();
  await expect(page.getByTestId("control-error-plain")).toContainText("Someone acted on this version");
  await expect(page.getByTestId("version-status").first()).toHaveText("approved");
  await expect(page.getByTestId("need-approver")).toContainText(`approved by ${emailOf("approver")}`);
  await expect(page.getByTestId("action-approve")).toHaveCount(0);
  await page.screenshot({ path: `${OUT}/review-after-approver-1440.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${OUT}/review-after-approver-390.png`, fullPage: true });
  // On a phone the diff's "this version" side is inside the screen.
  const side = await page.getByTestId("diff-this-version").first().boundingBox();
  expect(side!.x + side!.width).toBeLessThanOrEqual(390);
});

test("the catalogue fits 1440 px with its Disable buttons; the audit log shows full ids and changed fields", async ({ page }) => {
  await as(page, "admin");
  for (const size of [
    { w: 1440, h: 900 },
    { w: 390, h: 844 },
  ]) {
    await page.setViewportSize({ width: size.w, height: size.h });
    await page.goto("/catalog");
    await page.getByTestId("providers-catalog-table").waitFor();
    if (size.w === 1440) {
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1440);
      const disable = await page.locator("[data-testid^='toggle-'] button").first().boundingBox();
      expect(disable!.x + disable!.width).toBeLessThanOrEqual(1440);
    }
    await page.screenshot({ path: `${OUT}/catalog-${size.w}.png`, fullPage: true });
  }

  // A quota edited as fields, with its reason; the audit log shows it as a changed field.
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/catalog");
  const edit = page.locator("details", { hasText: "Edit provider_B" });
  await edit.locator("summary").click();
  const form = edit.getByTestId("provider-form-provider_B");
  await form.getByRole("button", { name: "Add a quota" }).click();
  await form.locator("input[name=quotaLimit]").last().fill("90");
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form.getByTestId("field-error-quotaReason")).toContainText("say why");
  await form.getByTestId("quota-reason").fill("contract: 90 requests a minute");
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form.getByTestId("form-outcome")).toHaveAttribute("data-status", "applied");

  await page.goto("/audit?targetId=provider_B");
  const row = page.getByTestId("audit-row").first();
  await expect(row.getByTestId("audit-target")).toHaveText("provider_B");
  await expect(row.getByTestId("audit-changes")).toContainText("quotas");
  await expect(row).toContainText("contract: 90 requests a minute");
  await page.screenshot({ path: `${OUT}/audit-diff-1440.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${OUT}/audit-diff-390.png`, fullPage: true });

  // Later specs drive SEND_SMS at 40/s through provider_B: the 90-a-minute quota goes again, as an admin would remove it.
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/catalog");
  await edit.locator("summary").click();
  await form.getByRole("button", { name: "Remove quota 1" }).click();
  await form.getByTestId("quota-reason").fill("e2e: contract quota lifted again");
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form.getByTestId("form-outcome")).toHaveAttribute("data-status", "applied");
  await expect(form.locator("input[name=quotaLimit]")).toHaveCount(0);
});

test("on a phone, Kill and Pin are in view on the providers page without scrolling sideways", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await as(page, "on_call");
  await page.goto("/providers");
  for (const id of ["kill-provider_A", "pin-provider_A"]) {
    await expect(page.getByTestId(id)).toBeVisible();
    const box = await page.getByTestId(id).boundingBox();
    expect(box, id).not.toBeNull();
    expect(box!.x + box!.width, id).toBeLessThanOrEqual(390);
  }
  await page.screenshot({ path: `${OUT}/providers-390.png`, fullPage: true });
});

test("activating a version that loosens compliance shows the impact and needs a confirmation and a reason", async ({ page, browser }) => {
  const url = process.env.E2E_DATABASE_URL!;
  const db = createPrisma(url);
  let id: string;
  try {
    const user = (role: TE2eRole) => db.user.findUniqueOrThrow({ where: { email: emailOf(role) } });
    const actorOf = async (role: TE2eRole) => {
      const u = await user(role);
      return { userId: u.id, label: u.email, ip: null };
    };
    const yaml = demoSmsPolicyYaml().replace("  - compliance_allowed\n", "");
    const draft = await createFactorListDraft(db, await actorOf("policy_author"), { yaml, changeNote: "e2e: drop the compliance gate" });
    await submitFactorList(db, await actorOf("policy_author"), draft.id);
    await approveFactorList(db, await actorOf("compliance"), draft.id, "compliance", "seen");
    await approveFactorList(db, await actorOf("approver"), draft.id, "approver", "ok");
    id = draft.id;
  } finally {
    await db.$disconnect();
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await as(page, "approver");
  await page.goto(`/factor-lists/${id}`);
  await expect(page.getByTestId("compliance-weakening")).toContainText("compliance_allowed gate is dropped");
  await page.getByTestId("action-activate").click();
  const dialog = page.getByTestId("confirm-dialog");
  await expect(dialog.getByTestId("weakening-confirm")).toContainText("compliance_allowed");
  await expect(dialog.getByTestId("confirm-button")).toBeDisabled();
  await dialog.getByTestId("action-text").fill("compliance is enforced by the upstream gateway now");
  await expect(dialog.getByTestId("confirm-button")).toBeDisabled();
  await dialog.getByTestId("confirm-weakening").check();
  await page.screenshot({ path: `${OUT}/activate-weakening-1440.png` });
  await dialog.getByTestId("confirm-button").click();
  await expect(page.getByTestId("version-status").first()).toHaveText("active");
  // Later specs start from the demo's gated policy: roll back to version 1, as an approver would.
  const restoreDb = createPrisma(process.env.E2E_DATABASE_URL!);
  try {
    await restoreFirstVersion(browser, restoreDb, "SEND_SMS", "e2e: put the compliance gate back");
  } finally {
    await restoreDb.$disconnect();
  }
});
