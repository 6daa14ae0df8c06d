import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createApiKey } from "../../lib/controlplane/api-keys/create-api-key";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { createTelemetryDatabase } from "../support/telemetry-fixtures";
import { callInstance, gauge, startServerInstance, type TServerInstance } from "../support/server-instances";

/**
 * Issue 38 item 4: the alert rules and the Grafana dashboard under deploy/ name only series and
 * labels that a real server's /api/v1/metrics exposes, so they cannot drift from the code. The
 * server is scraped as the example scrape config does: a bearer key with the metrics scope.
 */
const BOOTSTRAP = "metrics-drift-key";
/** Labels Prometheus adds to every scraped series, not the exposition. */
const TARGET_LABELS = new Set(["instance", "job"]);
let env: Awaited<ReturnType<typeof createTelemetryDatabase>>;
let spoolRoot: string;
let inst: TServerInstance;
let exposition: string;
let selected: string;

beforeAll(async () => {
  env = await createTelemetryDatabase();
  await env.prisma.provider.update({
    where: { key: "provider_A" },
    data: { quotas: [{ unit: "requests", limit: 1000, windowSeconds: 3_600, reset: "fixed" }] },
  });
  const { key } = await createApiKey(env.prisma, SYSTEM_ACTOR, { name: "prometheus", scopes: ["metrics"], operationKeys: [] });
  spoolRoot = await mkdtemp(path.join(tmpdir(), "switchyard-drift-"));
  inst = await startServerInstance({ name: "drift", databaseUrl: env.db.url, apiKey: BOOTSTRAP, spoolRoot });
  // A decision and its outcome, so the decision, outcome, breaker and quota families have series.
  const d = await callInstance(inst, BOOTSTRAP, "POST", "/api/v1/decide", { operation: "SEND_SMS", region: "EU", requestId: "drift-1" });
  const provider = d.body.selected;
  selected = provider;
  const outcome = { type: "provider_call", decisionId: d.body.decisionId, provider, status: "success", latencyMs: 5, retryCount: 0 };
  expect((await callInstance(inst, BOOTSTRAP, "POST", "/api/v1/outcomes", { outcomes: [outcome] })).body.recorded).toBe(1);
  const res = await fetch(`${inst.url}/api/v1/metrics`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  exposition = await res.text();
}, 120_000);

afterAll(async () => {
  if (inst?.child.exitCode === null) {
    inst.child.kill("SIGTERM");
    await new Promise((r) => inst.child.once("exit", r));
  }
  await env?.close();
  await rm(spoolRoot, { recursive: true, force: true });
});

/** Series name → the label names its samples carry in the exposition. */
function exposedLabels(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? /.exec(line);
    if (!m) continue;
    const set = out.get(m[1]!) ?? new Set<string>();
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_]\w*)="/g)) set.add(l[1]!);
    out.set(m[1]!, set);
  }
  return out;
}

/** The series names and label names one PromQL expression (with its legend or annotations) uses. */
function used(expr: string, templates: string): { metrics: string[]; labels: string[] } {
  const metrics = [...new Set(expr.match(/\bswitchyard_\w+/g) ?? [])];
  const labels = new Set<string>();
  for (const m of expr.matchAll(/\b(?:by|on|without|ignoring)\s*\(([^)]*)\)/g)) for (const l of m[1]!.split(",")) if (l.trim()) labels.add(l.trim());
  for (const m of expr.matchAll(/\{([^}]*)\}/g)) for (const l of m[1]!.matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)) labels.add(l[1]!);
  for (const m of templates.matchAll(/(?:\$labels\.|\{\{\s*)([a-zA-Z_]\w*)/g)) labels.add(m[1]!);
  return { metrics, labels: [...labels].filter((l) => !TARGET_LABELS.has(l)) };
}

async function expressions(): Promise<Array<{ where: string; expr: string; templates: string }>> {
  const rules = parse(await readFile("deploy/prometheus/switchyard-alerts.yml", "utf8")) as {
    groups: Array<{ rules: Array<{ alert: string; expr: string; annotations: Record<string, string> }> }>;
  };
  const dashboard = JSON.parse(await readFile("deploy/grafana/switchyard-dashboard.json", "utf8")) as {
    panels: Array<{ title: string; targets: Array<{ expr: string; legendFormat?: string }> }>;
    templating: { list: Array<{ name: string; definition?: string }> };
  };
  return [
    ...rules.groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr, templates: Object.values(r.annotations).join(" ") }))),
    ...dashboard.panels.flatMap((p) => p.targets.map((t) => ({ where: `panel ${p.title}`, expr: t.expr, templates: t.legendFormat ?? "" }))),
    ...dashboard.templating.list
      .filter((v) => v.definition)
      .map((v) => ({ where: `variable ${v.name}`, expr: v.definition!.replace(/,\s*(\w+)\)/, " by ($1)"), templates: "" })),
  ];
}

describe("deploy/ rules and dashboard against a real /api/v1/metrics", () => {
  it("use only series and labels the server exposes", async () => {
    const exposed = exposedLabels(exposition);
    const all = await expressions();
    expect(all.length).toBeGreaterThan(15);
    for (const { where, expr, templates } of all) {
      const u = used(expr, templates);
      expect([where, u.metrics.length > 0]).toEqual([where, true]);
      for (const m of u.metrics) expect([where, m, exposed.has(m)]).toEqual([where, m, true]);
      for (const l of u.labels) {
        const carriers = u.metrics.filter((m) => exposed.get(m)?.has(l));
        expect([where, l, carriers.length > 0]).toEqual([where, l, true]);
      }
    }
  });

  it("gives each quota's limit and this instance's spend in its window, and the decision spool's bytes", () => {
    const q = '{provider="provider_A",unit="requests",window_seconds="3600"}';
    expect(gauge(exposition, `switchyard_quota_limit${q}`)).toBe(1000);
    expect(gauge(exposition, `switchyard_quota_spent${q}`)).toBe(selected === "provider_A" ? 1 : 0);
    expect(gauge(exposition, "switchyard_decision_log_spool_bytes")).toBe(0);
  });

  it("is an exposition promtool check metrics accepts", () => {
    const r = spawnSync("promtool", ["check", "metrics"], { input: exposition, encoding: "utf8" });
    expect([r.status, r.stdout + r.stderr]).toEqual([0, ""]);
  });
});
