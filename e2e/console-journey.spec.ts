import { expect, test } from "@playwright/test";
import { ensureAccounts, signIn } from "./support/accounts";

/**
 * On-call's first journey: open the overview, see shares and provider health, open the decision
 * log and drill into one decision down to its gates, contributions and outcomes. The traffic is
 * made through the real data-plane API, so the console shows what the router actually decided.
 */
const OPERATION = "SEND_SMS";
const REGION = "EU";
const auth: Record<string, string> = process.env.SWITCHYARD_API_KEY ? { authorization: `Bearer ${process.env.SWITCHYARD_API_KEY}` } : {};

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
  const outcomes: unknown[] = [];
  for (let i = 0; i < 20; i++) {
    const res = await request.post("/api/v1/decide", {
      headers: auth,
      data: { operation: OPERATION, region: REGION, requestId: `e2e-journey-${Date.now()}-${i}` },
    });
    expect(res.status(), await res.text()).toBe(200);
    const body = (await res.json()) as { decisionId: string; selected: string | null };
    expect(body.selected).not.toBeNull();
    outcomes.push(
      { type: "provider_call", decisionId: body.decisionId, provider: body.selected, status: "success", httpStatus: 200, latencyMs: 180 + i, retryCount: 0 },
      { type: "business", decisionId: body.decisionId, completed: true, withinSla: true },
    );
  }
  const res = await request.post("/api/v1/outcomes", { headers: auth, data: { outcomes } });
  expect(res.status(), await res.text()).toBeLessThan(300);
});

test.beforeEach(async ({ page }) => {
  await signIn(page.request, "on_call");
});

test("on-call opens the overview, sees shares, opens the decision log and drills into a decision", async ({ page }) => {
  await page.goto(`/?operation=${OPERATION}&region=${REGION}`);
  const overview = page.getByTestId("overview");
  await expect(overview).toContainText(`Traffic share · ${OPERATION} · ${REGION}`);
  await expect(page.getByTestId("health-provider_A")).toBeVisible();
  await expect(page.getByTestId("health-provider_B")).toBeVisible();
  await page.screenshot({ path: "e2e/output/screenshots/overview.png", fullPage: true });

  // Keyboard navigation: "g" then "d" opens the decision log.
  await page.locator("body").press("g");
  await page.locator("body").press("d");
  await expect(page).toHaveURL(/\/decisions/);
  await page.goto(`/decisions?operation=${OPERATION}&region=${REGION}`);
  const rows = page.getByTestId("decision-row");
  await expect(rows.first()).toBeVisible();
  await expect(page.getByTestId("decisions-table")).toContainText(OPERATION);
  await page.screenshot({ path: "e2e/output/screenshots/decisions.png", fullPage: true });

  await rows.first().getByRole("link").click();
  const detail = page.getByTestId("decision-detail");
  await expect(detail).toBeVisible();
  await expect(page.getByTestId("candidate-provider_A")).toContainText("supports_region");
  await expect(page.getByTestId("candidates-table")).toContainText("= score");
  // Each candidate's metric age at the decision: the record carries the metrics' time, the page subtracts.
  const shown = new URL(page.url()).pathname.split("/").pop()!;
  const logged = await page.request.get(`/api/v1/decisions/${shown}`, { headers: auth });
  expect(logged.status()).toBe(200);
  const rec = (await logged.json()) as { at: number; candidates: { provider: string; metricsAt: number | null }[] };
  for (const c of rec.candidates) {
    const age = c.metricsAt === null ? "age –" : `age ${((rec.at - c.metricsAt) / 1000).toFixed(1)} s`;
    await expect(page.getByTestId(`candidate-${c.provider}`)).toContainText(age);
  }
  // Outcomes are ingested asynchronously: reload until they show.
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("outcomes-table")).toContainText("completed", { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await page.screenshot({ path: "e2e/output/screenshots/decision-detail.png", fullPage: true });

  // Open-ended on the newest page, the log is a live tail: a decision made now shows up without a reload.
  await page.goto(`/decisions?operation=${OPERATION}&region=${REGION}`);
  await expect(page.getByTestId("live-refresh")).toContainText("Live tail");
  const fresh = await page.request.post("/api/v1/decide", {
    headers: auth,
    data: { operation: OPERATION, region: REGION, requestId: `e2e-tail-${Date.now()}` },
  });
  expect(fresh.status(), await fresh.text()).toBe(200);
  const freshId = ((await fresh.json()) as { decisionId: string }).decisionId;
  await expect(page.locator(`a[href^="/decisions/${freshId}"]`)).toBeVisible({ timeout: 15_000 });
});

test("why traffic moved and providers pages render for the seeded operation", async ({ page }) => {
  await page.goto(`/why?operation=${OPERATION}&region=${REGION}`);
  await expect(page.getByTestId("why-timeline")).toBeVisible();
  await page.screenshot({ path: "e2e/output/screenshots/why.png", fullPage: true });
  await page.goto(`/why?operation=${OPERATION}&region=${REGION}&at=${Date.now()}`);
  await expect(page.getByTestId("moment")).toContainText("Active policy");
  await page.goto("/providers");
  await expect(page.getByTestId("breaker-history")).toBeVisible();
  await page.screenshot({ path: "e2e/output/screenshots/providers.png", fullPage: true });

  // The page keeps itself current: the server data is re-read every 5 s (the age goes back to 0), until paused.
  const live = page.getByTestId("live-refresh");
  const age = async () => Number(/(\d+) s ago/.exec((await live.textContent()) ?? "")?.[1] ?? -1);
  await expect.poll(age, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
  await expect.poll(age, { timeout: 10_000 }).toBeLessThanOrEqual(1);
  await live.click();
  await expect(live).toHaveText("Paused");
  await expect(live).toHaveAttribute("aria-pressed", "true");
});
