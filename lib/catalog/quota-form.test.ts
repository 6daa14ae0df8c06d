import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { makeUser, refusal, seedCatalog } from "../../test/support/controlplane-fixtures";
import { catalogFormInput } from "./form-input";
import { ZProviderPatch } from "./schemas";
import { updateProvider } from "./update-provider";

/** The console edits quotas as fields, one row each, and a quota change needs a reason that the audit log keeps. */
let db: TTestDatabase;
let prisma: PrismaClient;
let admin: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  admin = await makeUser(prisma, ["admin"]);
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

function form(rows: [string, string, string, string][], extra: Record<string, string> = {}) {
  const f = new FormData();
  for (const [k, v] of Object.entries({
    key: "provider_A",
    displayName: "Provider A",
    regions: "EU, NA, APAC",
    certifications: "gdpr, soc2",
    costPerRequest: "0.0079",
    enabled: "on",
    ...extra,
  }))
    f.append(k, v);
  for (const [unit, limit, windowSeconds, reset] of rows) {
    f.append("quotaUnit", unit);
    f.append("quotaLimit", limit);
    f.append("quotaWindowSeconds", windowSeconds);
    f.append("quotaReset", reset);
  }
  return f;
}

describe("quotas as fields", () => {
  it("rows become the quota list; an empty row is dropped; a bad number is named by its row", () => {
    const input = catalogFormInput.provider(
      form([
        ["requests", "100", "1", "rolling"],
        ["tokens", "", "60", "fixed"],
        ["tokens", "50000", "60", "fixed"],
      ]),
    );
    expect(input.quotas).toEqual([
      { unit: "requests", limit: 100, windowSeconds: 1, reset: "rolling" },
      { unit: "tokens", limit: 50000, windowSeconds: 60, reset: "fixed" },
    ]);
    const bad = ZProviderPatch.safeParse(catalogFormInput.provider(form([["requests", "lots", "1", "rolling"]])));
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(["quotas", 0, "limit"]);
  });

  it("removing the last row clears the quotas; a form without the quota fieldset leaves them alone", () => {
    const cleared = form([]);
    cleared.append("quotaFields", "rows");
    expect(catalogFormInput.provider(cleared).quotas).toEqual([]);
    expect(catalogFormInput.provider(form([])).quotas).toBeUndefined();
  });

  it("a quota change from the console needs a reason, kept in the audit entry; other edits do not", async () => {
    // Only the quota field moves (the rest of the form as the provider is would be unchanged).
    const patch = ZProviderPatch.parse({ quotas: catalogFormInput.provider(form([["requests", "120", "1", "rolling"]])).quotas });
    const err = await refusal(updateProvider(prisma, admin.actor, "provider_A", patch, { requireQuotaReason: true, reason: " " }));
    expect(err.status).toBe(422);
    expect(err.fields.map((f) => f.path)).toEqual(["quotaReason"]);
    expect((await prisma.provider.findUniqueOrThrow({ where: { key: "provider_A" } })).quotas).toEqual([]);

    const r = await updateProvider(prisma, admin.actor, "provider_A", patch, { requireQuotaReason: true, reason: "contract raised to 120/s" });
    expect(r.status).toBe("applied");
    const entry = await prisma.auditEntry.findFirstOrThrow({ where: { action: "catalog.provider.update", targetId: "provider_A" }, orderBy: { seq: "desc" } });
    expect(entry.reason).toBe("contract raised to 120/s");

    const rename = ZProviderPatch.parse({ displayName: "Provider A (EU)" });
    expect((await updateProvider(prisma, admin.actor, "provider_A", rename, { requireQuotaReason: true })).status).toBe("applied");
  });
});
