import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { readdirSync } from "node:fs";
import path from "node:path";
import { ensureAccounts, signIn, type TE2eRole } from "./support/accounts";
import { prepareConsolePages, type TConsoleIds } from "./support/console-pages";

/**
 * axe-core on every console page, in the light and the dark theme, and with each kind of dialog
 * open: any serious or critical violation fails. Beside axe, what it does not check: each page has
 * one <h1>, the first Tab reaches a skip link to the main content, and Tab stays inside an open dialog.
 */
const THEMES = ["light", "dark"] as const;

let ids: TConsoleIds;

/**
 * Every console page and the sign-in page, each with the role that uses it; `route` is its file's
 * route, so the coverage test below notices a page added without being listed here.
 */
const PAGES: { route: string; name: string; path: (p: TConsoleIds) => string; role: TE2eRole | null }[] = [
  { route: "/login", name: "sign-in", path: () => "/login", role: null },
  ...[
    "/",
    "/why",
    "/decisions",
    "/providers",
    "/catalog",
    "/gateway",
    "/factor-lists",
    "/reviews",
    "/shadow",
    "/evaluation",
    "/audit",
    "/governance/access",
  ].map((path) => ({ route: path, name: path, path: () => path, role: "admin" as const })),
  { route: "/incidents", name: "/incidents", path: () => "/incidents", role: "on_call" },
  { route: "/notifications", name: "/notifications", path: () => "/notifications", role: "admin" },
  { route: "/chaos", name: "/chaos", path: () => "/chaos", role: "admin" },
  { route: "/why", name: "why, one scope", path: () => "/why?operation=SEND_SMS&region=EU", role: "admin" },
  { route: "/decisions/[id]", name: "decision", path: (p) => `/decisions/${p.decisionId}`, role: "admin" },
  { route: "/factor-lists/[id]", name: "active version", path: (p) => `/factor-lists/${p.activeId}`, role: "admin" },
  { route: "/factor-lists/[id]", name: "version in review", path: (p) => `/factor-lists/${p.reviewId}`, role: "approver" },
  { route: "/factor-lists/[id]/edit", name: "editor", path: (p) => `/factor-lists/${p.reviewId}/edit`, role: "policy_author" },
  { route: "/factor-lists/new", name: "new draft", path: () => "/factor-lists/new?operation=SEND_SMS", role: "policy_author" },
  { route: "/reviews", name: "reviews inbox", path: () => "/reviews", role: "compliance" },
];

/** Routes not scanned, each with why. */
const NOT_SCANNED: Record<string, string> = {
  "/incidents/[id]": "an incident exists only after a provider fault; this run injects none",
};

/** The routes of app/(console) and app/login as Next serves them ("(console)" is a route group, not a path). */
function routesOnDisk(): string[] {
  const out: string[] = [];
  const walk = (dir: string, route: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name), `${route}/${e.name}`);
      else if (e.name === "page.tsx") out.push(route || "/");
    }
  };
  walk("app/(console)", "");
  walk("app/login", "/login");
  return out.sort();
}

test("the scan covers every console page", () => {
  const listed = new Set([...PAGES.map((p) => p.route), ...Object.keys(NOT_SCANNED)]);
  expect(routesOnDisk().filter((r) => !listed.has(r))).toEqual([]);
});

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
  ids = await prepareConsolePages(request, "a11y");
});

for (const theme of THEMES) {
  for (const p of PAGES) {
    test(`${p.name} (${theme}): no serious or critical axe violation, one h1, a skip link first`, async ({ page }) => {
      await useTheme(page, theme);
      await as(page, p.role);
      const path = p.path(ids);
      const res = await page.goto(path);
      expect(res?.status(), path).toBeLessThan(400);
      await page.locator("main").waitFor();
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
      const problems = await seriousViolations(page);
      const h1 = await page.locator("h1").count();
      if (h1 !== 1) problems.push(`${h1} <h1> elements`);
      // The skip link is the first thing Tab reaches, and it leads to the main content.
      await page.locator("body").focus();
      await page.keyboard.press("Tab");
      const first = await page.evaluate(() => {
        const a = document.activeElement;
        return a instanceof HTMLAnchorElement ? { text: a.textContent ?? "", href: a.getAttribute("href") ?? "" } : null;
      });
      const mainId = await page.locator("main").getAttribute("id");
      if (!first || !/skip/i.test(first.text) || !mainId || first.href !== `#${mainId}`)
        problems.push(`first Tab stop is not a skip link to <main> (${JSON.stringify(first)})`);
      expect(problems, path).toEqual([]);
    });
  }
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

const DIALOGS: { name: string; role: TE2eRole; path: (p: TConsoleIds) => string; open: (page: Page) => Promise<void>; dialog: string }[] = [
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
      await page.locator("main").waitFor();
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
