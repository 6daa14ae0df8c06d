import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { expect, request as playwrightRequest, test, type APIRequestContext } from "@playwright/test";
import { ensureAccounts, originOf, signIn } from "./support/accounts";

/**
 * The attack review's console findings, as an attacker would try them: a signed-out visitor
 * reads no page data (HTML or RSC), pages carry a content security policy the console runs
 * under without a single violation, and writes from elsewhere never reach a server action.
 */
const MARKER = `planted-${Date.now().toString(36)}`;
const auth: Record<string, string> = process.env.SWITCHYARD_API_KEY ? { authorization: `Bearer ${process.env.SWITCHYARD_API_KEY}` } : {};

/** Every console page in the app tree, as URL patterns ("/factor-lists/[id]"). */
function consoleRoutes(): string[] {
  const root = path.join(process.cwd(), "app", "(console)");
  const out: string[] = [];
  const walk = (dir: string, url: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full, name.startsWith("(") ? url : `${url}/${name}`);
      else if (name === "page.tsx") out.push(url || "/");
    }
  };
  walk(root, "");
  return out.sort();
}

let ids: { decision: string; version: string };

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
  // Plant the marker where pages show it: a decision's request id and a draft's change note.
  const decided = await request.post("/api/v1/decide", { headers: auth, data: { operation: "SEND_SMS", region: "EU", requestId: `${MARKER}-decision` } });
  expect(decided.status(), await decided.text()).toBe(200);
  const decision = ((await decided.json()) as { decisionId: string }).decisionId;

  const author = await playwrightRequest.newContext({ baseURL: originOf() });
  try {
    await signIn(author, "policy_author");
    const versions = (await (await author.get("/api/control/factor-lists?operation=SEND_SMS")).json()) as { versions: { id: string }[] };
    const yaml = await (await author.get(`/api/control/factor-lists/${versions.versions[0]!.id}/yaml`)).text();
    const created = await author.post("/api/control/factor-lists", { headers: { origin: originOf() }, data: { yaml, changeNote: `${MARKER} change note` } });
    expect(created.status(), await created.text()).toBe(201);
    ids = { decision, version: ((await created.json()) as { version: { id: string } }).version.id };
  } finally {
    await author.dispose();
  }
});

function concrete(route: string): string {
  return route.replace("/decisions/[id]", `/decisions/${ids.decision}`).replace("/factor-lists/[id]", `/factor-lists/${ids.version}`);
}

test("signed out, no console route renders data: an empty redirect to /login, for HTML and RSC requests", async () => {
  const routes = consoleRoutes();
  expect(routes.length).toBeGreaterThanOrEqual(15);
  const anonymous = await playwrightRequest.newContext({ baseURL: originOf() });
  const signedIn = await playwrightRequest.newContext({ baseURL: originOf() });
  try {
    await signIn(signedIn, "on_call");
    // The marker is there to be found: signed in, the pages that show it do.
    expect(await (await signedIn.get(`/decisions/${ids.decision}`)).text()).toContain(MARKER);
    expect(await (await signedIn.get(`/factor-lists/${ids.version}`)).text()).toContain(MARKER);
    for (const route of routes) {
      const url = concrete(route);
      for (const headers of [{}, { rsc: "1" }, { rsc: "1", "next-router-prefetch": "1" }] as Record<string, string>[]) {
        const res = await anonymous.get(url, { headers, maxRedirects: 0 });
        const body = await res.text();
        expect(res.status(), `${url} ${JSON.stringify(headers)}`).toBe(307);
        expect(res.headers().location, url).toMatch(/^\/login/);
        expect(body, `${url} ${JSON.stringify(headers)} leaks page data`).not.toContain(MARKER);
        expect(body.length, url).toBe(0);
      }
    }
    // A signed-out server action on a console page is refused before Next runs it.
    const action = await anonymous.post("/decisions", { headers: { origin: originOf(), "next-action": "0".repeat(42) }, data: "[]", maxRedirects: 0 });
    expect(action.status()).toBe(401);
    expect(await action.text()).not.toContain(MARKER);
  } finally {
    await anonymous.dispose();
    await signedIn.dispose();
  }
});

test("pages and API answers carry security headers; the console runs under its CSP with zero violations", async ({ page, request }) => {
  const login = await request.get("/login");
  const csp = login.headers()["content-security-policy"] ?? "";
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(login.headers()["x-frame-options"]).toBe("DENY");
  expect(login.headers()["x-content-type-options"]).toBe("nosniff");
  expect(login.headers()["referrer-policy"]).toBe("no-referrer");
  const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
  expect(await login.text()).toContain(`nonce="${nonce}"`);
  // A fresh nonce per response.
  expect((await request.get("/login")).headers()["content-security-policy"]).not.toContain(nonce);
  for (const api of ["/api/v1/health", "/api/auth/session"]) {
    const res = await request.get(api);
    expect(res.headers()["x-content-type-options"], api).toBe("nosniff");
    expect(res.headers()["content-security-policy"], api).toContain("frame-ancestors 'none'");
  }

  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const consoleViolations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) consoleViolations.push(m.text());
  });
  await signIn(page.request, "on_call");
  for (const route of consoleRoutes().filter((r) => r !== "/chaos")) {
    const url = concrete(route);
    await page.goto(url);
    await expect(page.locator("main")).toBeVisible();
    await page.waitForLoadState("networkidle");
    const violations = await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
    expect(violations, `${url}: CSP violations`).toEqual([]);
  }
  // Client-side navigation (RSC fetches) and a chart: still nothing blocked.
  await page.goto("/?operation=SEND_SMS&region=EU");
  await page.getByRole("link", { name: "Decisions", exact: true }).first().click();
  await expect(page).toHaveURL(/\/decisions/);
  expect(consoleViolations).toEqual([]);
});

async function postRaw(api: APIRequestContext, url: string, headers: Record<string, string>, data: string) {
  return api.post(url, { headers, data, maxRedirects: 0 });
}

test("server actions follow the route handlers' origin rule: no Origin or a cross-site fetch is refused", async () => {
  const api = await playwrightRequest.newContext({ baseURL: originOf() });
  try {
    const action = { "next-action": "0".repeat(42), "content-type": "text/plain;charset=UTF-8" };
    const noOrigin = await postRaw(api, "/login", action, "[]");
    expect(noOrigin.status()).toBe(403);
    expect(((await noOrigin.json()) as { error: { code: string } }).error.code).toBe("cross_origin");
    const crossSite = await postRaw(api, "/login", { ...action, origin: originOf(), "sec-fetch-site": "cross-site" }, "[]");
    expect(crossSite.status()).toBe(403);
    const foreign = await postRaw(api, "/login", { ...action, origin: "http://attacker.invalid" }, "[]");
    expect(foreign.status()).toBe(403);
  } finally {
    await api.dispose();
  }
});

test("control-plane and sign-in bodies over the limit are refused with 413 before they are read", async ({ request }) => {
  const origin = { origin: originOf(), "content-type": "application/json" };
  const login = await request.post("/api/auth/login", { headers: origin, data: JSON.stringify({ email: "x@example.com", password: "p".repeat(64 * 1024) }) });
  expect(login.status()).toBe(413);
  expect(((await login.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
  const author = await playwrightRequest.newContext({ baseURL: originOf() });
  try {
    await signIn(author, "policy_author");
    const big = await author.post("/api/control/factor-lists", {
      headers: origin,
      data: JSON.stringify({ yaml: `# ${"x".repeat(2 * 1024 * 1024)}`, changeNote: "" }),
    });
    expect(big.status()).toBe(413);
  } finally {
    await author.dispose();
  }
});
