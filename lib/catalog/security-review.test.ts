import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { verifyAuditChain } from "../audit/verify-audit-chain";
import { parseInput } from "../errors/api-errors";
import { makeUser, refusal, seedCatalog } from "../../test/support/controlplane-fixtures";
import { disableUser } from "../controlplane/users/disable-user";
import { enableUser } from "../controlplane/users/enable-user";
import { setUserRoles } from "../controlplane/users/set-user-roles";
import { approveCatalogChange } from "./approve-catalog-change";
import { createProvider } from "./create-provider";
import { exportBundle } from "./export-bundle";
import { getCatalog } from "./get-catalog";
import { putAdapter } from "./put-adapter";
import { ZAdapter, ZProvider } from "./schemas";
import { updateProvider } from "./update-provider";

let db: TTestDatabase;
let prisma: PrismaClient;
let admin: Awaited<ReturnType<typeof makeUser>>;
let reviewer: Awaited<ReturnType<typeof makeUser>>;

const SMS = { key: "sms_sec", displayName: "SMS", regions: ["EU"], credentialRef: "env:SWITCHYARD_SECRET_SMS" };
const ADAPTER = { kind: "http_json", baseUrl: "https://sms.example/v1", options: { path: "/send", headers: { authorization: "Bearer {{credential}}" } } };

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

const lastAudit = (action: string) => prisma.auditEntry.findFirstOrThrow({ where: { action }, orderBy: { seq: "desc" } });

describe("credential references stay in the secrets namespace", () => {
  it("refuses the server's own configuration and /proc with 422 naming credentialRef, writing nothing", async () => {
    await createProvider(prisma, admin.actor, parseInput(ZProvider, SMS));
    for (const ref of [
      "env:DATABASE_URL",
      "env:SWITCHYARD_AUDIT_KEY",
      "env:SWITCHYARD_ADMIN_PASSWORD",
      "file:/proc/self/environ",
      "file:/run/secrets/../../proc/self/environ",
    ]) {
      const err = await refusal(updateProvider(prisma, admin.actor, "sms_sec", { credentialRef: ref }));
      expect([err.status, err.code, err.fields.map((f) => f.path)], ref).toEqual([422, "invalid", ["credentialRef"]]);
      const created = await refusal(createProvider(prisma, admin.actor, parseInput(ZProvider, { ...SMS, key: "other", credentialRef: ref })));
      expect(created.status).toBe(422);
    }
    expect((await prisma.provider.findUniqueOrThrow({ where: { key: "sms_sec" } })).credentialRef).toBe("env:SWITCHYARD_SECRET_SMS");
    expect(await prisma.provider.count({ where: { key: "other" } })).toBe(0);
  });

  it("refuses a literal secret in an adapter header with 422 naming the header", async () => {
    for (const headers of [
      { authorization: "Bearer sk_live_4eC39HqLyjWDarjtT1zdp7dc" },
      { "x-api-key": "abc123secret" },
      { "x-custom": "xoxb-1234567890-abcdefghij" },
    ]) {
      const err = await refusal(putAdapter(prisma, admin.actor, "sms_sec", parseInput(ZAdapter, { ...ADAPTER, options: { headers } })));
      expect([err.status, err.fields.map((f) => f.path)]).toEqual([422, [`options.headers.${Object.keys(headers)[0]}`]]);
    }
    expect(await prisma.providerAdapter.count({ where: { providerKey: "sms_sec" } })).toBe(0);
  });
});

describe("security-class changes take a second person", () => {
  it("with nobody else to review, an admin's adapter applies at once and the audit entry says single_reviewer", async () => {
    expect((await putAdapter(prisma, admin.actor, "sms_sec", parseInput(ZAdapter, ADAPTER))).status).toBe("applied");
    expect((await lastAudit("catalog.adapter.put")).after).toMatchObject({ baseUrl: "https://sms.example/v1", single_reviewer: true });
  });

  it("once someone else can review, a new base URL or credential waits; the requester cannot approve; approval applies with before/after", async () => {
    const compliance = await makeUser(prisma, ["compliance"]);
    reviewer = compliance;
    const moved = await putAdapter(prisma, admin.actor, "sms_sec", parseInput(ZAdapter, { ...ADAPTER, baseUrl: "https://collector.example/v1" }));
    expect(moved.status).toBe("pending");
    const cred = await updateProvider(prisma, admin.actor, "sms_sec", { credentialRef: "env:SWITCHYARD_SECRET_OTHER" });
    expect(cred.status).toBe("pending");
    expect((await prisma.providerAdapter.findUniqueOrThrow({ where: { providerKey: "sms_sec" } })).baseUrl).toBe("https://sms.example/v1");
    expect((await prisma.provider.findUniqueOrThrow({ where: { key: "sms_sec" } })).credentialRef).toBe("env:SWITCHYARD_SECRET_SMS");
    if (moved.status !== "pending" || cred.status !== "pending") throw new Error("expected held changes");
    expect(moved.change.reasons).toEqual(["base URL https://sms.example/v1 → https://collector.example/v1; sends env:SWITCHYARD_SECRET_SMS"]);
    expect(cred.change.reasons).toEqual(["credential reference env:SWITCHYARD_SECRET_SMS → env:SWITCHYARD_SECRET_OTHER"]);
    expect((await refusal(approveCatalogChange(prisma, admin.actor, moved.change.id, ""))).code).toBe("four_eyes");

    // A timeout is not security-class: it applies at once even now.
    expect((await putAdapter(prisma, admin.actor, "sms_sec", parseInput(ZAdapter, { ...ADAPTER, timeoutMs: 5000 }))).status).toBe("applied");
    await approveCatalogChange(prisma, compliance.actor, moved.change.id, "new SMS endpoint: ok");
    const row = await prisma.providerAdapter.findUniqueOrThrow({ where: { providerKey: "sms_sec" } });
    expect([row.baseUrl, row.timeoutMs]).toEqual(["https://collector.example/v1", 30_000]);
    const audit = await lastAudit("catalog.adapter.put");
    expect(audit.before).toMatchObject({ baseUrl: "https://sms.example/v1" });
    expect(audit.after).toMatchObject({ baseUrl: "https://collector.example/v1", approvedChange: moved.change.id });
    expect(audit.actorId).toBe(compliance.user.id);
    expect((await verifyAuditChain(prisma)).ok).toBe(true);
  });

  it("disabling or demoting the other reviewer does not let an admin act alone again", async () => {
    const moveTo = (baseUrl: string) => putAdapter(prisma, admin.actor, "sms_sec", parseInput(ZAdapter, { ...ADAPTER, baseUrl }));
    await disableUser(prisma, admin.actor, reviewer.user.id, {});
    expect((await moveTo("https://exfil.example/a")).status).toBe("pending");
    await enableUser(prisma, admin.actor, reviewer.user.id, null);
    await setUserRoles(prisma, admin.actor, reviewer.user.id, { roles: ["viewer"] });
    expect((await moveTo("https://exfil.example/b")).status).toBe("pending");
    expect((await prisma.providerAdapter.findUniqueOrThrow({ where: { providerKey: "sms_sec" } })).baseUrl).toBe("https://collector.example/v1");
  });

  it("a header stored with a literal secret before this rule is shown as [redacted] everywhere", async () => {
    await prisma.providerAdapter.update({
      where: { providerKey: "sms_sec" },
      data: { options: { headers: { authorization: "Bearer legacy-LITERAL-secret" } } },
    });
    const shown = JSON.stringify([await getCatalog(prisma), await exportBundle(prisma)]);
    expect(shown).not.toContain("legacy-LITERAL-secret");
    expect(shown).toContain("[redacted]");
  });
});
