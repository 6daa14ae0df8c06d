import { expect, type Browser, type Page } from "@playwright/test";
import type { PrismaClient } from "../../lib/db/client";
import { originOf, signIn, type TE2eRole } from "./accounts";

/** Signs the page's context in as `role`, dropping the previous session. */
export async function as(page: Page, role: TE2eRole): Promise<void> {
  await page.context().clearCookies();
  await signIn(page.request, role);
}

/**
 * The operation's active factor list with short metric windows and `timings` (a YAML tail with
 * safety, breaker and hysteresis settings) in place of its own, taken live through governance
 * (author drafts and submits, approver approves and activates), so outage specs finish in minutes.
 * `drop` removes further top-level lines the tail redefines.
 */
export async function activateShortTimings(page: Page, o: { operation: string; timings: string; note: string; drop?: string[] }): Promise<void> {
  await as(page, "policy_author");
  const active = await page.request.get(`/api/control/factor-lists?operation=${o.operation}&status=active`);
  const activeId = ((await active.json()) as { versions: { id: string }[] }).versions[0]?.id;
  let yaml = (await (await page.request.get(`/api/control/factor-lists/${activeId}/yaml`)).text()).replace(/^safety:\n(?: {2}.*\n)+/m, "");
  for (const key of o.drop ?? []) yaml = yaml.replace(new RegExp(`^${key}: .*\\n`, "m"), "");
  const short = `${yaml
    .replace(/^refresh_interval_seconds: .*$/m, "refresh_interval_seconds: 2")
    .replace(/^metric_window_minutes: .*$/m, "metric_window_minutes: 1")
    .replace(/^min_sample_size: .*$/m, "min_sample_size: 20")
    .trimEnd()}\n${o.timings}`;
  const headers = { origin: originOf() };
  const created = await page.request.post("/api/control/factor-lists", { headers, data: { yaml: short, changeNote: o.note } });
  expect(created.status(), await created.text()).toBe(201);
  const id = ((await created.json()) as { version: { id: string } }).version.id;
  expect((await page.request.post(`/api/control/factor-lists/${id}/submit`, { headers })).status()).toBe(200);
  await as(page, "approver");
  const approved = await page.request.post(`/api/control/factor-lists/${id}/approve`, { headers, data: { comment: "e2e" } });
  expect(approved.status(), await approved.text()).toBe(200);
  const activated = await page.request.post(`/api/control/factor-lists/${id}/activate`, { headers, data: {} });
  expect(activated.status(), await activated.text()).toBe(200);
}

/** Puts version 1 (Listing 1) back for the specs that follow; a rollback needs no review. */
export async function restoreFirstVersion(browser: Browser, prisma: PrismaClient, operation: string, reason: string): Promise<void> {
  const page = await browser.newPage();
  await as(page, "approver");
  const v1 = await prisma.factorListVersion.findFirst({ where: { operationKey: operation, version: 1 } });
  if (v1) await page.request.post(`/api/control/factor-lists/${v1.id}/rollback`, { headers: { origin: originOf() }, data: { reason } });
  await page.close();
}
