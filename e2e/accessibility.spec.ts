import AxeBuilder from "@axe-core/playwright";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { createPrisma } from "../lib/db/client";
import { createFactorListDraft } from "../lib/controlplane/create-factor-list-draft";
import { submitFactorList } from "../lib/controlplane/submit-factor-list";
import { demoSmsPolicyYaml } from "../lib/demo/seed-demo";
import { emailOf, ensureAccounts, signIn, type TE2eRole } from "./support/accounts";

/**
 * axe-core on every console page, in the light and the dark theme, and with each kind of dialog
 * open: any serious or critical violation fails. Beside axe, what it does not check: each page has
 * one <h1>, the first Tab reaches a skip link to the main content, and Tab stays inside an open dialog.
 */
const auth: Record<string, string> = process.env.SWITCHYARD_API_KEY ? { authorization: `Bearer ${process.env.SWITCHYARD_API_KEY}` } : {};
const THEMES = ["light", "dark"] as const;

type TIds = { decisionId: string; reviewId: string; activeId: string };
let ids: TIds;

async function prepare(request: APIRequestContext): Promise<TIds> {
  const res = await request.post("/api/v1/decide", {
    headers: auth,
    data: { operation: "SEND_SMS", region: "EU", requestId: `e2e-a11y-${Date.now()}` },
  });
  expect(res.status(), await res.text()).toBe(200);
  const decisionId = ((await res.json()) as { decisionId: string }).decisionId;
  const url = process.env.E2E_DATABASE_URL;
  if (!url) throw new Error("E2E_DATABASE_URL is not set: run the specs through `npm run test:e2e`");
  const db = createPrisma(url);
  try {
    const author = await db.user.findUniqueOrThrow({ where: { email: emailOf("policy_author") } });
    const actor = { userId: author.id, label: author.email, ip: null };
    const yaml = demoSmsPolicyYaml()
      .replace("completion_rate_5m: {weight: 0.45", "completion_rate_5m: {weight: 0.40")
      .replace("p95_latency_5m: {weight: 0.20", "p95_latency_5m: {weight: 0.25");
    const draft = await createFactorListDraft(db, actor, { yaml, changeNote: "e2e accessibility: a version in review" });
    await submitFactorList(db, actor, draft.id);
    const policy = await db.operationPolicy.findUniqueOrThrow({ where: { operationKey: "SEND_SMS" } });
    return { decisionId, reviewId: draft.id, activeId: policy.activeVersionId! };
  } finally {
    await db.$disconnect();
  }
}

/** Every console page (the nav's, the detail pages, the forms) and the sign-in page, each with the role that uses it. */
function allPages(p: TIds): { path: string; role: TE2eRole | null }[] {
  const admin = (path: string) => ({ path, role: "admin" as const });
  return [
    { path: "/login", role: null },
    ...["/", "/why", "/decisions", "/providers", "/catalog", "/gateway", "/factor-lists", "/shadow", "/evaluation", "/audit", "/governance/access"].map(admin),
    admin("/why?operation=SEND_SMS&region=EU"),
    admin(`/decisions/${p.decisionId}`),
    admin(`/factor-lists/${p.activeId}`),
    { path: `/factor-lists/${p.reviewId}`, role: "approver" },
    { path: `/factor-lists/${p.reviewId}/edit`, role: "policy_author" },
    { path: "/factor-lists/new?operation=SEND_SMS", role: "policy_author" },
  ];
}

async function as(page: Page, role: TE2eRole | null) {
  await page.context().clearCookies();
  if (role) await signIn(page.request, role);
}

async function useTheme(page: Page, theme: (typeof THEMES)[number]) {
  await page.context().addInitScript((t) => localStorage.setItem("sy-theme", t), theme);
}

/** Serious and critical violations, one line each with the first few offending elements. */
async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  let builder = new AxeBuilder({ page });
  if (include) builder = builder.include(include);
  const { violations } = await builder.analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} (${v.nodes.length}×: ${v.nodes
          .slice(0, 3)
          .map((n) => `${n.target.join(" ")}${n.failureSummary ? ` [${n.failureSummary.replace(/\s+/g, " ").slice(0, 160)}]` : ""}`)
          .join("; ")})`,
    );
}

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
  ids = await prepare(request);
});

for (const theme of THEMES) {
  test(`every console page passes axe in the ${theme} theme, has one h1 and a skip link`, async ({ page }) => {
    test.setTimeout(180_000);
    await useTheme(page, theme);
    const problems: string[] = [];
    for (const { path, role } of allPages(ids)) {
      await as(page, role);
      const res = await page.goto(path);
      expect(res?.status(), path).toBeLessThan(400);
      await page.waitForLoadState("networkidle");
      expect(await page.evaluate(() => document.documentElement.dataset.theme), path).toBe(theme);
      for (const v of await seriousViolations(page)) problems.push(`${path}: ${v}`);
      const h1 = await page.locator("h1").count();
      if (h1 !== 1) problems.push(`${path}: ${h1} <h1> elements`);
      // The skip link is the first thing Tab reaches, and it leads to the main content.
      await page.locator("body").focus();
      await page.keyboard.press("Tab");
      const first = await page.evaluate(() => {
        const a = document.activeElement;
        return a instanceof HTMLAnchorElement ? { text: a.textContent ?? "", href: a.getAttribute("href") ?? "" } : null;
      });
      const mainId = await page.locator("main").getAttribute("id");
      if (!first || !/skip/i.test(first.text) || !mainId || first.href !== `#${mainId}`)
        problems.push(`${path}: first Tab stop is not a skip link to <main> (${JSON.stringify(first)})`);
    }
    expect(problems).toEqual([]);
  });
}

/** Tab and Shift+Tab, past the number of controls, never leave the dialog. */
async function expectFocusTrapped(page: Page, dialog: string) {
  for (const key of ["Tab", "Shift+Tab"]) {
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press(key);
      const inside = await page.evaluate((sel) => Boolean(document.querySelector(sel)?.contains(document.activeElement)), dialog);
      expect(inside, `${key} ×${i + 1} left ${dialog}`).toBe(true);
    }
  }
}

const DIALOGS: { name: string; role: TE2eRole; path: (p: TIds) => string; open: (page: Page) => Promise<void>; dialog: string }[] = [
  {
    name: "pin",
    role: "on_call",
    path: () => "/providers",
    open: async (page) => page.locator("[data-testid^='pin-']").first().click(),
    dialog: "[data-testid='confirm-dialog']",
  },
  {
    name: "kill",
    role: "on_call",
    path: () => "/providers",
    open: async (page) => page.locator("[data-testid^='kill-']:not([data-testid^='kill-switch'])").first().click(),
    dialog: "[data-testid='confirm-dialog']",
  },
  {
    name: "approve",
    role: "approver",
    path: (p) => `/factor-lists/${p.reviewId}`,
    open: async (page) => page.getByTestId("action-approve").click(),
    dialog: "[data-testid='confirm-dialog']",
  },
  {
    name: "reject",
    role: "compliance",
    path: (p) => `/factor-lists/${p.reviewId}`,
    open: async (page) => page.getByTestId("action-reject").click(),
    dialog: "[data-testid='confirm-dialog']",
  },
  {
    name: "keyboard shortcuts",
    role: "viewer",
    path: () => "/",
    open: async (page) => page.keyboard.press("?"),
    dialog: "[data-testid='keyboard-help']",
  },
];

for (const theme of THEMES) {
  test(`with a dialog open (pin, kill, approve, reject, shortcuts) axe passes in the ${theme} theme and focus stays in the dialog`, async ({ page }) => {
    test.setTimeout(120_000);
    await useTheme(page, theme);
    const problems: string[] = [];
    for (const d of DIALOGS) {
      await as(page, d.role);
      await page.goto(d.path(ids));
      await page.waitForLoadState("networkidle");
      await d.open(page);
      const dialog = page.locator(d.dialog);
      await expect(dialog, d.name).toBeVisible();
      await expect.poll(() => page.evaluate((sel) => Boolean(document.querySelector(sel)?.contains(document.activeElement)), d.dialog), d.name).toBe(true);
      for (const v of await seriousViolations(page)) problems.push(`${d.name} dialog: ${v}`);
      await expectFocusTrapped(page, d.dialog);
      await page.keyboard.press("Escape");
      await expect(dialog, d.name).toBeHidden();
    }
    expect(problems).toEqual([]);
  });
}
