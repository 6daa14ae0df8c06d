import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, request as playwrightRequest, test, type APIRequestContext, type APIResponse } from "@playwright/test";
import { ensureAccounts, originOf, signIn } from "./support/accounts";

/**
 * docs/errors.md, against the production server: one malformed (400) and one semantically
 * refused (422) request to each kind of edge, and the one error shape in every answer.
 */
const auth: Record<string, string> = process.env.SWITCHYARD_API_KEY ? { authorization: `Bearer ${process.env.SWITCHYARD_API_KEY}` } : {};

async function expectContract(res: APIResponse, status: number, code: string, path: string): Promise<void> {
  const text = await res.text();
  expect(res.status(), text).toBe(status);
  const body = JSON.parse(text) as { error: { code: string; message: string; fields: { path: string; message: string }[] } };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(Object.keys(body.error).sort()).toEqual(["code", "fields", "message"]);
  expect(body.error.code).toBe(code);
  expect(body.error.fields.map((f) => f.path)).toContain(path);
}

let onCall: APIRequestContext;

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
  onCall = await playwrightRequest.newContext({ baseURL: originOf() });
  await signIn(onCall, "on_call");
});

test.afterAll(async () => {
  await onCall?.dispose();
});

test("data plane, execute, control plane, console and sign-in refuse in one shape: 400 malformed, 422 invalid", async ({ request }) => {
  await expectContract(
    await request.post("/api/v1/decide", { headers: auth, data: { operation: "SEND_SMS", region: 7, requestId: "e2e-contract-1" } }),
    400,
    "malformed",
    "region",
  );
  await expectContract(
    await request.post("/api/v1/decide", { headers: auth, data: { operation: "SEND_SMS", region: "MARS", requestId: "e2e-contract-2" } }),
    422,
    "invalid",
    "region",
  );

  const outcome = {
    type: "provider_call",
    decisionId: "0190a5f0-0000-7000-8000-000000000001",
    provider: "provider_A",
    status: "success",
    latencyMs: 5,
    retryCount: 0,
  };
  await expectContract(await request.post("/api/v1/outcomes", { headers: auth, data: { ...outcome, latencyMs: "fast" } }), 400, "malformed", "latencyMs");
  await expectContract(await request.post("/api/v1/outcomes", { headers: auth, data: { ...outcome, provider: "provider_Z" } }), 422, "invalid", "provider");

  await expectContract(await request.post("/api/v1/execute/SEND_SMS", { headers: auth, data: { input: {} } }), 400, "malformed", "region");
  await expectContract(
    await request.post("/api/v1/execute/NO_SUCH_OPERATION", { headers: auth, data: { region: "EU", input: { to: "1" } } }),
    422,
    "invalid",
    "operation",
  );

  const origin = { origin: originOf() };
  await expectContract(
    await onCall.post("/api/control/overrides", { headers: origin, data: { kind: "routing_kill_switch", operationKey: "SEND_SMS" } }),
    400,
    "malformed",
    "reason",
  );
  await expectContract(
    await onCall.post("/api/control/overrides", {
      headers: origin,
      data: { kind: "routing_kill_switch", operationKey: "NO_SUCH_OPERATION", reason: "contract walk" },
    }),
    422,
    "invalid",
    "operationKey",
  );

  await expectContract(await onCall.get("/api/console/overview?operation=SEND_SMS"), 400, "malformed", "region");
  await expectContract(await onCall.get("/api/console/what-if?version=00000000-0000-4000-8000-000000000000"), 422, "invalid", "version");

  await expectContract(await request.post("/api/auth/login", { headers: origin, data: { email: "someone@switchyard.test" } }), 400, "malformed", "password");
  const wrong = await request.post("/api/auth/login", { headers: origin, data: { email: "nobody@switchyard.test", password: "not it" } });
  expect([wrong.status(), await wrong.json()]).toEqual([401, { error: { code: "invalid_credentials", message: expect.any(String) } }]);
});

test("a server action's refusal reaches its form as message and fields", async ({ page }) => {
  await signIn(page.request, "admin");
  await page.goto("/governance/access");
  const form = page.getByTestId("create-api-key");
  await form.getByPlaceholder("service name").fill("contract-walk");
  await form.getByPlaceholder("operations (blank: all)").fill("NO_SUCH_OPERATION");
  await form.getByRole("button", { name: "Create key" }).click();
  await expect(form.getByRole("alert")).toContainText('operationKeys.0: unknown operation "NO_SUCH_OPERATION"');
});

/** Every console server action in the build: its id, name and a page whose worker runs it. */
function consoleActions(): { id: string; name: string; page: string }[] {
  const manifest = JSON.parse(readFileSync(path.join(process.cwd(), ".next", "server", "server-reference-manifest.json"), "utf8")) as {
    node: Record<string, { workers: Record<string, unknown>; exportedName?: string; filename?: string }>;
  };
  return Object.entries(manifest.node)
    .filter(([, a]) => (a.filename ?? "").includes("(console)"))
    .map(([id, a]) => {
      const worker = Object.keys(a.workers).find((w) => w.includes("(console)")) ?? "";
      const page =
        worker
          .replace(/^app/, "")
          .replace(/\/\([^)]+\)/g, "")
          .replace(/\/page$/, "") || "/";
      return { id, name: a.exportedName ?? id, page };
    });
}

test("a malformed same-origin call to every console server action answers the error contract, never 500", async ({ request }) => {
  await signIn(request, "admin");
  const actions = consoleActions();
  expect(actions.length).toBeGreaterThanOrEqual(14);
  let malformed = 0;
  for (const a of actions) {
    // What a script, not the page's form, can send: arguments of the wrong kind, encoded as React does.
    for (const body of ["[1,2]", '["$undefined",{"name":"x"}]', "[]"]) {
      const res = await request.post(a.page, { headers: { origin: originOf(), "next-action": a.id, "content-type": "text/plain;charset=UTF-8" }, data: body });
      const text = await res.text();
      expect([a.name, body, res.status()], text.slice(0, 300)).toEqual([a.name, body, 200]);
      // The refusal as a value, in the contract's shape: malformed, or forbidden first where an admin lacks the permission.
      expect(text, `${a.name} ${body}`).toContain('"ok":false');
      expect(text, `${a.name} ${body}`).toMatch(/"code":"(malformed|forbidden)"/);
      if (text.includes('"code":"malformed"')) malformed++;
    }
  }
  expect(malformed).toBeGreaterThanOrEqual(30);
});
