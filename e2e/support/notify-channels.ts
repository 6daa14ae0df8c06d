import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, type Page } from "@playwright/test";

/** A secret as a file reference in the run's secrets directory (the server resolves `file:` references there). */
export function secretFile(name: string, value: string): string {
  const dir = process.env.E2E_SECRETS_DIR;
  if (!dir) throw new Error("E2E_SECRETS_DIR is not set: run the specs through `npm run test:e2e`");
  const file = path.join(dir, name);
  writeFileSync(file, value);
  chmodSync(file, 0o600);
  return `file:${file}`;
}

export type TChannelForm = { name: string; kind: string; url?: string; secretRef: string; kinds?: string[]; operations?: string; regions?: string };

/** Adds a channel through the Notifications page's form, as an admin would (the page must be open). */
export async function addChannel(page: Page, c: TChannelForm): Promise<void> {
  const form = page.getByTestId("channel-form-new");
  await form.locator('input[name="name"]').fill(c.name);
  await form.locator('select[name="kind"]').selectOption(c.kind);
  await form.locator('input[name="url"]').fill(c.url ?? "");
  await form.locator('input[name="secretRef"]').fill(c.secretRef);
  await form.locator('input[name="routes.operations"]').fill(c.operations ?? "");
  await form.locator('input[name="routes.regions"]').fill(c.regions ?? "");
  for (const k of c.kinds ?? []) await form.locator(`input[name="routes.kinds"][value="${k}"]`).check();
  await form.getByRole("button", { name: "Add channel" }).click();
  await expect(form.getByTestId("channel-outcome")).toHaveAttribute("data-status", "saved");
  await expect(page.getByTestId(`channel-${c.name}`)).toBeVisible();
  // The form keeps its values after a save: clear the ticks for the next channel.
  for (const k of c.kinds ?? []) await form.locator(`input[name="routes.kinds"][value="${k}"]`).uncheck();
}

/** Deletes channels on the Notifications page (the page must be open, as an admin), so later specs run without them. */
export async function deleteChannels(page: Page, names: string[]): Promise<void> {
  page.on("dialog", (d) => void d.accept());
  for (const name of names) {
    await page.getByTestId(`delete-${name}`).getByRole("button").click();
    await expect(page.getByTestId(`channel-${name}`)).toHaveCount(0);
  }
}
