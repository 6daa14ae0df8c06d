import { expect, test } from "@playwright/test";
import { createPrisma } from "../lib/db/client";
import { activateFactorList } from "../lib/controlplane/factor-lists/activate-factor-list";
import { approveFactorList } from "../lib/controlplane/factor-lists/approve-factor-list";
import { createFactorListDraft } from "../lib/controlplane/factor-lists/create-factor-list-draft";
import { submitFactorList } from "../lib/controlplane/factor-lists/submit-factor-list";
import { emailOf, ensureAccounts, signIn, type TE2eRole } from "./support/accounts";

/**
 * An approver on the active version's page rolls back to the version that was live before it,
 * without first finding the old version: the same rollback endpoint and audit entry as from the
 * old version's page, and the routing document is the old one again.
 */
const OPERATION = "SEND_SMS";

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
});

test("rollback is offered on the active version's page and re-activates the previous version", async ({ page }) => {
  const db = createPrisma(process.env.E2E_DATABASE_URL!);
  try {
    const actor = async (role: TE2eRole) => {
      const u = await db.user.findUniqueOrThrow({ where: { email: emailOf(role) } });
      return { userId: u.id, label: u.email, ip: null };
    };
    const before = await db.operationPolicy.findUniqueOrThrow({ where: { operationKey: OPERATION } });
    const previous = await db.factorListVersion.findUniqueOrThrow({ where: { id: before.activeVersionId! } });
    const yaml = previous.yaml.replace("min_sample_size: 200", "min_sample_size: 240");
    const draft = await createFactorListDraft(db, await actor("policy_author"), { yaml, changeNote: "e2e: rollback from active" });
    await submitFactorList(db, await actor("policy_author"), draft.id);
    await approveFactorList(db, await actor("approver"), draft.id, "approver", "ok");
    await activateFactorList(db, await actor("approver"), draft.id);

    await signIn(page.request, "approver");
    await page.goto(`/factor-lists/${draft.id}`);
    const button = page.getByTestId("action-rollback-previous");
    await expect(button).toHaveText(`Roll back to v${previous.version}…`);
    await button.click();
    await page.getByTestId("action-text").fill("e2e: the new sample size misbehaves");
    await page.getByTestId("confirm-button").click();
    await expect(page).not.toHaveURL(new RegExp(draft.id));

    const after = await db.operationPolicy.findUniqueOrThrow({ where: { operationKey: OPERATION } });
    const active = await db.factorListVersion.findUniqueOrThrow({ where: { id: after.activeVersionId! } });
    expect([active.rollbackOfId, active.yaml]).toEqual([previous.id, previous.yaml]);
    await expect(page).toHaveURL(new RegExp(`/factor-lists/${active.id}$`));
    const audit = await db.auditEntry.findFirstOrThrow({ where: { action: "factor_list.rollback", targetId: active.id } });
    expect(audit.reason).toContain("the new sample size misbehaves");
  } finally {
    await db.$disconnect();
  }
});
