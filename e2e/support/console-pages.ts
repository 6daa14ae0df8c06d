import { expect, type APIRequestContext } from "@playwright/test";
import { createPrisma } from "../../lib/db/client";
import { createFactorListDraft } from "../../lib/controlplane/factor-lists/create-factor-list-draft";
import { submitFactorList } from "../../lib/controlplane/factor-lists/submit-factor-list";
import { demoSmsPolicyYaml } from "../../lib/demo/seed-demo";
import { emailOf } from "./accounts";

/** The ids the console's detail pages need: a decision, a version in review and the active version. */
export type TConsoleIds = { decisionId: string; reviewId: string; activeId: string };

/**
 * What every console page needs to have something to show: a decision through the real data-plane
 * API and a SEND_SMS version submitted for review (the approval page). `label` names the spec in the
 * request id and the change note.
 */
export async function prepareConsolePages(request: APIRequestContext, label: string): Promise<TConsoleIds> {
  const auth: Record<string, string> = process.env.SWITCHYARD_API_KEY ? { authorization: `Bearer ${process.env.SWITCHYARD_API_KEY}` } : {};
  const res = await request.post("/api/v1/decide", { headers: auth, data: { operation: "SEND_SMS", region: "EU", requestId: `e2e-${label}-${Date.now()}` } });
  expect(res.status(), await res.text()).toBe(200);
  const decisionId = ((await res.json()) as { decisionId: string }).decisionId;
  const reviewId = await submitForReview(
    demoSmsPolicyYaml()
      .replace("completion_rate_5m: {weight: 0.45", "completion_rate_5m: {weight: 0.40")
      .replace("p95_latency_5m: {weight: 0.20", "p95_latency_5m: {weight: 0.25"),
    `e2e ${label}: a version in review`,
  );
  const db = e2eDatabase();
  try {
    const policy = await db.operationPolicy.findUniqueOrThrow({ where: { operationKey: "SEND_SMS" } });
    return { decisionId, reviewId, activeId: policy.activeVersionId! };
  } finally {
    await db.$disconnect();
  }
}

function e2eDatabase() {
  const url = process.env.E2E_DATABASE_URL;
  if (!url) throw new Error("E2E_DATABASE_URL is not set: run the specs through `npm run test:e2e`");
  return createPrisma(url);
}

/** A factor-list version written and submitted by the e2e policy author, as the product's own functions do it; returns its id. */
export async function submitForReview(yaml: string, changeNote: string): Promise<string> {
  const db = e2eDatabase();
  try {
    const author = await db.user.findUniqueOrThrow({ where: { email: emailOf("policy_author") } });
    const actor = { userId: author.id, label: author.email, ip: null };
    const draft = await createFactorListDraft(db, actor, { yaml, changeNote });
    await submitFactorList(db, actor, draft.id);
    return draft.id;
  } finally {
    await db.$disconnect();
  }
}
