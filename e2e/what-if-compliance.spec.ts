import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import pg from "pg";
import { ensureAccounts, signIn } from "./support/accounts";

/**
 * The approval page's what-if for a change that removes a compliance gate: a draft of SEND_SMS
 * without `compliance_allowed` (EU SMS requires gdpr; provider_C holds only soc2), replayed over
 * 25 minutes of recorded EU and NA traffic in which provider_A failed for ten minutes and
 * provider_B failed throughout. The page must count, per region and provider, the replayed
 * decisions that would have gone to a provider the active policy refuses, out of the region's
 * recorded decisions as the decision log holds them, and say the 3 h asked had only 25 min of
 * recorded traffic. The editor part types broken YAML and sees its line and column marked.
 */
const OPERATION = "SEND_SMS";
const RECORDED_MINUTES = 25;
const PER_MINUTE = { EU: 40, NA: 20 } as const;

const auth: Record<string, string> = process.env.SWITCHYARD_API_KEY ? { authorization: `Bearer ${process.env.SWITCHYARD_API_KEY}` } : {};

let pool: pg.Pool;

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
  const url = process.env.E2E_DATABASE_URL;
  if (!url) throw new Error("E2E_DATABASE_URL is not set: run the specs through `npm run test:e2e`");
  pool = new pg.Pool({ connectionString: url, max: 2 });
});

test.afterAll(async () => {
  await pool?.end();
});

/**
 * A real decision of the region (through the data plane), copied into the past as the recorded
 * traffic: every console page reading these rows (decision detail) sees a whole record.
 */
async function templateDecision(request: APIRequestContext, region: string): Promise<string> {
  const requestId = `e2e-wic-template-${region}-${Date.now()}`;
  const res = await request.post("/api/v1/decide", { headers: auth, data: { operation: OPERATION, region, requestId } });
  expect(res.ok()).toBe(true);
  await expect.poll(async () => dbCount(`SELECT count(*)::text AS n FROM decision WHERE request_id = $1`, [requestId])).toBe(1);
  return requestId;
}

/** Recorded traffic: decisions as the active policy routed them, and the buckets of how each provider behaved. */
async function recordTraffic(request: APIRequestContext) {
  const { rows } = await pool.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_name = 'decision' AND table_schema = current_schema() AND column_name NOT IN ('id', 'created_at', 'request_id')`,
  );
  const copied = rows.map((r) => pg.escapeIdentifier(r.column_name)).join(", ");
  const templates = { EU: await templateDecision(request, "EU"), NA: await templateDecision(request, "NA") };
  const end = Math.floor(Date.now() / 300_000) * 300_000 - 60_000;
  for (let i = 0; i < RECORDED_MINUTES; i++) {
    const at = new Date(end - (RECORDED_MINUTES - 1 - i) * 60_000);
    for (const [region, n] of Object.entries(PER_MINUTE)) {
      await pool.query(
        `INSERT INTO decision (id, created_at, request_id, ${copied})
         SELECT gen_random_uuid(), $1::timestamptz + (g * interval '1 second'), 'e2e-wic-' || $2 || '-' || $3 || '-' || g, ${copied}
           FROM generate_series(1, $4) g, (SELECT * FROM decision WHERE request_id = $5) t`,
        [at, i, region, n, templates[region as keyof typeof templates]],
      );
    }
    const aFails = i >= 8 && i < 18;
    const buckets: [string, string, number, boolean][] = [
      ["provider_A", "EU", PER_MINUTE.EU, aFails],
      ["provider_A", "NA", PER_MINUTE.NA, false],
      ["provider_B", "EU", PER_MINUTE.EU, true],
    ];
    for (const [provider, region, calls, failed] of buckets) {
      await pool.query(
        `INSERT INTO metric_bucket (provider_key, operation_key, region, bucket_start, width_ms, calls, call_failures, latency_counts, completions, failures_provider_call)
         VALUES ($1, $2, $3, $4, 60000, $5, $6, '{}', $7, $6) ON CONFLICT DO NOTHING`,
        [provider, OPERATION, region, at, calls, failed ? calls : 0, failed ? 0 : calls],
      );
    }
  }
  // The log writes each batch's rollup cells with its rows; rows copied in by hand get theirs from
  // the product's own rebuild of the range, which range counts (what-if coverage) read.
  await pool.query(`SELECT decision_rollup_rebuild($1::timestamptz, $2::timestamptz)`, [new Date(end - RECORDED_MINUTES * 60_000), new Date(end + 60_000)]);
}

async function dbCount(sql: string, params: unknown[]): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(sql, params);
  return Number(rows[0]!.n);
}

async function openNewDraft(page: Page) {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page.request, "policy_author");
  await page.goto(`/factor-lists/new?operation=${OPERATION}`);
  await expect(page.getByTestId("yaml-editor")).toHaveValue(/compliance_allowed/);
}

test("broken YAML shows its line and column and the line is marked in the editor", async ({ page }) => {
  await openNewDraft(page);
  const editor = page.getByTestId("yaml-editor");
  const original = await editor.inputValue();
  // An unclosed flow sequence: the parser notices it only at the next key, the author fixes the bracket.
  const lines = original.split("\n");
  const at = lines.findIndex((l) => l.startsWith("gates:"));
  expect(at).toBeGreaterThan(-1);
  const broken = [...lines.slice(0, at), "gates: [supports_region, compliance_allowed", ...lines.slice(at + 1).filter((l) => !l.startsWith("  - "))].join("\n");
  await editor.fill(broken);
  const error = page.getByTestId("validation-error").first();
  await expect(error).toContainText(`invalid YAML at line ${at + 1}, column 8`);
  await expect(page.getByTestId("validation-position").first()).toHaveText(`line ${at + 1}, column 8`);
  const marked = page.getByTestId("yaml-error-line");
  await expect(marked).toHaveCount(1);
  await expect(marked).toHaveAttribute("data-line", String(at + 1));
  await expect(page.locator(`[data-error-line]`)).toHaveText(String(at + 1));
  await expect(page.getByTestId("save-draft")).toBeDisabled();
  // The position button puts the caret on the marked line.
  await page.getByTestId("validation-position").first().click();
  const caretLine = await editor.evaluate((t: HTMLTextAreaElement) => t.value.slice(0, t.selectionStart).split("\n").length);
  expect(caretLine).toBe(at + 1);
  await page.screenshot({ path: "e2e/output/screenshots/factor-list-editor-yaml-error.png" });

  // A weight sum off by float noise reads as written.
  await editor.fill(original.replace(/confidence_from_sample: \{ ?weight: 0\.10?/, "confidence_from_sample: {weight: 0.05"));
  await expect(page.getByTestId("validation").getByText("got 0.95")).toBeVisible();
  await expect(page.locator("body")).not.toContainText("00000000");

  // A schema error (a misspelt gate) marks the line of the field it names, like a syntax error.
  // The first listed gate, whichever it is: earlier specs may have activated a list without some gates.
  const originalLines = original.split("\n");
  const gateIndex = originalLines.findIndex((l, i) => i > at && /^  - [a-z_]+$/.test(l));
  expect(gateIndex).toBeGreaterThan(at);
  const gateLine = gateIndex + 1;
  await editor.fill(originalLines.map((l, i) => (i === gateIndex ? `${l}x` : l)).join("\n"));
  await expect(page.getByTestId("validation-position").first()).toHaveText(`line ${gateLine}, column 5`);
  await expect(page.getByTestId("yaml-error-line")).toHaveAttribute("data-line", String(gateLine));
});

test("a draft without the compliance gate: the what-if counts decisions that break the active rules, per region and provider, and states coverage", async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  await recordTraffic(request);
  await openNewDraft(page);
  const editor = page.getByTestId("yaml-editor");
  await editor.fill((await editor.inputValue()).replace("  - compliance_allowed\n", ""));
  await expect(page.getByTestId("validation-summary")).toContainText("valid");
  const gatesDiff = page.getByTestId("diff-gates");
  await expect(gatesDiff.getByTestId("diff-before-items").locator("[data-differs]")).toHaveText(/compliance_allowed/);
  // Readable in the half-width panel: a gate name is on one line, not squeezed into a narrow column.
  const item = gatesDiff.getByTestId("diff-before-items").locator("li").first();
  const box = await item.boundingBox();
  expect(box!.height).toBeLessThan(24);
  expect(box!.width).toBeGreaterThan(100);
  await page.screenshot({ path: "e2e/output/screenshots/factor-list-editor-diff.png" });
  await page.getByTestId("change-note").fill("e2e: drop compliance_allowed (what-if must show the EU exposure)");
  await page.getByTestId("save-draft").click();
  await expect(page).toHaveURL(/\/factor-lists\/[0-9a-f-]{36}$/);

  const whatIf = page.getByTestId("what-if");
  const table = whatIf.getByTestId("what-if-compliance-table");
  await expect(table).toBeVisible({ timeout: 180_000 });
  const coverage = whatIf.getByTestId("what-if-coverage");
  const from = new Date(Number(await coverage.getAttribute("data-from")));
  const to = new Date(Number(await coverage.getAttribute("data-to")));
  const minutes = await dbCount(
    `SELECT count(DISTINCT date_trunc('minute', created_at))::text AS n FROM decision WHERE operation = $1 AND created_at >= $2 AND created_at < $3`,
    [OPERATION, from, to],
  );
  expect(minutes).toBeGreaterThanOrEqual(RECORDED_MINUTES);
  await expect(coverage).toHaveText(
    minutes >= 180 ? /Covers 3 h of the 3 h asked/ : `Covers ${minutes} min of the 3 h asked (minutes with recorded decisions).`,
  );

  // EU: provider_C lacks gdpr. The count is of the region's recorded decisions, as the log holds them.
  const row = table.getByTestId("compliance-EU-provider_C");
  await expect(row).toBeVisible();
  await expect(row).toContainText("lacks required compliance: gdpr");
  const replayed = Number((await row.getByTestId("breach-decisions").textContent())!.replace(/,/g, ""));
  const ofRegion = Number((await row.getByTestId("breach-region-decisions").textContent())!.replace(/,/g, ""));
  const euRecorded = await dbCount(`SELECT count(*)::text AS n FROM decision WHERE operation = $1 AND region = 'EU' AND created_at >= $2 AND created_at < $3`, [
    OPERATION,
    from,
    to,
  ]);
  expect(ofRegion).toBe(euRecorded);
  expect(replayed).toBeGreaterThan(0);
  expect(replayed).toBeLessThanOrEqual(euRecorded);
  // The active policy never sent an EU SMS to provider_C (the compliance gate refuses it): the exposure is the draft's.
  expect(
    await dbCount(
      `SELECT count(*)::text AS n FROM decision WHERE operation = $1 AND region = 'EU' AND selected_provider = 'provider_C' AND created_at >= $2 AND created_at < $3`,
      [OPERATION, from, to],
    ),
  ).toBe(0);
  // NA has no compliance requirement: no row for it.
  await expect(table.getByTestId(/^compliance-NA-/)).toHaveCount(0);
  await expect(whatIf.getByTestId("what-if-compliance")).toContainText(/replayed decisions go to a provider that active v\d+.s compliance rules refuse/);
  await whatIf.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "e2e/output/screenshots/factor-list-what-if-compliance.png", fullPage: true });
});
