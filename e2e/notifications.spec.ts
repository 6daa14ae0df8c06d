import { expect, test } from "@playwright/test";
import { ensureAccounts, originOf, signIn } from "./support/accounts";
import { startReceiver, type Receiver } from "../test/support/notify-receiver";
import { verifyWebhookSignature } from "../lib/notify/signature";
import { addChannel, deleteChannels, secretFile } from "./support/notify-channels";

/**
 * An admin sets up Slack, PagerDuty and a signed webhook on the Notifications page, each pointing
 * at a receiver on loopback, with secrets as file references. On-call sets and ends a kill
 * switch: PagerDuty gets trigger then resolve under one dedup key, Slack two messages with one
 * title, the webhook a signature its receiver verifies. Then the webhook's receiver is down for
 * 60 s and still gets the next message exactly once, every failed attempt listed on the page.
 */
const SHOTS = "e2e/output/screenshots";
const WEBHOOK_SECRET = `whsec_e2e_${Math.random().toString(36).slice(2)}`;

let chat: Receiver;
let hook: Receiver;

test.beforeAll(async ({ request }) => {
  await ensureAccounts(request);
  chat = await startReceiver();
  hook = await startReceiver();
});

test.afterAll(async () => {
  await chat?.close();
  await hook?.close();
});

const overrideKinds = ["kill_switch.set", "kill_switch.ended"];
const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

test("channels configured in the console deliver a kill switch to Slack, PagerDuty and a signed webhook, once each", async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page.request, "admin");
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/notifications");
  await expect(page.getByTestId("notifications")).toBeVisible();

  // A secret outside the namespace is refused, naming the field, and nothing is saved.
  const form = page.getByTestId("channel-form-new");
  await form.locator('input[name="name"]').fill("e2e-refused");
  await form.locator('input[name="url"]').fill(hook.url("/hook"));
  await form.locator('select[name="kind"]').selectOption("webhook");
  await form.locator('input[name="secretRef"]').fill("env:DATABASE_URL");
  await form.getByRole("button", { name: "Add channel" }).click();
  await expect(form.getByTestId("field-error-secretRef")).toContainText("server's own configuration");
  await expect(page.getByTestId("channel-e2e-refused")).toHaveCount(0);

  await addChannel(page, { name: "e2e-slack", kind: "slack", secretRef: secretFile("slack-url", chat.url("/slack/T0/B0/e2e")), kinds: overrideKinds });
  await addChannel(page, {
    name: "e2e-pagerduty",
    kind: "pagerduty",
    url: chat.url("/v2/enqueue"),
    secretRef: secretFile("pagerduty-key", "R0UTINGE2E0000000000"),
    kinds: overrideKinds,
    operations: "SEND_SMS",
  });
  await addChannel(page, {
    name: "e2e-hook",
    kind: "webhook",
    url: hook.url("/hook"),
    secretRef: secretFile("webhook-secret", WEBHOOK_SECRET),
    kinds: overrideKinds,
  });
  await expect(page.getByTestId("channel-e2e-slack").getByTestId("secret-state")).toContainText("resolves here");
  await expect(page.getByTestId("notifications")).not.toContainText("/slack/T0/B0/e2e");

  // The test button goes through the outbox and says what the receiver answered.
  await page.getByTestId("test-send-e2e-slack").getByRole("button").click();
  await expect(page.getByTestId("test-send-e2e-slack").getByTestId("test-outcome")).toContainText("delivered: HTTP 200", { timeout: 15_000 });
  expect(chat.received.filter((r) => r.path.startsWith("/slack/")).map((r) => String(r.json.text))).toEqual([
    expect.stringContaining("Test notification for e2e-slack"),
  ]);

  // On-call sets and ends a kill switch on SEND_SMS in EU.
  await signIn(page.request, "on_call");
  const headers = { origin: originOf() };
  const created = await page.request.post("/api/control/overrides", {
    headers,
    data: { kind: "routing_kill_switch", operationKey: "SEND_SMS", region: "EU", reason: "e2e: provider_A flapping, adaptive off", expiresAt: inMinutes(30) },
  });
  expect(created.status(), await created.text()).toBe(201);
  const kill = ((await created.json()) as { override: { id: string } }).override;
  const pd = () => chat.received.filter((r) => r.path === "/v2/enqueue").map((r) => r.json);
  await expect.poll(() => pd().length, { timeout: 15_000 }).toBe(1);
  const ended = await page.request.post(`/api/control/overrides/${kill.id}/end`, { headers, data: { reason: "e2e: provider_A recovered" } });
  expect(ended.status(), await ended.text()).toBe(200);
  await expect.poll(() => pd().length, { timeout: 15_000 }).toBe(2);
  expect(pd().map((p) => p.event_action)).toEqual(["trigger", "resolve"]);
  expect(pd().map((p) => p.dedup_key)).toEqual([`switchyard:override:${kill.id}`, `switchyard:override:${kill.id}`]);
  expect(pd()[0]).toMatchObject({ routing_key: "R0UTINGE2E0000000000", payload: { severity: "warning", component: "SEND_SMS", group: "EU" } });

  const slack = () => chat.received.filter((r) => r.path.startsWith("/slack/") && !String(r.json.text).includes("Test notification"));
  await expect.poll(() => slack().length, { timeout: 15_000 }).toBe(2);
  expect(slack().map((r) => String(r.json.text))).toEqual([
    expect.stringContaining("Kill switch set: SEND_SMS · EU"),
    expect.stringContaining("Kill switch ended: SEND_SMS · EU"),
  ]);

  await expect.poll(() => hook.received.length, { timeout: 15_000 }).toBe(2);
  for (const r of hook.received) {
    const verdict = verifyWebhookSignature(
      WEBHOOK_SECRET,
      { signature: r.headers["x-switchyard-signature"] as string, timestamp: r.headers["x-switchyard-timestamp"] as string },
      r.body,
    );
    expect(verdict).toEqual({ ok: true });
  }

  // The webhook's receiver goes down for 60 s: the next kill switch still reaches it, once.
  await hook.down();
  const second = await page.request.post("/api/control/overrides", {
    headers,
    data: { kind: "routing_kill_switch", operationKey: "SEND_SMS", region: "NA", reason: "e2e: NA too, while the receiver is down", expiresAt: inMinutes(30) },
  });
  expect(second.status(), await second.text()).toBe(201);
  const downAt = Date.now();
  await signIn(page.request, "admin");
  const pending = page.getByTestId("deliveries-e2e-hook").locator('[data-status="pending"]');
  await expect.poll(async () => (await page.goto("/notifications"), await pending.count()), { timeout: 20_000 }).toBe(1);
  // Down for the whole minute, with the page listing the refused attempts as they happen.
  await expect
    .poll(async () => (await page.goto("/notifications"), Number(await pending.getAttribute("data-attempts")) >= 2 && Date.now() - downAt >= 60_000), {
      timeout: 90_000,
      intervals: [5_000],
    })
    .toBe(true);
  await hook.up();
  await expect.poll(() => hook.received.length, { timeout: 30_000 }).toBe(3);
  expect(hook.received[2]!.json).toMatchObject({ kind: "kill_switch.set", region: "NA" });

  // Delivered is final: the outbox sends it no more, so three is the total.
  const delivered = page.getByTestId("deliveries-e2e-hook").locator('[data-status="delivered"][data-kind="kill_switch.set"]').first();
  await expect.poll(async () => (await page.goto("/notifications"), await pending.count()), { timeout: 15_000 }).toBe(0);
  expect(hook.received).toHaveLength(3);
  await delivered.locator("summary").click();
  await expect(delivered).toContainText("ECONNREFUSED");
  await expect(delivered).toContainText("HTTP 200");
  await page.screenshot({ path: `${SHOTS}/notifications-1440.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/notifications");
  await expect(page.getByTestId("notifications")).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/notifications-390.png`, fullPage: true });

  // End the NA kill switch and remove the channels so later specs run without them.
  await signIn(page.request, "on_call");
  const secondId = ((await second.json()) as { override: { id: string } }).override.id;
  expect((await page.request.post(`/api/control/overrides/${secondId}/end`, { headers, data: { reason: "e2e: done" } })).status()).toBe(200);
  await signIn(page.request, "admin");
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/notifications");
  await deleteChannels(page, ["e2e-slack", "e2e-pagerduty", "e2e-hook"]);
});
