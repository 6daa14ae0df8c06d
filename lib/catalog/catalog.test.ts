import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { verifyAuditChain } from "../audit/verify-audit-chain";
import { createFactorListDraft } from "../controlplane/factor-lists/create-factor-list-draft";
import { parseInput } from "../errors/api-errors";
import { makeUser, refusal, seedCatalog } from "../../test/support/controlplane-fixtures";
import { approveCatalogChange } from "./approve-catalog-change";
import { createOperation } from "./create-operation";
import { createProvider } from "./create-provider";
import { deleteProvider } from "./delete-provider";
import { getCatalog } from "./get-catalog";
import { baseUrlProblem } from "./outbound-safety";
import { putAdapter } from "./put-adapter";
import { putGatewayLimits } from "./put-gateway-limits";
import { putRegion } from "./put-region";
import { rejectCatalogChange } from "./reject-catalog-change";
import { ZAdapter, ZGatewayLimits, ZOperation, ZProvider } from "./schemas";
import { updateOperation } from "./update-operation";
import { updateProvider } from "./update-provider";

let db: TTestDatabase;
let prisma: PrismaClient;
let admin: Awaited<ReturnType<typeof makeUser>>;
let adminAndCompliance: Awaited<ReturnType<typeof makeUser>>;
let compliance: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  admin = await makeUser(prisma, ["admin"]);
  adminAndCompliance = await makeUser(prisma, ["admin", "compliance"]);
  compliance = await makeUser(prisma, ["compliance"]);
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

const SMS = { key: "twilio", displayName: "Twilio", regions: ["EU", "NA"], certifications: ["gdpr", "soc2"], costPerRequest: 0.0079 };

/** The field paths a schema refuses an input with (the refusal names every one). */
function refusedFields(schema: Parameters<typeof parseInput>[0], input: unknown): string[] {
  try {
    parseInput(schema, input);
  } catch (err) {
    const e = err as { status: number; fields: { path: string }[] };
    expect([400, 422]).toContain(e.status);
    return e.fields.map((f) => f.path).sort();
  }
  throw new Error("the input was accepted");
}

describe("validation names every offending field", () => {
  it("provider", () => {
    expect(refusedFields(ZProvider, { ...SMS, key: "9bad key" })).toEqual(["key"]);
    expect(refusedFields(ZProvider, { ...SMS, regions: [] })).toEqual(["regions"]);
    expect(refusedFields(ZProvider, { ...SMS, regions: ["eu"] })).toEqual(["regions.0"]);
    expect(refusedFields(ZProvider, { ...SMS, regions: ["EU", "EU"] })).toEqual(["regions"]);
    expect(refusedFields(ZProvider, { ...SMS, certifications: ["GDPR!"] })).toEqual(["certifications.0"]);
    expect(refusedFields(ZProvider, { ...SMS, costPerRequest: -1 })).toEqual(["costPerRequest"]);
    expect(refusedFields(ZProvider, { ...SMS, displayName: " " })).toEqual(["displayName"]);
    expect(refusedFields(ZProvider, { ...SMS, quotas: [{ unit: "calls", limit: 0, windowSeconds: 60 }] })).toEqual(["quotas.0.limit", "quotas.0.unit"]);
    // The error contract names an unknown key itself, not its parent object.
    expect(refusedFields(ZProvider, { ...SMS, surprise: true })).toEqual(["surprise"]);
  });

  it("a credential must be a reference, never the secret", () => {
    expect(refusedFields(ZProvider, { ...SMS, credentialRef: "sk_live_abcdef123456" })).toEqual(["credentialRef"]);
    expect(parseInput(ZProvider, { ...SMS, credentialRef: "env:TWILIO_TOKEN" }).credentialRef).toBe("env:TWILIO_TOKEN");
  });

  it("operation, adapter and gateway limits", () => {
    expect(refusedFields(ZOperation, { key: "SEND_SMS2", regionRequirements: { eu: ["gdpr"] } })).toEqual(["regionRequirements.eu"]);
    expect(refusedFields(ZOperation, { key: "SEND_SMS2", criticality: "urgent" })).toEqual(["criticality"]);
    expect(refusedFields(ZAdapter, { kind: "openai_chat", baseUrl: "https://api.example.com/v1" })).toEqual(["model"]);
    expect(refusedFields(ZAdapter, { kind: "smoke_signals", baseUrl: "https://api.example.com" })).toEqual(["kind"]);
    expect(refusedFields(ZAdapter, { kind: "http_json", baseUrl: "not a url" })).toEqual(["baseUrl"]);
    expect(refusedFields(ZAdapter, { kind: "http_json", baseUrl: "https://api.example.com", options: { method: "YELL" } })).toEqual(["options.method"]);
    expect(refusedFields(ZGatewayLimits, { maxAttempts: 0, retryBudgetRatio: 2 })).toEqual(["maxAttempts", "retryBudgetRatio"]);
  });

  it("a duplicate key is refused naming key", async () => {
    const err = await refusal(createProvider(prisma, admin.actor, parseInput(ZProvider, { ...SMS, key: "provider_A" })));
    expect([err.status, err.code, err.fields.map((f) => f.path)]).toEqual([409, "already_exists", ["key"]]);
  });

  it("cost caps that contradict each other are refused naming the field", async () => {
    const err = await refusal(putGatewayLimits(prisma, admin.actor, "SEND_SMS", parseInput(ZGatewayLimits, { costCapPerMinute: 10, costCapPerDay: 5 })));
    expect([err.status, err.code, err.fields.map((f) => f.path)]).toEqual([422, "invalid", ["costCapPerMinute"]]);
  });
});

describe("outbound safety", () => {
  const strict = { allowLoopbackHttp: false, allowedHosts: null };
  it("adapters call https; plain http only to loopback, and only where allowed", () => {
    expect(baseUrlProblem("https://api.example.com/v1", strict)).toBeNull();
    expect(baseUrlProblem("http://api.example.com", { ...strict, allowLoopbackHttp: true })).toMatch(/must be https/);
    expect(baseUrlProblem("http://127.0.0.1:9999", strict)).toMatch(/only in demo mode and tests/);
    expect(baseUrlProblem("http://127.0.0.1:9999", { ...strict, allowLoopbackHttp: true })).toBeNull();
    expect(baseUrlProblem("ftp://files.example.com", strict)).toMatch(/must be https/);
    expect(baseUrlProblem("https://user:pw@api.example.com", strict)).toMatch(/credentials/);
  });

  it("SWITCHYARD_PROVIDER_HOSTS limits the hosts", () => {
    const allow = { allowLoopbackHttp: false, allowedHosts: ["api.twilio.example", "*.vonage.example"] };
    expect(baseUrlProblem("https://api.twilio.example/2010", allow)).toBeNull();
    expect(baseUrlProblem("https://rest.vonage.example", allow)).toBeNull();
    expect(baseUrlProblem("https://vonage.example.evil.test", allow)).toMatch(/not in SWITCHYARD_PROVIDER_HOSTS/);
    expect(baseUrlProblem("https://api.twilio.example.evil.test", allow)).toMatch(/not in SWITCHYARD_PROVIDER_HOSTS/);
  });

  it("putAdapter refuses a non-https base URL naming baseUrl, and writes nothing", async () => {
    const err = await refusal(putAdapter(prisma, admin.actor, "provider_A", parseInput(ZAdapter, { kind: "http_json", baseUrl: "http://sms.example.com" })));
    expect([err.status, err.code, err.fields.map((f) => f.path)]).toEqual([422, "invalid", ["baseUrl"]]);
    expect(await prisma.providerAdapter.findUnique({ where: { providerKey: "provider_A" } })).toBeNull();
  });
});

describe("referential safety", () => {
  it("disabling, renaming or deleting a provider the active policy names is refused, naming the policy", async () => {
    for (const attempt of [
      () => updateProvider(prisma, admin.actor, "provider_A", { enabled: false }),
      () => updateProvider(prisma, admin.actor, "provider_A", { key: "provider_A2" }),
      () => deleteProvider(prisma, admin.actor, "provider_A"),
    ]) {
      const err = await refusal(attempt());
      expect(err.status).toBe(409);
      expect(err.code).toBe("provider_in_use");
      expect(err.message).toContain("SEND_SMS v1 (active)");
    }
    const row = await prisma.provider.findUniqueOrThrow({ where: { key: "provider_A" } });
    expect([row.enabled, row.version]).toEqual([true, 1]);
  });

  it("a provider no policy names can be renamed (its adapter follows), disabled and deleted", async () => {
    await createProvider(prisma, admin.actor, parseInput(ZProvider, { ...SMS, key: "sinch" }));
    const held = await putAdapter(prisma, admin.actor, "sinch", parseInput(ZAdapter, { kind: "http_json", baseUrl: "https://sms.sinch.example/v1" }));
    expect(held.status).toBe("pending");
    if (held.status === "pending") await approveCatalogChange(prisma, compliance.actor, held.change.id, "sinch: ok");
    expect((await updateProvider(prisma, admin.actor, "sinch", { key: "sinch_eu" })).status).toBe("applied");
    expect(await prisma.providerAdapter.findUnique({ where: { providerKey: "sinch_eu" } })).not.toBeNull();
    expect((await updateProvider(prisma, admin.actor, "sinch_eu", { enabled: false })).status).toBe("applied");
    expect((await deleteProvider(prisma, admin.actor, "sinch_eu")).status).toBe("deleted");
    expect(await prisma.providerAdapter.count({ where: { providerKey: { in: ["sinch", "sinch_eu"] } } })).toBe(0);
  });

  it("disabling an operation a live policy routes is refused", async () => {
    const err = await refusal(updateOperation(prisma, admin.actor, "SEND_SMS", { enabled: false }));
    expect([err.status, err.code]).toEqual([409, "operation_in_use"]);
  });
});

describe("changes that move compliance wait for a compliance reviewer", () => {
  it("an edit that does not move compliance applies at once, versioned and audited", async () => {
    const r = await updateProvider(prisma, admin.actor, "provider_B", { displayName: "Provider B (renamed display)" });
    expect(r.status).toBe("applied");
    const row = await prisma.provider.findUniqueOrThrow({ where: { key: "provider_B" } });
    expect([row.displayName, row.version]).toEqual(["Provider B (renamed display)", 2]);
    const entry = await prisma.auditEntry.findFirstOrThrow({ where: { action: "catalog.provider.update", targetId: "provider_B" }, orderBy: { seq: "desc" } });
    expect((entry.before as { displayName: string }).displayName).toBe("Provider B (secondary SMS)");
  });

  it("adding a certification is pending until another person in compliance approves it", async () => {
    const r = await updateProvider(prisma, adminAndCompliance.actor, "provider_C", { certifications: ["soc2", "gdpr"] });
    expect(r.status).toBe("pending");
    const changeId = r.status === "pending" ? r.change.id : "";
    expect((await prisma.provider.findUniqueOrThrow({ where: { key: "provider_C" } })).complianceTags).toEqual(["soc2"]);
    expect((await getCatalog(prisma)).pendingChanges.map((c) => c.id)).toContain(changeId);

    const own = await refusal(approveCatalogChange(prisma, adminAndCompliance.actor, changeId, ""));
    expect([own.status, own.code]).toEqual([403, "four_eyes"]);
    expect((await prisma.provider.findUniqueOrThrow({ where: { key: "provider_C" } })).complianceTags).toEqual(["soc2"]);

    await approveCatalogChange(prisma, compliance.actor, changeId, "certificate checked");
    const row = await prisma.provider.findUniqueOrThrow({ where: { key: "provider_C" } });
    expect(row.complianceTags).toEqual(["soc2", "gdpr"]);
    expect((await prisma.catalogChange.findUniqueOrThrow({ where: { id: changeId } })).status).toBe("applied");
    const actions = (await prisma.auditEntry.findMany({ orderBy: { seq: "asc" } })).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["catalog.provider.request", "catalog.provider.update", "catalog.change.approve"]));
    expect((await verifyAuditChain(prisma)).ok).toBe(true);
  });

  it("regions, enabling and an operation's regional requirements move compliance too; a rejection applies nothing", async () => {
    await createProvider(prisma, admin.actor, parseInput(ZProvider, { ...SMS, key: "vonage", enabled: false }));
    expect((await updateProvider(prisma, admin.actor, "vonage", { enabled: true })).status).toBe("pending");
    const regions = await updateProvider(prisma, admin.actor, "vonage", { regions: ["EU", "NA", "APAC"] });
    expect(regions.status).toBe("pending");
    // The newer request superseded the first.
    expect(await prisma.catalogChange.count({ where: { targetKey: "vonage", status: "pending" } })).toBe(1);

    const req = await updateOperation(prisma, admin.actor, "SEND_SMS", { regionRequirements: { EU: ["gdpr"], NA: ["tcpa"] } });
    expect(req.status).toBe("pending");
    const id = req.status === "pending" ? req.change.id : "";
    const noReason = await refusal(rejectCatalogChange(prisma, compliance.actor, id, " "));
    expect(noReason.fields.map((f) => f.path)).toEqual(["comment"]);
    await rejectCatalogChange(prisma, compliance.actor, id, "TCPA is not a certification we hold anyone to");
    expect((await prisma.operation.findUniqueOrThrow({ where: { key: "SEND_SMS" } })).regionRequirements).toEqual({ EU: ["gdpr"] });
    const again = await refusal(approveCatalogChange(prisma, compliance.actor, id, ""));
    expect([again.status, again.code]).toEqual([409, "invalid_state"]);
  });

  it("a held change approved after its target moved is refused as stale", async () => {
    const held = await updateProvider(prisma, admin.actor, "provider_B", { regions: ["EU", "NA"] });
    const id = held.status === "pending" ? held.change.id : "";
    await updateProvider(prisma, admin.actor, "provider_B", { costPerRequest: 0.008 });
    const err = await refusal(approveCatalogChange(prisma, compliance.actor, id, ""));
    expect([err.status, err.code]).toEqual([409, "stale_change"]);
    expect((await prisma.provider.findUniqueOrThrow({ where: { key: "provider_B" } })).supportedRegions).toEqual(["EU", "NA", "APAC", "LATAM"]);
  });

  it("a new operation with its regional requirements applies at once", async () => {
    const r = await createOperation(prisma, admin.actor, parseInput(ZOperation, { key: "SEND_OTP", regionRequirements: { EU: ["gdpr"] } }));
    expect(r.status).toBe("applied");
    const op = (await getCatalog(prisma)).operations.find((o) => o.key === "SEND_OTP");
    expect(op?.regionRequirements).toEqual({ EU: ["gdpr"] });
    // Without a live policy it may be disabled; a disabled operation takes no new factor list.
    expect((await updateOperation(prisma, admin.actor, "SEND_OTP", { enabled: false })).status).toBe("applied");
    const author = await makeUser(prisma, ["policy_author"]);
    const err = await refusal(createFactorListDraft(prisma, author.actor, { yaml: "operation: SEND_OTP\nproviders: [provider_A]\n" }));
    expect(err.fields).toEqual([{ path: "operation", message: 'operation "SEND_OTP" is disabled in the catalogue' }]);
  });

  it("the catalogue shows a credential reference's state, never its value", async () => {
    process.env.SWITCHYARD_SECRET_SY_TEST_SMS = "super-secret-token-value";
    await createProvider(prisma, admin.actor, parseInput(ZProvider, { ...SMS, key: "with_cred", credentialRef: "env:SWITCHYARD_SECRET_SY_TEST_SMS" }));
    await createProvider(prisma, admin.actor, parseInput(ZProvider, { ...SMS, key: "without_cred", credentialRef: "env:SWITCHYARD_SECRET_SY_TEST_UNSET" }));
    const catalog = await getCatalog(prisma);
    expect(catalog.providers.find((p) => p.key === "with_cred")?.credentialState).toBe("resolved");
    expect(catalog.providers.find((p) => p.key === "without_cred")?.credentialState).toBe("missing");
    expect(JSON.stringify(catalog)).not.toContain("super-secret-token-value");
    delete process.env.SWITCHYARD_SECRET_SY_TEST_SMS;
  });
});

describe("regions and certifications are declared", () => {
  const KNOWN_REGIONS = "known regions: APAC, EU, LATAM, NA";
  const KNOWN_CERTS = "known certifications: gdpr, soc2, tcpa";

  it("a provider naming MARS, EUR or gpdr is refused, naming the field and listing the known values; nothing is written", async () => {
    const before = await prisma.auditEntry.count();
    const mars = await refusal(createProvider(prisma, admin.actor, parseInput(ZProvider, { key: "sinch", displayName: "Sinch", regions: ["EU", "MARS"] })));
    expect([mars.status, mars.code, mars.fields]).toEqual([422, "invalid", [{ path: "regions[1]", message: `unknown region "MARS"; ${KNOWN_REGIONS}` }]]);
    expect(mars.message).toBe(`unknown region "MARS"; ${KNOWN_REGIONS}`);
    const gpdr = await refusal(
      createProvider(prisma, admin.actor, parseInput(ZProvider, { key: "sinch", displayName: "Sinch", regions: ["EU"], certifications: ["gpdr"] })),
    );
    expect(gpdr.fields).toEqual([{ path: "certifications[0]", message: `unknown certification "gpdr"; ${KNOWN_CERTS}` }]);
    expect(await prisma.provider.findUnique({ where: { key: "sinch" } })).toBeNull();

    const pending = await prisma.catalogChange.count();
    const eur = await refusal(updateProvider(prisma, admin.actor, "provider_C", { regions: ["EU", "EUR"] }));
    expect(eur.fields).toEqual([{ path: "regions[1]", message: `unknown region "EUR"; ${KNOWN_REGIONS}` }]);
    // Refused before anything is held for compliance.
    expect(await prisma.catalogChange.count()).toBe(pending);
    expect(await prisma.auditEntry.count()).toBe(before);
  });

  it("an operation's requirements and a factor list's region rules name declared regions and certifications only", async () => {
    const op = await refusal(
      createOperation(prisma, admin.actor, parseInput(ZOperation, { key: "SEND_PUSH", regionRequirements: { EUR: ["gdpr"], EU: ["gpdr"] } })),
    );
    expect(op.fields.map((f) => f.path)).toEqual(["regionRequirements.EUR", "regionRequirements.EU[0]"]);
    const author = await makeUser(prisma, ["policy_author"]);
    const yaml = "operation: SEND_SMS\nproviders: [provider_A]\nregions:\n  EUX: {required_compliance: [gdpr]}\n  EU: {required_compliance: [gpdr]}\n";
    const fl = await refusal(createFactorListDraft(prisma, author.actor, { yaml }));
    expect([fl.status, fl.code]).toEqual([422, "invalid"]);
    expect(fl.fields).toEqual([
      { path: "regions.EUX", message: `unknown region "EUX"; ${KNOWN_REGIONS}` },
      { path: "regions.EU.required_compliance[0]", message: `unknown certification "gpdr"; ${KNOWN_CERTS}` },
    ]);
  });

  it("a declared region may then be used; a region requiring an undeclared certification is refused", async () => {
    const bad = await refusal(putRegion(prisma, admin.actor, { name: "MENA", requires: ["gpdr"] }));
    expect(bad.fields).toEqual([{ path: "requires[0]", message: `unknown certification "gpdr"; ${KNOWN_CERTS}` }]);
    expect(await prisma.region.findUnique({ where: { name: "MENA" } })).toBeNull();
    expect((await putRegion(prisma, admin.actor, { name: "MENA", requires: ["gdpr"] })).status).toBe("applied");
    const r = await createProvider(
      prisma,
      admin.actor,
      parseInput(ZProvider, { key: "unifonic", displayName: "Unifonic", regions: ["MENA"], certifications: ["gdpr"] }),
    );
    expect(r.status).toBe("applied");
    const audit = await prisma.auditEntry.findFirstOrThrow({ where: { action: "catalog.region.create", targetId: "MENA" } });
    expect(audit.after).toMatchObject({ name: "MENA", requires: ["gdpr"], version: 1 });
  });
});
