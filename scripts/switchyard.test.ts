import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../lib/db/client";
import { createTestDatabase, type TTestDatabase } from "../test/support/database";
import { makeUser } from "../test/support/controlplane-fixtures";
import type { TActor } from "../lib/audit/actor";
import { activateFactorList } from "../lib/controlplane/factor-lists/activate-factor-list";
import { approveFactorList } from "../lib/controlplane/factor-lists/approve-factor-list";
import { createFactorListDraft } from "../lib/controlplane/factor-lists/create-factor-list-draft";
import { submitFactorList } from "../lib/controlplane/factor-lists/submit-factor-list";
import { ContractError, parseInput } from "../lib/errors/api-errors";
import { applyBundle } from "../lib/catalog/apply-bundle";
import { bundleToYaml, parseBundle } from "../lib/catalog/bundle";
import { createOperation } from "../lib/catalog/create-operation";
import { createProvider } from "../lib/catalog/create-provider";
import { exportBundle } from "../lib/catalog/export-bundle";
import { putRegion } from "../lib/catalog/put-region";
import { ZOperation, ZProvider } from "../lib/catalog/schemas";

let db: TTestDatabase;
let prisma: PrismaClient;
let admin: TActor;
let server: Server;
let base: string;
let dir: string;

/** The control routes' two calls, served by the same library functions over real HTTP. */
function serve(): Promise<string> {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x");
      const answer = async () => {
        if (url.pathname === "/api/control/export") return { status: 200, body: bundleToYaml(await exportBundle(prisma)) };
        const result = await applyBundle(prisma, admin, parseBundle(Buffer.concat(chunks).toString("utf8")), {
          dryRun: url.searchParams.get("dryRun") === "1",
        });
        return { status: 200, body: JSON.stringify(result) };
      };
      answer().then(
        ({ status, body }) => res.writeHead(status).end(body),
        (err: unknown) => res.writeHead(err instanceof ContractError ? err.status : 500).end(JSON.stringify(err instanceof ContractError ? err.toBody() : {})),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function cli(args: string[], env: Record<string, string | undefined> = { SWITCHYARD_URL: base, SWITCHYARD_CONTROL_KEY: "sy_test" }) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [require.resolve("tsx/cli"), "scripts/switchyard.ts", ...args], {
      env: { ...process.env, SWITCHYARD_URL: undefined, SWITCHYARD_CONTROL_KEY: undefined, ...env },
    });
    let [stdout, stderr] = ["", ""];
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  admin = (await makeUser(prisma, ["admin"])).actor;
  const [author, approver, compliance] = [
    await makeUser(prisma, ["policy_author"]),
    await makeUser(prisma, ["approver"]),
    await makeUser(prisma, ["compliance"]),
  ];
  await putRegion(prisma, admin, { name: "EU", requires: [] });
  await createProvider(prisma, admin, parseInput(ZProvider, { key: "vonage", displayName: "Vonage", regions: ["EU"] }));
  await createOperation(prisma, admin, parseInput(ZOperation, { key: "SEND_SMS" }));
  const draft = await createFactorListDraft(prisma, author.actor, {
    yaml: "operation: SEND_SMS\nproviders: [vonage]\nmin_sample_size: 50\n",
    changeNote: "first",
  });
  await submitFactorList(prisma, author.actor, draft.id);
  await approveFactorList(prisma, approver.actor, draft.id, "approver", "ok");
  await approveFactorList(prisma, compliance.actor, draft.id, "compliance", "ok");
  await activateFactorList(prisma, approver.actor, draft.id);
  base = await serve();
  dir = await mkdtemp(path.join(tmpdir(), "sy-cli-"));
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await prisma?.$disconnect();
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
});

describe("switchyard CLI", () => {
  it("answers a mistyped command with a suggestion and the usage, before asking for a key", async () => {
    const r = await cli(["aply", "-f", "x.yaml"], {});
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^switchyard: unknown command aply; did you mean apply\?\nusage:/);
  });

  it("names the URL and the cause when the server cannot be reached", async () => {
    const closed = createServer();
    const port = await new Promise<number>((resolve) => closed.listen(0, "127.0.0.1", () => resolve((closed.address() as AddressInfo).port)));
    await new Promise((resolve) => closed.close(resolve));
    const r = await cli(["export", "--url", `http://127.0.0.1:${port}`]);
    expect(r.stderr.trim()).toBe(`switchyard: cannot reach http://127.0.0.1:${port}/api/control/export: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it("dry run says what would happen, refusals included; apply of a refused bundle says nothing was written", async () => {
    const file = path.join(dir, "bundle.yaml");
    await writeFile(
      file,
      "apiVersion: switchyard/v1\nproviders:\n  - key: messagebird\n    displayName: MessageBird\n    regions: [EU]\n  - key: vonage\n    enabled: false\n",
    );
    const dry = await cli(["apply", "-f", file, "--dry-run"]);
    expect(dry.stdout).not.toMatch(/\bapplied\b/);
    expect(dry.stdout).toMatch(/^create +provider messagebird +would apply +regions EU/m);
    expect(dry.stdout).toMatch(/^update +provider vonage +refused +cannot disable provider vonage/m);
    expect(dry.stdout).toContain("dry run: 2 changes: would apply 1, would hold 0 for compliance, would put 0 factor lists in review, refused 1\n");
    expect([dry.status, dry.stderr]).toEqual([1, "switchyard: apply would be refused as a whole: fix the refused changes above\n"]);

    const applied = await cli(["apply", "-f", file]);
    expect(applied.status).toBe(1);
    expect(applied.stderr).toMatch(/^switchyard: 409 provider_in_use: the bundle was not applied and nothing was written: provider vonage: cannot disable/);
    expect(applied.stderr).toContain("  providers[vonage].enabled: named by");
    expect(await prisma.provider.findUnique({ where: { key: "messagebird" } })).toBeNull();
  });

  it("exports factor lists in reading order (operation, then Listing 1's fields) with a trailing newline", async () => {
    const r = await cli(["export"]);
    expect(r.status).toBe(0);
    expect(r.stdout.endsWith("\n")).toBe(true);
    const fields = [...r.stdout.matchAll(/^ {6}(\w+):/gm)].map((m) => m[1]);
    expect(fields.slice(0, 9)).toEqual([
      "operation",
      "providers",
      "refresh_interval_seconds",
      "metric_window_minutes",
      "min_sample_size",
      "fallback_policy",
      "gates",
      "scores",
      "safety",
    ]);
    const scores = r.stdout.slice(r.stdout.indexOf("      scores:"));
    expect([...scores.matchAll(/^ {8}(\w+):/gm)].map((m) => m[1]).slice(0, 5)).toEqual([
      "completion_rate_5m",
      "p95_latency_5m",
      "cost_per_request",
      "recent_incident_penalty",
      "confidence_from_sample",
    ]);
  });
});
