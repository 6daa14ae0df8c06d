import { chromium, request, type FullConfig, type Page } from "@playwright/test";
import { ensureAccounts, emailOf, originOf, passwordOf, type TE2eRole } from "./accounts";

/**
 * Global teardown: after the journeys (whatever their result), one full-page screenshot of every
 * console page in the light and the dark theme under e2e/output/screenshots/pages/, kept as CI
 * artifacts. The journeys' own screenshots show pages mid-journey; these show each page as the
 * run left the data.
 */
const OUT = "e2e/output/screenshots/pages";

type TShot = { name: string; path: string | ((page: Page) => Promise<string | null>); role: TE2eRole; ready: string };

/** The first link on `listPath` whose href matches: a detail page that exists in this run's data. */
const firstLink = (listPath: string, pattern: RegExp) => async (page: Page) => {
  await page.goto(listPath);
  const hrefs = await page.locator("a").evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
  return hrefs.find((h) => pattern.test(h)) ?? null;
};

const SHOTS: TShot[] = [
  { name: "overview", path: "/?operation=SEND_SMS&region=EU", role: "on_call", ready: "overview" },
  { name: "why", path: "/why?operation=SEND_SMS&region=EU", role: "on_call", ready: "why-timeline" },
  { name: "decisions", path: "/decisions", role: "on_call", ready: "decisions-table" },
  { name: "decision-detail", path: firstLink("/decisions", /^\/decisions\/[0-9a-f-]{36}/), role: "on_call", ready: "decision-detail" },
  { name: "providers", path: "/providers", role: "on_call", ready: "providers-table" },
  { name: "gateway", path: "/gateway", role: "on_call", ready: "gateway" },
  { name: "factor-lists", path: "/factor-lists", role: "approver", ready: "versions-table" },
  { name: "factor-list-version", path: firstLink("/factor-lists", /^\/factor-lists\/[0-9a-f-]{36}$/), role: "approver", ready: "version-detail" },
  { name: "factor-list-editor", path: "/factor-lists/new?operation=SEND_SMS", role: "policy_author", ready: "yaml-editor" },
  { name: "shadow", path: "/shadow", role: "viewer", ready: "shadow" },
  { name: "evaluation", path: "/evaluation", role: "viewer", ready: "evaluation" },
  { name: "audit", path: "/audit", role: "viewer", ready: "audit-table" },
  { name: "access", path: "/governance/access", role: "admin", ready: "users-table" },
  { name: "notifications", path: "/notifications", role: "admin", ready: "notifications" },
];

export default async function pageScreenshots(config: FullConfig): Promise<void> {
  const use = config.projects[0]?.use ?? {};
  const baseURL = originOf();
  const api = await request.newContext({ baseURL });
  try {
    await ensureAccounts(api);
  } finally {
    await api.dispose();
  }
  const browser = await chromium.launch(use.launchOptions);
  try {
    for (const theme of ["light", "dark"] as const) {
      for (const shot of SHOTS) {
        const context = await browser.newContext({ baseURL, viewport: { width: 1440, height: 900 } });
        await context.addInitScript((t) => localStorage.setItem("sy-theme", t), theme);
        const page = await context.newPage();
        try {
          const login = await context.request.post("/api/auth/login", {
            headers: { origin: baseURL },
            data: { email: emailOf(shot.role), password: passwordOf() },
          });
          if (!login.ok()) throw new Error(`sign-in as ${shot.role}: HTTP ${login.status()}`);
          const path = typeof shot.path === "string" ? shot.path : await shot.path(page);
          if (path === null) {
            process.stdout.write(`screenshots: ${shot.name}: nothing to show (no link found)\n`);
            continue;
          }
          await page.goto(path);
          await page.getByTestId(shot.ready).first().waitFor({ timeout: 15_000 });
          await page.screenshot({ path: `${OUT}/${shot.name}-${theme}.png`, fullPage: true });
        } catch (err) {
          // A page that cannot be captured must not hide the journeys' result; say which and go on.
          process.stdout.write(`screenshots: ${shot.name} (${theme}) not captured: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}\n`);
        } finally {
          await context.close();
        }
      }
    }
  } finally {
    await browser.close();
  }
}
