import { expect, test, type Page } from "@playwright/test";
import { ensureAccounts, originOf, signIn, type TE2eRole } from "./support/accounts";

/**
 * A version that puts first the provider the active version now picks least runs in shadow
 * beside the active one (priority failover: it picks that provider while it is eligible);
 * decisions where the two disagree and the actual provider failed show on the Shadow page as
 * avoidable. Chosen from a live decision rather than fixed, because the shares at this point
 * depend on what the demo traffic and the earlier specs did (a fixed provider_C first once met
 * an active version that sent all of EU to provider_C, and nothing disagreed).
 */
const OPERATION = "SEND_SMS";
const REGION = "EU";
const auth: Record<string, string> = process.env.SWITCHYARD_API_KEY ? { authorization: `Bearer ${process.env.SWITCHYARD_API_KEY}` } : {};

async function as(page: Page, role: TE2eRole) {
  await page.context().clearCookies();
  await signIn(page.request, role);
}

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
});

test("a shadow version's agreement and disagreements show on the Shadow page", async ({ page, request }) => {
  // The lifecycle through governance's API (the Factor lists page is covered by the policy journey).
  await as(page, "policy_author");
  const active = await page.request.get(`/api/control/factor-lists?operation=${OPERATION}&status=active`);
  const activeId = ((await active.json()) as { versions: { id: string }[] }).versions[0]?.id;
  const yaml = await (await page.request.get(`/api/control/factor-lists/${activeId}/yaml`)).text();
  const probe = await request.post("/api/v1/decide", {
    headers: auth,
    data: { operation: OPERATION, region: REGION, requestId: `e2e-shadow-pick-${Date.now()}`, explain: "full" },
  });
  const candidates = ((await probe.json()) as { candidates: { provider: string; eligible: boolean; selectionProbability: number }[] }).candidates;
  const eligible = candidates.filter((c) => c.eligible).sort((a, b) => a.selectionProbability - b.selectionProbability);
  expect(eligible.length, JSON.stringify(candidates)).toBeGreaterThanOrEqual(2);
  const shadowFirst = eligible[0]!.provider;
  const order = [shadowFirst, ...candidates.map((c) => c.provider).filter((p) => p !== shadowFirst)];
  const created = await page.request.post("/api/control/factor-lists", {
    headers: { origin: originOf() },
    data: {
      yaml: yaml
        .replace(/providers: \[.*\]/, `providers: [${order.join(", ")}]`)
        .replace(/fallback_policy: .*/, "fallback_policy: use_secondary_then_queue\nstrategy: priority_failover"),
      changeNote: `e2e: ${shadowFirst} first, in shadow`,
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const id = ((await created.json()) as { version: { id: string } }).version.id;
  expect((await page.request.post(`/api/control/factor-lists/${id}/submit`, { headers: { origin: originOf() } })).status()).toBe(200);
  await as(page, "approver");
  expect(
    (await page.request.post(`/api/control/factor-lists/${id}/approve`, { headers: { origin: originOf() }, data: { comment: "shadow only" } })).status(),
  ).toBe(200);

  await page.goto(`/factor-lists/${id}`);
  await page.getByTestId("action-shadow").click();
  await page.getByTestId("confirm-button").click();
  await expect(page.getByTestId("version-status").first()).toHaveText("shadow");

  // Decisions now carry the shadow's pick; the actual provider's calls fail.
  await expect
    .poll(
      async () => {
        const res = await request.post("/api/v1/decide", {
          headers: auth,
          data: { operation: OPERATION, region: REGION, requestId: `e2e-shadow-probe-${Date.now()}-${Math.random()}`, explain: "full" },
        });
        return ((await res.json()) as { shadow: unknown }).shadow !== null;
      },
      { timeout: 15_000 },
    )
    .toBe(true);
  const outcomes: unknown[] = [];
  for (let i = 0; i < 10; i++) {
    const res = await request.post("/api/v1/decide", {
      headers: auth,
      data: { operation: OPERATION, region: REGION, requestId: `e2e-shadow-${Date.now()}-${i}` },
    });
    const d = (await res.json()) as { decisionId: string; selected: string };
    outcomes.push(
      { type: "provider_call", decisionId: d.decisionId, provider: d.selected, status: "failure", errorClass: "timeout", latencyMs: 3000, retryCount: 0 },
      { type: "business", decisionId: d.decisionId, completed: false, failureStage: "provider_call", withinSla: false },
    );
  }
  expect((await request.post("/api/v1/outcomes", { headers: auth, data: { outcomes } })).status()).toBeLessThan(300);

  await page.goto(`/shadow?operation=${OPERATION}&range=1h`);
  await expect(page.getByTestId("agreement-chart")).toBeVisible();
  // Outcomes are ingested asynchronously: reload until the failed calls show as avoidable.
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("disagreements-table")).toContainText("failed at provider_call", { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId("disagreements-table")).toContainText(shadowFirst);
  // Led by the disagreements grouped by region and provider pair, with their count; no reference to a paper's table.
  const group = page.getByTestId("disagreement-group").filter({ hasText: shadowFirst }).first();
  await expect(group).toBeVisible();
  expect(Number((await group.locator("td").nth(3).textContent())?.replace(/,/g, ""))).toBeGreaterThan(0);
  await expect(page.getByTestId("shadow")).not.toContainText("Table 9");
  await page.screenshot({ path: "e2e/output/screenshots/shadow.png", fullPage: true });
});
