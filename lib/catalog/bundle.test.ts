/* eslint-disable @typescript-eslint/no-explicit-any -- decision records are asserted field by field */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { activateFactorList } from "../controlplane/factor-lists/activate-factor-list";
import { approveFactorList } from "../controlplane/factor-lists/approve-factor-list";
import { createFactorListDraft } from "../controlplane/factor-lists/create-factor-list-draft";
import { parseInput } from "../errors/api-errors";
import { submitFactorList } from "../controlplane/factor-lists/submit-factor-list";
import { makeUser, refusal } from "../../test/support/controlplane-fixtures";
import { dataPlaneSettings } from "../dataplane/settings";
import { startStandaloneDataPlane, type TStandaloneServer } from "../../test/support/standalone-dataplane";
import { applyBundle } from "./apply-bundle";
import { bundleToYaml, parseBundle } from "./bundle";
import { createOperation } from "./create-operation";
import { createProvider } from "./create-provider";
import { exportBundle } from "./export-bundle";
import { putAdapter } from "./put-adapter";
import { putGatewayLimits } from "./put-gateway-limits";
import { approveCatalogChange } from "./approve-catalog-change";
import { putCertification } from "./put-certification";
import { putRegion } from "./put-region";
import { ZAdapter, ZGatewayLimits, ZOperation, ZProvider } from "./schemas";

type TInstance = {
  db: TTestDatabase;
  prisma: PrismaClient;
  users: Record<"admin" | "author" | "approver" | "compliance", Awaited<ReturnType<typeof makeUser>>>;
};

const POLICY = `operation: SEND_SMS
providers: [sms_certified, sms_budget]
gates: [supports_region, compliance_allowed, credentials_valid, circuit_breaker_closed]
`;

let source: TInstance;
let target: TInstance;
let spoolDir: string;
const servers: TStandaloneServer[] = [];

async function instance(): Promise<TInstance> {
  const db = await createTestDatabase();
  const prisma = createPrisma(db.url);
  return {
    db,
    prisma,
    users: {
      admin: await makeUser(prisma, ["admin"]),
      author: await makeUser(prisma, ["policy_author"]),
      approver: await makeUser(prisma, ["approver"]),
      compliance: await makeUser(prisma, ["compliance"]),
    },
  };
}

/** An approver and compliance approve every version in review; the approver activates it. */
async function reviewAndActivate(i: TInstance): Promise<number> {
  const inReview = await i.prisma.factorListVersion.findMany({ where: { status: "in_review" } });
  for (const v of inReview) {
    await approveFactorList(i.prisma, i.users.approver.actor, v.id, "approver", "ok");
    await approveFactorList(i.prisma, i.users.compliance.actor, v.id, "compliance", "EU requires gdpr: ok");
    await activateFactorList(i.prisma, i.users.approver.actor, v.id);
  }
  return inReview.length;
}

/** Compliance approves every held catalogue change (security-class adapter changes included). */
async function approveHeld(i: TInstance): Promise<number> {
  const held = await i.prisma.catalogChange.findMany({ where: { status: "pending" } });
  for (const c of held) await approveCatalogChange(i.prisma, i.users.compliance.actor, c.id, "reviewed");
  return held.length;
}

async function decide(i: TInstance, region: string, requestId: string) {
  const server = await startStandaloneDataPlane({ databaseUrl: i.db.url, seed: false, settings: { ...dataPlaneSettings({}, process.cwd()), spoolDir } });
  servers.push(server);
  const res = await fetch(`${server.url}/api/v1/decide`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ operation: "SEND_SMS", region, requestId, explain: "full" }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as any;
}

beforeAll(async () => {
  spoolDir = await mkdtemp(path.join(tmpdir(), "sy-bundle-"));
  source = await instance();
  target = await instance();
  const admin = source.users.admin.actor;
  for (const name of ["gdpr", "soc2"]) await putCertification(source.prisma, admin, { name, description: "" });
  for (const name of ["EU", "NA"]) await putRegion(source.prisma, admin, { name, requires: [] });
  await createProvider(
    source.prisma,
    admin,
    parseInput(ZProvider, {
      key: "sms_certified",
      displayName: "Certified SMS",
      regions: ["EU", "NA"],
      certifications: ["gdpr", "soc2"],
      costPerRequest: 0.0079,
      credentialRef: "env:SWITCHYARD_SECRET_SMS_CERTIFIED",
    }),
  );
  await createProvider(
    source.prisma,
    admin,
    parseInput(ZProvider, {
      key: "sms_budget",
      displayName: "Budget SMS",
      regions: ["EU", "NA"],
      certifications: ["soc2"],
      costPerRequest: 0.0062,
      quotas: [{ unit: "requests", limit: 50, windowSeconds: 1 }],
    }),
  );
  await putAdapter(
    source.prisma,
    admin,
    "sms_certified",
    parseInput(ZAdapter, { kind: "http_json", baseUrl: "https://sms.certified.example/v1", options: { path: "/messages" } }),
  );
  expect(await approveHeld(source)).toBe(1);
  await createOperation(
    source.prisma,
    admin,
    parseInput(ZOperation, { key: "SEND_SMS", description: "verification codes", criticality: "critical", regionRequirements: { EU: ["gdpr"] } }),
  );
  await putGatewayLimits(source.prisma, admin, "SEND_SMS", parseInput(ZGatewayLimits, { deadlineMs: 5000, maxAttempts: 2 }));
  const draft = await createFactorListDraft(source.prisma, source.users.author.actor, { yaml: POLICY, changeNote: "first" });
  await submitFactorList(source.prisma, source.users.author.actor, draft.id);
  expect(await reviewAndActivate(source)).toBe(1);
});

afterAll(async () => {
  for (const s of servers) await s.close();
  for (const i of [source, target]) {
    await i?.prisma.$disconnect();
    await i?.db.drop();
  }
  await rm(spoolDir, { recursive: true, force: true });
});

describe("configuration bundle", () => {
  it("export → apply to an empty instance gives the same decision; a second apply reports no changes", async () => {
    const yaml = bundleToYaml(await exportBundle(source.prisma));
    expect(yaml).toContain("apiVersion: switchyard/v1");
    expect(yaml).toContain("env:SWITCHYARD_SECRET_SMS_CERTIFIED");
    const bundle = parseBundle(yaml);

    const dry = await applyBundle(target.prisma, target.users.admin.actor, bundle, { dryRun: true });
    expect(dry.changes.map((c) => `${c.action} ${c.target}`)).toEqual([
      "create certification gdpr",
      "create certification soc2",
      "create region EU",
      "create region NA",
      "create provider sms_budget",
      "create provider sms_certified",
      "request adapter sms_certified",
      "create operation SEND_SMS",
      "create gateway limits SEND_SMS",
      "draft factor list SEND_SMS",
    ]);
    expect(await target.prisma.provider.count()).toBe(0);

    const applied = await applyBundle(target.prisma, target.users.admin.actor, bundle, { dryRun: false });
    expect(applied.summary).toBe("10 changes: 8 applied, 1 waiting for compliance, 1 factor lists in review");
    // Where the credential and the messages go is reviewed by someone else before it applies.
    expect(await target.prisma.providerAdapter.count()).toBe(0);
    // Applying never bypasses review: the factor list waits in review, nothing routes yet.
    expect((await target.prisma.factorListVersion.findFirstOrThrow({ where: { operationKey: "SEND_SMS" } })).status).toBe("in_review");
    expect((await applyBundle(target.prisma, target.users.admin.actor, bundle, { dryRun: false })).summary).toBe("no changes");

    expect(await approveHeld(target)).toBe(1);
    expect(await reviewAndActivate(target)).toBe(1);
    expect(bundleToYaml(await exportBundle(target.prisma))).toBe(yaml);
    expect((await applyBundle(target.prisma, target.users.admin.actor, parseBundle(yaml), { dryRun: false })).summary).toBe("no changes");

    for (const region of ["EU", "NA"]) {
      const [a, b] = [await decide(source, region, `same-${region}`), await decide(target, region, `same-${region}`)];
      const eligibility = (d: any) => d.candidates.map((c: any) => [c.provider, c.eligible, c.gates.filter((g: any) => !g.passed).map((g: any) => g.detail)]);
      expect(eligibility(b)).toEqual(eligibility(a));
      if (region === "EU") {
        expect([a.selected, b.selected]).toEqual(["sms_certified", "sms_certified"]);
        expect(eligibility(a)[1][2]).toEqual(["provider lacks required compliance: gdpr (EU requires gdpr; provider holds soc2)"]);
      }
    }
  });

  it("a compliance-moving change in a bundle is held, and applying it again adds nothing", async () => {
    const bundle = await exportBundle(target.prisma);
    const budget = bundle.providers.find((p) => p.key === "sms_budget")!;
    budget.certifications = ["soc2", "gdpr"];
    budget.displayName = "Budget SMS (now GDPR)";
    const first = await applyBundle(target.prisma, target.users.admin.actor, bundle, { dryRun: false });
    expect(first.changes).toEqual([expect.objectContaining({ target: "provider sms_budget", action: "request", effect: "pending" })]);
    expect((await target.prisma.provider.findUniqueOrThrow({ where: { key: "sms_budget" } })).complianceTags).toEqual(["soc2"]);
    expect((await applyBundle(target.prisma, target.users.admin.actor, bundle, { dryRun: false })).summary).toBe("no changes");
  });

  it("a bundle cannot point a credential at the server's configuration, nor a held adapter apply unreviewed", async () => {
    const bundle = await exportBundle(target.prisma);
    const certified = bundle.providers.find((p) => p.key === "sms_certified")!;
    certified.credentialRef = "env:DATABASE_URL";
    const refused = await refusal(applyBundle(target.prisma, target.users.admin.actor, bundle, { dryRun: false }));
    expect([refused.status, refused.code, refused.fields.map((f) => f.path)]).toEqual([422, "invalid", ["providers[sms_certified].credentialRef"]]);
    certified.credentialRef = "file:/proc/self/environ";
    expect((await refusal(applyBundle(target.prisma, target.users.admin.actor, bundle, { dryRun: true }))).fields[0]!.path).toBe(
      "providers[sms_certified].credentialRef",
    );

    certified.credentialRef = "env:SWITCHYARD_SECRET_OTHER";
    certified.adapter = {
      ...certified.adapter!,
      baseUrl: "https://collector.example/v1",
      options: { path: "/x", headers: { authorization: "Bearer {{credential}}" } },
    };
    const held = await applyBundle(target.prisma, target.users.admin.actor, bundle, { dryRun: false });
    expect(held.changes.map((c) => [c.target, c.effect])).toEqual([
      ["provider sms_certified", "pending"],
      ["adapter sms_certified", "pending"],
    ]);
    const row = await target.prisma.providerAdapter.findUniqueOrThrow({ where: { providerKey: "sms_certified" } });
    expect([row.baseUrl, row.credentialRef]).toEqual(["https://sms.certified.example/v1", "env:SWITCHYARD_SECRET_SMS_CERTIFIED"]);
    // The requester cannot approve; nothing moved.
    const change = await target.prisma.catalogChange.findFirstOrThrow({ where: { status: "pending", targetType: "adapter" } });
    expect((await refusal(approveCatalogChange(target.prisma, target.users.admin.actor, change.id, ""))).code).toMatch(/forbidden|four_eyes/);
    await target.prisma.catalogChange.updateMany({ where: { status: "pending" }, data: { status: "rejected" } });
  });

  it("a bundle with one refused change writes nothing, and its dry run predicted the refusal", async () => {
    const bundle = await exportBundle(target.prisma);
    bundle.providers.push(parseInput(ZProvider, { key: "messagebird", displayName: "MessageBird", regions: ["EU"] }));
    bundle.providers.find((p) => p.key === "sms_budget")!.enabled = false;
    // A change compliance would hold is part of the bundle too: refused with it, not held alone.
    bundle.providers.find((p) => p.key === "sms_certified")!.regions = ["EU"];
    const count = () => Promise.all([target.prisma.provider.count(), target.prisma.auditEntry.count(), target.prisma.catalogChange.count()]);
    const before = await count();

    const dry = await applyBundle(target.prisma, target.users.admin.actor, bundle, { dryRun: true });
    expect(dry.changes.map((c) => [c.target, c.effect])).toEqual([
      ["provider sms_budget", "refused"],
      ["provider sms_certified", "pending"],
      ["provider messagebird", "applied"],
    ]);
    expect(dry.changes[0]!.refusal).toMatchObject({ status: 409, code: "provider_in_use", fields: [{ path: "providers[sms_budget].enabled" }] });
    expect(dry.summary).toBe("3 changes: would apply 1, would hold 1 for compliance, would put 0 factor lists in review, refused 1");
    expect(await count()).toEqual(before);

    const refused = await refusal(applyBundle(target.prisma, target.users.admin.actor, bundle, { dryRun: false }));
    expect([refused.status, refused.code, refused.fields.map((f) => f.path)]).toEqual([409, "provider_in_use", ["providers[sms_budget].enabled"]]);
    expect(refused.message).toMatch(/^the bundle was not applied and nothing was written: provider sms_budget: cannot disable/);
    expect(await target.prisma.provider.findUnique({ where: { key: "messagebird" } })).toBeNull();
    expect(await count()).toEqual(before);
    expect((await target.prisma.provider.findUniqueOrThrow({ where: { key: "sms_budget" } })).enabled).toBe(true);
  });

  it("a bundle sets only the fields it names; the plan shows old → new and warns about a cleared credential or a zeroed cost", async () => {
    const only = parseBundle("apiVersion: switchyard/v1\nproviders:\n  - key: sms_certified\n    displayName: Certified SMS (EU)\n");
    const dry = await applyBundle(target.prisma, target.users.admin.actor, only, { dryRun: true });
    expect(dry.changes).toEqual([
      expect.objectContaining({ target: "provider sms_certified", action: "update", detail: 'displayName "Certified SMS" → "Certified SMS (EU)"' }),
    ]);
    expect(dry.changes[0]!.warnings).toBeUndefined();
    await applyBundle(target.prisma, target.users.admin.actor, only, { dryRun: false });
    const row = await target.prisma.provider.findUniqueOrThrow({ where: { key: "sms_certified" } });
    expect([row.displayName, Number(row.costPerRequest), row.credentialRef, row.complianceTags]).toEqual([
      "Certified SMS (EU)",
      0.0079,
      "env:SWITCHYARD_SECRET_SMS_CERTIFIED",
      ["gdpr", "soc2"],
    ]);

    const clearing = parseBundle("apiVersion: switchyard/v1\nproviders:\n  - key: sms_certified\n    credentialRef: null\n    costPerRequest: 0\n");
    const plan = await applyBundle(target.prisma, target.users.admin.actor, clearing, { dryRun: true });
    expect(plan.changes[0]!.detail).toBe('costPerRequest 0.0079 → 0; credentialRef "env:SWITCHYARD_SECRET_SMS_CERTIFIED" → null');
    expect(plan.changes[0]!.warnings).toEqual([
      "clears the credential reference env:SWITCHYARD_SECRET_SMS_CERTIFIED: execute mode will send no credential",
      "zeroes costPerRequest (was 0.0079): routing and cost caps will count this provider as free",
    ]);
  });

  it("refuses a literal secret in an adapter header, naming it", async () => {
    const bundle = await exportBundle(target.prisma);
    bundle.providers.find((p) => p.key === "sms_certified")!.adapter!.options = { headers: { "x-api-key": "sk_live_4eC39HqLyjWDarjtT1zdp7dc" } };
    const refused = await refusal(applyBundle(target.prisma, target.users.admin.actor, bundle, { dryRun: true }));
    expect([refused.status, refused.fields.map((f) => f.path)]).toEqual([422, ["providers[sms_certified].adapter.options.headers.x-api-key"]]);
  });

  it("refuses a bundle naming every offending field", async () => {
    const bad = `apiVersion: switchyard/v1
providers:
  - key: a
    displayName: A
    regions: [EU]
    adapter: {kind: http_json, baseUrl: "http://sms.example.com"}
  - key: a
    displayName: A again
    regions: [eu]
operations:
  - key: OP
    factorList: {operation: OTHER, providers: [ghost]}
`;
    const schema = await refusal(Promise.resolve().then(() => parseBundle(bad)));
    expect(schema.fields.map((f) => f.path).sort()).toEqual(["providers[a].key", "providers[a].regions[0]"]);
    const semantic = await refusal(
      applyBundle(
        target.prisma,
        target.users.admin.actor,
        parseBundle(bad.replace("regions: [eu]", "regions: [EU]").replace("  - key: a\n    displayName: A again", "  - key: b\n    displayName: B")),
        { dryRun: true },
      ),
    );
    expect([semantic.status, semantic.code]).toEqual([422, "invalid"]);
    expect(semantic.fields.map((f) => f.path).sort()).toEqual([
      "operations[OP].factorList.operation",
      "operations[OP].factorList.providers[0]",
      "providers[a].adapter.baseUrl",
    ]);
  });

  it("names the line and column of YAML errors, and items by key, each unknown field once", async () => {
    const dup = await refusal(Promise.resolve().then(() => parseBundle("apiVersion: switchyard/v1\nproviders:\n  - key: a\n    key: b\n")));
    expect([dup.status, dup.fields]).toEqual([400, [{ path: "", message: "invalid YAML at line 4, column 5: Map keys must be unique" }]]);
    const quote = await refusal(Promise.resolve().then(() => parseBundle('apiVersion: switchyard/v1\nproviders:\n  - key: s\n    displayName: "S\n')));
    expect(quote.fields[0]!.message).toMatch(/^invalid YAML at line \d+, column \d+: Missing closing "quote/);

    const text = `apiVersion: switchyard/v1
providers:
  - key: twilio
    displayName: Twilio
    regions: [EU]
  - key: sinch
    displayName: Sinch
    regions: [EU]
    certifications: [GDPR]
    colour: red
operations:
  - key: OP
    gatewayLimits: {deadlineMs: 1}
`;
    const refused = await refusal(Promise.resolve().then(() => parseBundle(text)));
    expect(refused.fields.map((f) => [f.path, f.message.replace(/^(.{0,24}).*(\(line .*)$/, "$1 $2")])).toEqual([
      ["providers[sinch].certifications[0]", "a certification is lower (line 9, column 22)"],
      ["providers[sinch].colour", 'unknown field "colour";  (line 10, column 5)'],
      ["operations[OP].gatewayLimits.deadlineMs", "Too small: expected numb (line 13, column 21)"],
    ]);
  });

  it("the README's bundle parses, keeps quota_available among its gates and plans without a refusal", async () => {
    const readme = await readFile(path.join(process.cwd(), "README.md"), "utf8");
    const yaml = /### Configuration as code[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)![1]!;
    const bundle = parseBundle(yaml);
    expect(bundle.operations[0]!.factorList!.gates).toContain("quota_available");
    const plan = await applyBundle(target.prisma, target.users.admin.actor, bundle, { dryRun: true });
    expect(plan.changes.filter((c) => c.effect === "refused")).toEqual([]);
  });

  it("refuses bundles past the text bounds and YAML with duplicate keys as malformed", async () => {
    const deep = `apiVersion: switchyard/v1\nproviders: ${"[".repeat(100)}${"]".repeat(100)}\n`;
    expect((await refusal(Promise.resolve().then(() => parseBundle(deep)))).code).toBe("malformed");
    const dup = "apiVersion: switchyard/v1\napiVersion: switchyard/v1\n";
    expect((await refusal(Promise.resolve().then(() => parseBundle(dup)))).code).toBe("malformed");
  });
  it("a bundle may declare a region and use it; one naming an undeclared region or certification writes nothing", async () => {
    const count = () => Promise.all([target.prisma.provider.count(), target.prisma.region.count(), target.prisma.auditEntry.count()]);
    const before = await count();
    const misspelt = `apiVersion: switchyard/v1
providers:
  - key: sinch
    displayName: Sinch
    regions: [EU, EUR, MARS]
    certifications: [gpdr]
`;
    for (const dryRun of [true, false]) {
      const refused = await refusal(applyBundle(target.prisma, target.users.admin.actor, parseBundle(misspelt), { dryRun }));
      expect([refused.status, refused.code]).toEqual([422, "invalid"]);
      expect(refused.fields.map((f) => f.path)).toEqual(["providers[sinch].regions[1]", "providers[sinch].regions[2]", "providers[sinch].certifications[0]"]);
      expect(refused.fields[0]!.message).toBe('unknown region "EUR"; known regions: EU, NA');
      expect(refused.fields[2]!.message).toBe('unknown certification "gpdr"; known certifications: gdpr, soc2');
    }
    expect(await count()).toEqual(before);

    const declared = `apiVersion: switchyard/v1
certifications:
  - {name: pci_dss, description: Payment Card Industry Data Security Standard}
regions:
  - {name: APAC, requires: [pci_dss]}
providers:
  - key: sinch
    displayName: Sinch
    regions: [EU, APAC]
    certifications: [gdpr, pci_dss]
`;
    const dry = await applyBundle(target.prisma, target.users.admin.actor, parseBundle(declared), { dryRun: true });
    expect(dry.changes.map((c) => `${c.action} ${c.target} ${c.effect}`)).toEqual([
      "create certification pci_dss applied",
      "create region APAC applied",
      "create provider sinch applied",
    ]);
    expect(await count()).toEqual(before);
    await applyBundle(target.prisma, target.users.admin.actor, parseBundle(declared), { dryRun: false });
    expect((await target.prisma.region.findUniqueOrThrow({ where: { name: "APAC" } })).requires).toEqual(["pci_dss"]);
    expect((await target.prisma.provider.findUniqueOrThrow({ where: { key: "sinch" } })).supportedRegions).toEqual(["EU", "APAC"]);
    const actions = await target.prisma.auditEntry.findMany({
      where: { targetType: { in: ["region", "certification"] } },
      select: { action: true, targetId: true },
    });
    expect(actions).toEqual(
      expect.arrayContaining([
        { action: "catalog.certification.create", targetId: "pci_dss" },
        { action: "catalog.region.create", targetId: "APAC" },
      ]),
    );
    // Exported by name, declared names first, and applying the export again changes nothing.
    const exported = await exportBundle(target.prisma);
    expect(exported.regions!.map((r) => r.name)).toEqual(["APAC", "EU", "NA"]);
    expect(exported.certifications!.map((c) => c.name)).toEqual(["gdpr", "pci_dss", "soc2"]);
    expect((await applyBundle(target.prisma, target.users.admin.actor, exported, { dryRun: true })).summary).toBe("no changes");
  });

  it("a region's rule applies to every operation there; dropping a requirement waits for compliance", async () => {
    const strict = parseBundle("apiVersion: switchyard/v1\nregions:\n  - {name: NA, requires: [gdpr]}\n");
    const applied = await applyBundle(target.prisma, target.users.admin.actor, strict, { dryRun: false });
    expect(applied.changes.map((c) => [c.target, c.action, c.effect])).toEqual([["region NA", "update", "applied"]]);
    const na = await decide(target, "NA", "region-rule-NA");
    const budget = na.candidates.find((c: any) => c.provider === "sms_budget");
    expect(budget.gates.filter((g: any) => !g.passed).map((g: any) => g.detail)).toEqual([
      "provider lacks required compliance: gdpr (NA requires gdpr; provider holds soc2)",
    ]);

    const loose = parseBundle("apiVersion: switchyard/v1\nregions:\n  - {name: NA, requires: []}\n");
    const held = await applyBundle(target.prisma, target.users.admin.actor, loose, { dryRun: false });
    expect(held.changes.map((c) => [c.target, c.action, c.effect])).toEqual([["region NA", "request", "pending"]]);
    expect((await target.prisma.region.findUniqueOrThrow({ where: { name: "NA" } })).requires).toEqual(["gdpr"]);
    const change = await target.prisma.catalogChange.findFirstOrThrow({ where: { status: "pending", targetType: "region" } });
    expect((await refusal(approveCatalogChange(target.prisma, target.users.admin.actor, change.id, ""))).code).toMatch(/forbidden|four_eyes/);
    await approveCatalogChange(target.prisma, target.users.compliance.actor, change.id, "NA needs no gdpr");
    expect((await target.prisma.region.findUniqueOrThrow({ where: { name: "NA" } })).requires).toEqual([]);
    const audit = await target.prisma.auditEntry.findFirstOrThrow({ where: { action: "catalog.region.update", targetId: "NA" }, orderBy: { seq: "desc" } });
    expect(audit.before).toMatchObject({ requires: ["gdpr"] });
  });
});
