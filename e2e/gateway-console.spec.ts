import { randomBytes } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, test, type APIResponse } from "@playwright/test";
import { createPrisma, type PrismaClient } from "../lib/db/client";
import { notifyConfigChange } from "../lib/db/notify";
import { seedLlmChat } from "../lib/demo/seed-demo";
import { startMockProvider, type TMockProvider } from "../test/support/mock-provider";
import { ensureAccounts, signIn } from "./support/accounts";

/**
 * On-call reads execute mode in the console: LLM_CHAT is seeded through the project's own seed
 * (the e2e server is not in demo mode) with llm_openai pointing at a local mock and its key in a
 * mounted-secret file; a per-minute cost cap far below one call's cost makes the second call
 * breach it. The Gateway page then shows the limits, the spend over the cap, the adapter with its
 * credential reference (never the key) and the budget_breach event; a viewer sees all of it.
 */
const OPERATION = "LLM_CHAT";
const CAP_PER_MINUTE = 0.000001;

let prisma: PrismaClient;
let mock: TMockProvider;
let secretDir: string;
const secret = `sk-e2e-${randomBytes(12).toString("hex")}`;

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
  const url = process.env.E2E_DATABASE_URL;
  if (!url) throw new Error("E2E_DATABASE_URL is not set: run through npm run test:e2e");
  prisma = createPrisma(url);
  mock = await startMockProvider({ kind: "openai" });
  // The server reads credentials only from its secrets directory, where this key is bound to 127.0.0.1 (scripts/e2e.ts).
  secretDir = process.env.E2E_SECRETS_DIR ?? "";
  if (!secretDir) throw new Error("E2E_SECRETS_DIR is not set: run through npm run test:e2e");
  const keyFile = path.join(secretDir, "openai-key");
  await writeFile(keyFile, secret);
  await seedLlmChat(prisma);
  await prisma.providerAdapter.update({ where: { providerKey: "llm_openai" }, data: { baseUrl: `${mock.url}/v1`, credentialRef: `file:${keyFile}` } });
  await prisma.gatewayOperation.update({ where: { operationKey: OPERATION }, data: { costCapPerMinute: CAP_PER_MINUTE, costCapPerDay: 100 } });
  await notifyConfigChange(prisma, { kind: "policy", operationKey: OPERATION });
});

test.afterAll(async () => {
  await prisma.gatewayOperation.update({ where: { operationKey: OPERATION }, data: { costCapPerMinute: null, costCapPerDay: null } }).catch(() => {});
  await notifyConfigChange(prisma, { kind: "policy", operationKey: OPERATION }).catch(() => {});
  await prisma.$disconnect();
  await mock.close();
  await rm(path.join(secretDir, "openai-key"), { force: true });
});

test("on-call reads execute limits, spend over the cap, adapters without secrets and the budget breach", async ({ page }) => {
  const apiKey = process.env.SWITCHYARD_API_KEY;
  if (!apiKey) throw new Error("SWITCHYARD_API_KEY is not set: run through npm run test:e2e");
  const execute = () =>
    page.request.post(`/api/v1/execute/${OPERATION}`, {
      headers: { authorization: `Bearer ${apiKey}` },
      data: { region: "EU", input: { messages: [{ role: "user", content: "Hello" }], maxTokens: 16 } },
    });

  // The gateway reloads its configuration on the notice; the first call within the cap succeeds.
  await expect.poll(async () => (await execute()).status(), { timeout: 30_000 }).toBe(200);
  expect(mock.requests.at(-1)?.headers.authorization).toBe(`Bearer ${secret}`);
  // Now over the cap: the fallback policy (degraded message) answers without calling a provider.
  // Polled, since a call made just after a minute boundary starts a fresh minute and succeeds.
  const last: { answer?: APIResponse } = {};
  await expect
    .poll(
      async () => {
        last.answer = await execute();
        return last.answer.status();
      },
      { timeout: 20_000 },
    )
    .toBe(503);
  expect(last.answer?.headers()["retry-after"]).toBeTruthy();

  await signIn(page.request, "on_call");
  await page.goto("/");
  await page.getByRole("link", { name: "Gateway" }).click();
  await expect(page).toHaveURL(/\/gateway$/);
  const row = page.getByTestId(`gateway-op-${OPERATION}`);
  await expect(row).toContainText("llm_openai");
  await expect(row).toContainText("60.0 s");
  await expect(row.getByTestId("gateway-fallback-policy")).toContainText("use_secondary_then_degraded_message");
  await expect(row.getByTestId("gateway-cap-minute")).toContainText(/ of \$0\.0000010$/);
  await expect(row.getByTestId("gateway-retry-budget")).toContainText("20%");
  await expect(page.getByTestId("gateway-instance")).toContainText("queued jobs");

  const adapter = page.getByTestId("gateway-adapter-llm_openai");
  await expect(adapter).toContainText("openai_chat");
  await expect(adapter).toContainText("gpt-4o-mini");
  await expect(adapter).toContainText(new URL(mock.url).host);
  await expect(adapter.getByTestId("gateway-credential")).toContainText(`file:${secretDir}`);
  await expect(adapter.getByTestId("gateway-credential")).toContainText("set");
  await expect(page.getByTestId("gateway-adapter-llm_anthropic").getByTestId("gateway-credential")).toContainText("env:ANTHROPIC_API_KEY");

  // The breach event is written after the answer: the page's live refresh brings it in.
  await expect(page.getByTestId("gateway-events")).toContainText("cost_cap_minute", { timeout: 15_000 });
  await expect(page.getByTestId("gateway-events")).toContainText(OPERATION);
  expect(await page.content()).not.toContain(secret);
  await page.screenshot({ path: "e2e/output/screenshots/gateway.png", fullPage: true });

  // The same read model over the console route, and for the least-privileged role.
  await page.context().clearCookies();
  await signIn(page.request, "viewer");
  const res = await page.request.get("/api/console/gateway");
  expect(res.status()).toBe(200);
  const body = await res.text();
  expect(body).not.toContain(secret);
  expect(body).toContain("budget_breach");
  await page.goto("/gateway");
  await expect(page.getByTestId("gateway-adapters")).toBeVisible();
});
