import { expect, test, type Page } from "@playwright/test";
import { ensureAccounts, originOf, signIn } from "./support/accounts";
import { prepareConsolePages, type TConsoleIds } from "./support/console-pages";

/**
 * The console at a desktop and a phone size: screenshots of the five pages on-call and reviewers
 * live in (e2e/output/screenshots/, gitignored), and on every console page at 390 × 844 nothing
 * is wider than the viewport, so no page scrolls sideways.
 */
const OUT = "e2e/output/screenshots";
const SIZES = [
  { name: "1440", width: 1440, height: 900 },
  { name: "390", width: 390, height: 844 },
] as const;

let pages: TConsoleIds;

/** Every console page there is: the nav's, the detail pages and the forms. */
function allConsolePages(p: TConsoleIds): string[] {
  return [
    // The nav's pages (components/nav.tsx; /chaos exists only in demo mode, which the e2e server is not in).
    ...["/", "/why", "/decisions", "/providers", "/catalog", "/gateway", "/factor-lists", "/shadow", "/evaluation", "/audit", "/governance/access"],
    "/?operation=SEND_SMS&region=EU",
    "/why?operation=SEND_SMS&region=EU",
    `/decisions/${p.decisionId}`,
    "/factor-lists?operation=SEND_SMS",
    `/factor-lists/${p.reviewId}`,
    `/factor-lists/${p.activeId}`,
    `/factor-lists/${p.reviewId}/edit`,
    "/factor-lists/new?operation=SEND_SMS",
  ];
}

/** The elements sticking out past the viewport's right edge, deepest first: what to fix when the page is too wide. */
async function overflow(page: Page) {
  return page.evaluate(() => {
    const vw = window.innerWidth;
    const wide = [...document.querySelectorAll<HTMLElement>("body *")]
      .filter((e) => e.getBoundingClientRect().right > vw + 0.5 && e.getClientRects().length > 0)
      .filter((e) => ![...e.children].some((c) => c.getBoundingClientRect().right > vw + 0.5))
      .slice(0, 5)
      .map(
        (e) =>
          `${e.tagName.toLowerCase()}${e.dataset.testid ? `[${e.dataset.testid}]` : ""}.${String(e.className).slice(0, 40)} → ${Math.round(e.getBoundingClientRect().right)}px`,
      );
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: vw, wide };
  });
}

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
  pages = await prepareConsolePages(request, "screens");
});

for (const size of SIZES) {
  test(`screenshots at ${size.width}×${size.height}: overview, Why, decision, editor, approval`, async ({ page }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    const shots = [
      { name: "overview", path: "/?operation=SEND_SMS&region=EU", ready: "overview", role: "on_call" },
      { name: "why", path: "/why?operation=SEND_SMS&region=EU", ready: "why-timeline", role: "on_call" },
      { name: "decision-detail", path: `/decisions/${pages.decisionId}`, ready: "decision-detail", role: "on_call" },
      { name: "factor-list-editor", path: `/factor-lists/${pages.reviewId}/edit`, ready: "yaml-editor", role: "policy_author" },
      { name: "approval", path: `/factor-lists/${pages.reviewId}`, ready: "version-detail", role: "approver" },
    ] as const;
    for (const shot of shots) {
      await signIn(page.request, shot.role);
      await page.goto(shot.path);
      await page.getByTestId(shot.ready).first().waitFor();
      await page.screenshot({ path: `${OUT}/${shot.name}-${size.name}.png`, fullPage: true });
      if (size.width === 390) expect(await overflow(page), shot.path).toMatchObject({ scrollWidth: 390 });
    }
  });
}

test("at 390 × 844 no console page scrolls sideways, and the nav is a keyboard-usable menu", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page.request, "admin");
  const problems: string[] = [];
  for (const path of allConsolePages(pages)) {
    const res = await page.goto(path);
    expect(res?.status(), path).toBeLessThan(400);
    await page.waitForLoadState("networkidle");
    const o = await overflow(page);
    if (o.scrollWidth > o.innerWidth) problems.push(`${path}: ${o.scrollWidth}px wide; ${o.wide.join("; ")}`);
  }
  expect(problems).toEqual([]);

  // On-call's key actions on the providers page (kill, pin, adaptive off) sit within the phone's width, not
  // past the edge of a table that scrolls sideways.
  await signIn(page.request, "on_call");
  await page.goto("/providers");
  await expect(page.getByRole("button", { name: "Turn adaptive off…" }).first()).toBeVisible();
  const cut = await page.evaluate(() =>
    [...document.querySelectorAll("main button")]
      .filter((b) => /^(Kill|Pin|Turn adaptive off)/.test(b.textContent ?? ""))
      .map((b) => ({ text: b.textContent, right: Math.round(b.getBoundingClientRect().right) }))
      .filter((b) => b.right > window.innerWidth),
  );
  expect(cut).toEqual([]);
  await signIn(page.request, "admin");

  // The links sit behind one button; Enter opens it with focus on the first link, Escape closes it and focus returns.
  await page.goto("/providers");
  const button = page.getByTestId("nav-menu-button");
  await expect(button).toBeVisible();
  await expect(button).toHaveAttribute("aria-expanded", "false");
  await button.focus();
  await page.keyboard.press("Enter");
  const menu = page.getByTestId("nav-menu");
  await expect(menu).toBeVisible();
  await expect(button).toHaveAttribute("aria-expanded", "true");
  await expect(menu.getByRole("link", { name: "Overview" })).toBeFocused();
  await page.screenshot({ path: `${OUT}/nav-menu-390.png` });
  await page.keyboard.press("Escape");
  await expect(menu).toBeHidden();
  await expect(button).toBeFocused();
  await button.click();
  await menu.getByRole("link", { name: "Audit" }).click();
  await expect(page).toHaveURL(/\/audit$/);
  await expect(page.getByTestId("nav-menu")).toBeHidden();
});

test("the icon: /favicon.ico and the page's icon link answer without a session", async ({ request }) => {
  const ico = await request.get(`${originOf()}/favicon.ico`, { maxRedirects: 0 });
  expect(ico.status()).toBe(200);
  expect(ico.headers()["content-type"]).toContain("image/");
  const login = await (await request.get(`${originOf()}/login`)).text();
  const href = /<link rel="icon" href="([^"]+)"/.exec(login)?.[1];
  expect(href).toBeTruthy();
  expect((await request.get(`${originOf()}${href!.replace(/&amp;/g, "&")}`, { maxRedirects: 0 })).status()).toBe(200);
});
