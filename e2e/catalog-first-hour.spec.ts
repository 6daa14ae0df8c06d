import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, request as playwrightRequest, test, type APIRequestContext } from "@playwright/test";
import pg from "pg";
import { withDatabase } from "../lib/db/database-url";
import { freePort } from "../test/support/free-port";
import { waitForHealth } from "../test/support/wait-for-health";
import { startMockProvider, type TMockProvider } from "../test/support/mock-provider";

/**
 * The "first hour": a production-mode start on an EMPTY database (no demo data), the admin
 * from the environment describes the team's own SMS providers in the console, a policy author,
 * an approver and compliance put a factor list live, the admin creates a scoped key, and a decide
 * in EU routes only to the GDPR-certified provider while an execute call reaches the (mock)
 * provider. The runner's server is seeded with the demo world, so this spec starts its own
 * server on its own database.
 */
const require = createRequire(import.meta.url);
const ADMIN = { email: "first-admin@team.test", password: `pw-${randomBytes(12).toString("hex")}` };
const PEOPLE = {
  author: { email: "author@team.test", roles: ["policy_author"] },
  approver: { email: "approver@team.test", roles: ["approver"] },
  compliance: { email: "compliance@team.test", roles: ["compliance"] },
} as const;

let server: ChildProcess | null = null;
let base = "";
let dbName = "";
let tmp = "";
let mock: TMockProvider;
const contexts: APIRequestContext[] = [];

function adminDbUrl(): string {
  const url = process.env.E2E_DATABASE_URL;
  if (!url) throw new Error("E2E_DATABASE_URL is not set: run the specs through `npm run test:e2e`");
  return url;
}

async function sql(query: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminDbUrl() });
  await c.connect();
  try {
    await c.query(query);
  } finally {
    await c.end();
  }
}

async function signedIn(email: string, password: string): Promise<APIRequestContext> {
  const ctx = await playwrightRequest.newContext({ baseURL: base, extraHTTPHeaders: { origin: base } });
  contexts.push(ctx);
  const res = await ctx.post("/api/auth/login", { data: { email, password } });
  expect(res.status(), await res.text()).toBe(200);
  return ctx;
}

async function eventually<T>(fn: () => Promise<T | null>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  mock = await startMockProvider({ kind: "http_json" });
  tmp = await mkdtemp(path.join(tmpdir(), "sy-first-hour-"));
  dbName = `sy_e2e_first_${randomBytes(4).toString("hex")}`;
  await sql(`create database ${pg.escapeIdentifier(dbName)}`);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    DATABASE_URL: withDatabase(adminDbUrl(), dbName),
    SWITCHYARD_ADMIN_EMAIL: ADMIN.email,
    SWITCHYARD_ADMIN_PASSWORD: ADMIN.password,
    // The mock provider listens on plain http on loopback: allowed only when asked for.
    SWITCHYARD_ALLOW_LOOPBACK_PROVIDERS: "1",
    SPOOL_DIR: path.join(tmp, "spool"),
    SWITCHYARD_AUDIT_CHECKPOINT_DIR: path.join(tmp, "audit"),
    NEXT_TELEMETRY_DISABLED: "1",
  };
  // A production start is empty by default, and decide must work with the scoped key alone.
  delete env.SWITCHYARD_SEED_DEMO;
  delete env.SWITCHYARD_API_KEY;
  server = spawn(process.execPath, [require.resolve("tsx/cli"), "server.ts"], { stdio: ["ignore", "pipe", "pipe"], env });
  server.stdout!.on("data", (b: Buffer) => process.stdout.write(`[first-hour server] ${b.toString("utf8")}`));
  server.stderr!.on("data", (b: Buffer) => process.stderr.write(`[first-hour server] ${b.toString("utf8")}`));
  await waitForHealth(base, server, 120_000);
});

test.afterAll(async () => {
  for (const c of contexts) await c.dispose().catch(() => {});
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server!.once("exit", r));
    server.kill("SIGTERM");
    await exited;
  }
  await mock?.close();
  if (dbName) await sql(`drop database if exists ${pg.escapeIdentifier(dbName)} with (force)`).catch(() => {});
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test("first hour on an empty production database: own providers to a compliant decide and an execute call", async ({ page }) => {
  test.setTimeout(180_000);

  // The admin from the environment signs in and finds an empty instance with the walk-through.
  await page.goto(`${base}/login`);
  await page.locator('input[name="email"]').fill(ADMIN.email);
  await page.locator('input[name="password"]').fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("first-steps")).toBeVisible();
  await expect(page.getByTestId("first-step-providers")).toHaveAttribute("data-done", "0");
  await expect(page.getByTestId("first-decide-curl")).toContainText("/api/v1/decide");
  await page.screenshot({ path: "e2e/output/screenshots/first-hour-empty.png", fullPage: true });

  // Regions and certifications are declared first: providers may name only those.
  await page.goto(`${base}/catalog`);
  const certification = page.getByTestId("certification-form");
  for (const name of ["gdpr", "soc2", "gpdr"]) {
    await certification.locator('input[name="name"]').fill(name);
    await certification.getByRole("button", { name: "Save certification" }).click();
    await expect(page.getByTestId(`certification-row-${name}`)).toBeVisible();
  }
  const region = page.getByTestId("region-form");
  for (const [name, requires] of [
    ["EU", "gdpr"],
    ["NA", ""],
    ["EUR", "gpdr"],
  ] as const) {
    await region.locator('input[name="name"]').fill(name);
    await region.locator('input[name="requires"]').fill(requires);
    await region.getByRole("button", { name: "Save region" }).click();
    await expect(page.getByTestId(`region-row-${name}`)).toBeVisible();
  }
  await expect(page.getByTestId("region-row-EU")).toContainText("gdpr");
  // Two misspellings declared by mistake go again: the certification only once no region requires it.
  await page.getByTestId("delete-certification-gpdr").getByRole("button", { name: "Delete" }).click();
  await expect(page.getByTestId("delete-certification-gpdr").getByTestId("form-problem")).toContainText("certification gpdr is still named by region EUR");
  await page.getByTestId("delete-region-EUR").getByRole("button", { name: "Delete" }).click();
  await expect(page.getByTestId("region-row-EUR")).toHaveCount(0);
  await page.getByTestId("delete-certification-gpdr").getByRole("button", { name: "Delete" }).click();
  await expect(page.getByTestId("certification-row-gpdr")).toHaveCount(0);

  // Two SMS providers through the console form; a refusal names its field first.
  const newProvider = page.getByTestId("provider-form-new");
  const fillProvider = async (p: { key: string; name: string; regions: string; certs: string; cost: string }) => {
    await newProvider.locator('input[name="key"]').fill(p.key);
    await newProvider.locator('input[name="displayName"]').fill(p.name);
    await newProvider.locator('input[name="regions"]').fill(p.regions);
    await newProvider.locator('input[name="certifications"]').fill(p.certs);
    await newProvider.locator('input[name="costPerRequest"]').fill(p.cost);
    await newProvider.getByRole("button", { name: "Add provider" }).click();
  };
  await fillProvider({ key: "sms_certified", name: "Certified SMS", regions: "EU, na", certs: "gdpr, soc2", cost: "0.0079" });
  await expect(newProvider.getByTestId("field-error-regions")).toBeVisible();
  await expect(page.getByTestId("provider-row-sms_certified")).toHaveCount(0);
  // A misspelt region is refused with the known ones, not silently a new region.
  await fillProvider({ key: "sms_certified", name: "Certified SMS", regions: "EU, MARS", certs: "gdpr, soc2", cost: "0.0079" });
  await expect(newProvider.getByTestId("field-error-regions")).toContainText('unknown region "MARS"; known regions: EU, NA');
  await expect(page.getByTestId("provider-row-sms_certified")).toHaveCount(0);
  await fillProvider({ key: "sms_certified", name: "Certified SMS", regions: "EU, NA", certs: "gdpr, soc2", cost: "0.0079" });
  await expect(page.getByTestId("provider-row-sms_certified")).toBeVisible();
  await fillProvider({ key: "sms_budget", name: "Budget SMS", regions: "EU, NA", certs: "soc2", cost: "0.0062" });
  await expect(page.getByTestId("provider-row-sms_budget")).toBeVisible();

  // The http-json adapter of the certified provider points at the mock provider.
  await page.getByText("Edit sms_certified and its adapter").click();
  const adapter = page.getByTestId("adapter-form-sms_certified");
  await adapter.locator('input[name="baseUrl"]').fill(mock.url);
  await adapter.locator('input[name="options"]').fill('{"path": "/send"}');
  await adapter.getByRole("button", { name: "Save adapter" }).click();
  await expect(adapter.getByTestId("form-outcome")).toHaveAttribute("data-status", "applied");

  // SEND_SMS: EU requires gdpr.
  const newOperation = page.getByTestId("operation-form-new");
  await newOperation.locator('input[name="key"]').fill("SEND_SMS");
  await newOperation.locator('input[name="description"]').fill("Verification codes");
  await newOperation.locator('input[name="regionRequirements"]').fill("EU: gdpr");
  await newOperation.getByRole("button", { name: "Add operation" }).click();
  await expect(page.getByTestId("operation-row-SEND_SMS")).toContainText("EU: gdpr");
  await page.screenshot({ path: "e2e/output/screenshots/first-hour-catalog.png", fullPage: true });

  // The admin adds the people who write and review policy.
  const admin = await signedIn(ADMIN.email, ADMIN.password);
  const password = `pw-${randomBytes(12).toString("hex")}`;
  for (const p of Object.values(PEOPLE)) {
    const res = await admin.post("/api/control/users", { data: { email: p.email, name: p.email.split("@")[0], password, roles: p.roles } });
    expect(res.status(), await res.text()).toBe(201);
  }

  // The policy author writes the factor list (the budget provider first, so EU proves the gate).
  const author = await signedIn(PEOPLE.author.email, password);
  const yaml =
    "operation: SEND_SMS\nproviders: [sms_budget, sms_certified]\ngates: [supports_region, compliance_allowed, credentials_valid, circuit_breaker_closed]\n";
  const created = await author.post("/api/control/factor-lists", { data: { yaml, changeNote: "first policy" } });
  expect(created.status(), await created.text()).toBe(201);
  const versionId = ((await created.json()) as { version: { id: string } }).version.id;
  expect((await author.post(`/api/control/factor-lists/${versionId}/submit`, { data: {} })).status()).toBe(200);

  // An approver and compliance approve; the approver activates.
  const approver = await signedIn(PEOPLE.approver.email, password);
  const compliance = await signedIn(PEOPLE.compliance.email, password);
  expect((await approver.post(`/api/control/factor-lists/${versionId}/approve`, { data: { comment: "ok" } })).status()).toBe(200);
  expect((await compliance.post(`/api/control/factor-lists/${versionId}/approve-compliance`, { data: { comment: "EU needs gdpr: ok" } })).status()).toBe(200);
  const activated = await approver.post(`/api/control/factor-lists/${versionId}/activate`, { data: {} });
  expect(activated.status(), await activated.text()).toBe(200);

  // The admin creates a scoped key (decide for the service, control for the CLI).
  const keyRes = await admin.post("/api/control/api-keys", { data: { name: "sms-service", scopes: ["decide", "control"] } });
  expect(keyRes.status(), await keyRes.text()).toBe(201);
  const key = ((await keyRes.json()) as { key: string }).key;
  const api = await playwrightRequest.newContext({ baseURL: base, extraHTTPHeaders: { authorization: `Bearer ${key}` } });
  contexts.push(api);

  // Decide in EU routes only to the certified provider; the budget one fails the compliance gate, saying why.
  type TDecision = { selected: string | null; candidates: { provider: string; gates: { gate: string; passed: boolean; detail: string }[] }[] };
  const first = await eventually(async () => {
    const r = await api.post("/api/v1/decide", { data: { operation: "SEND_SMS", region: "EU", requestId: "first-hour-0", explain: "full" } });
    return r.status() === 200 ? ((await r.json()) as TDecision) : null;
  }, "the activated policy to reach the data plane");
  const selected = [first.selected];
  for (let i = 1; i < 15; i++) {
    const r = await api.post("/api/v1/decide", { data: { operation: "SEND_SMS", region: "EU", requestId: `first-hour-${i}` } });
    expect(r.status()).toBe(200);
    selected.push(((await r.json()) as TDecision).selected);
  }
  expect(new Set(selected)).toEqual(new Set(["sms_certified"]));
  const budgetGate = first.candidates.find((c) => c.provider === "sms_budget")!.gates.find((g) => g.gate === "compliance_allowed")!;
  expect(budgetGate).toMatchObject({ passed: false, detail: "provider lacks required compliance: gdpr (EU requires gdpr; provider holds soc2)" });

  // An execute call reaches the mock provider through the adapter.
  const executed = await eventually(async () => {
    const r = await api.post("/api/v1/execute/SEND_SMS", { data: { region: "EU", input: { to: "+491700000000", text: "Your code is 123456" } } });
    return r.status() === 200 ? ((await r.json()) as { provider: string }) : null;
  }, "execute mode to load the adapter");
  expect(executed.provider).toBe("sms_certified");
  expect(mock.requests.some((r) => r.path === "/send" && (r.body as { text?: string }).text === "Your code is 123456")).toBe(true);

  // The CLI exports with the control-scoped key; applying that bundle back is "no changes".
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [require.resolve("tsx/cli"), "scripts/switchyard.ts", ...args], {
      encoding: "utf8",
      env: { ...process.env, SWITCHYARD_URL: base, SWITCHYARD_CONTROL_KEY: key },
    });
  const exported = cli(["export"]);
  expect(exported.status, exported.stderr).toBe(0);
  expect(exported.stdout).toContain("key: sms_certified");
  const file = path.join(tmp, "bundle.yaml");
  await writeFile(file, exported.stdout);
  const dry = cli(["apply", "-f", file, "--dry-run"]);
  expect(dry.status, dry.stderr).toBe(0);
  expect(dry.stdout.trim()).toBe("dry run: no changes");

  // The walk-through is complete.
  await page.goto(`${base}/catalog`);
  await expect(page.getByTestId("first-steps")).toHaveCount(0);
  await expect(page.getByTestId("provider-row-sms_certified")).toContainText("SEND_SMS v1 (active)");
});
