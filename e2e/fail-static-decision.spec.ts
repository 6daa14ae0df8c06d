import { expect, test } from "@playwright/test";
import { uuidV7At } from "../lib/dataplane/decision-id";
import { ensureAccounts } from "./support/accounts";
import { as } from "./support/short-timings";

/**
 * Issue 35 item 9: the decisions on-call reads during an outage are the clients' fail-static
 * reports. One is sent exactly as @switchyard/client's fail-static path sends it (no candidates,
 * no metric age, a static order and the reason), with an outcome, and its drilldown must render.
 */
const auth = () => ({ authorization: `Bearer ${process.env.SWITCHYARD_API_KEY}` });

test("a client's fail-static decision has a drilldown that renders, with its order, reason and reporting key", async ({ page, request }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await ensureAccounts(request);
  const decisionId = uuidV7At(Date.now());
  const report = {
    decisionId,
    operation: "SEND_SMS",
    region: "EU",
    requestId: `fail-static-${decisionId}`,
    selected: "provider_A",
    mode: "fail_static",
    source: "static",
    order: ["provider_A", "provider_B"],
    reason: "timeout: Switchyard did not answer within 1000 ms",
    policyVersion: null,
  };
  const logged = await request.post("/api/v1/decisions/batch", { headers: auth(), data: { decisions: [report] } });
  expect(logged.status(), await logged.text()).toBe(200);
  expect((await logged.json()).results[0].result).toMatch(/^(committed|spooled|buffered)$/);
  const outcome = { type: "provider_call", decisionId, provider: "provider_A", status: "failure", errorClass: "timeout", latencyMs: 2000, retryCount: 0 };
  expect((await request.post("/api/v1/outcomes", { headers: auth(), data: outcome })).status()).toBe(201);

  await as(page, "on_call");
  await page.goto(`/decisions/${decisionId}`);
  await expect(page.getByTestId("decision-detail")).toBeVisible();
  await expect(page.getByText("This page couldn't load")).toHaveCount(0);
  await expect(page.getByTestId("decision-source")).toHaveText(
    "client, fail-static (Switchyard not reached) · from static · order provider_A → provider_B · timeout: Switchyard did not answer within 1000 ms",
  );
  await expect(page.getByTestId("decision-caller")).toHaveText("bootstrap key (SWITCHYARD_API_KEY)");
  await expect(page.getByTestId("selected-provider")).toHaveText("provider_A");
  await expect(page.getByTestId("selection-explanation")).toContainText("could not reach Switchyard");
  await expect(page.getByTestId("candidates-table")).toContainText("No candidate was evaluated");
  await expect(page.getByTestId("outcomes-table")).toContainText("timeout");
  await page.screenshot({ path: "e2e/output/screenshots/decision-detail-fail-static-1440.png", fullPage: true });
});
