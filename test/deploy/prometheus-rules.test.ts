import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile, copyFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

/**
 * Issue 38 item 4: the shipped alert rules load in Prometheus and behave as their unit tests say
 * (promtool from Debian's prometheus package, which .ci/run installs); every alert pages with a
 * severity, a summary and a description, and is tested both firing and staying silent.
 */
const DIR = path.join(process.cwd(), "deploy", "prometheus");
const RULES = path.join(DIR, "switchyard-alerts.yml");

type TRule = { alert: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
type TCase = { alertname: string; exp_alerts: unknown[] };

function promtool(args: string[], cwd = DIR): string {
  try {
    return execFileSync("promtool", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`promtool ${args.join(" ")} failed:\n${e.stdout ?? ""}${e.stderr ?? e.message}`);
  }
}

async function rules(): Promise<TRule[]> {
  const doc = parse(await readFile(RULES, "utf8")) as { groups: Array<{ rules: TRule[] }> };
  return doc.groups.flatMap((g) => g.rules);
}

describe("deploy/prometheus alert rules", () => {
  it("pass promtool check rules", () => {
    expect(promtool(["check", "rules", "switchyard-alerts.yml"])).toMatch(/SUCCESS: 8 rules found/);
  });

  it("pass their promtool unit tests", () => {
    expect(promtool(["test", "rules", "switchyard-alerts.test.yml"])).toContain("SUCCESS");
  });

  it("cover breaker, share shift, decision-log backlog, spools, controller and quota, each with for, severity and annotations", async () => {
    const all = await rules();
    const names = all.map((r) => r.alert);
    for (const metric of [
      "switchyard_breaker_state",
      "switchyard_traffic_share",
      "switchyard_decision_log_queue_depth",
      "switchyard_decision_log_spool_bytes",
      "switchyard_outcome_spool_bytes",
      "switchyard_controller_last_tick_age_seconds",
      "switchyard_controller_leader",
      "switchyard_quota_spent",
    ]) {
      expect([metric, all.some((r) => r.expr.includes(metric))]).toEqual([metric, true]);
    }
    for (const r of all) {
      expect([r.alert, r.for]).toEqual([r.alert, expect.stringMatching(/^\d+m$/)]);
      expect([r.alert, r.labels?.severity]).toEqual([r.alert, expect.stringMatching(/^(critical|warning)$/)]);
      expect([r.alert, r.annotations?.summary, r.annotations?.description]).toEqual([r.alert, expect.any(String), expect.any(String)]);
    }
    const tests = parse(await readFile(path.join(DIR, "switchyard-alerts.test.yml"), "utf8")) as { tests: Array<{ alert_rule_test: TCase[] }> };
    const cases = tests.tests.flatMap((t) => t.alert_rule_test);
    for (const name of names) {
      const mine = cases.filter((c) => c.alertname === name);
      expect([name, mine.some((c) => c.exp_alerts.length > 0), mine.some((c) => c.exp_alerts.length === 0)]).toEqual([name, true, true]);
    }
  });

  it("ship a scrape config that Prometheus accepts, sending a bearer key to /api/v1/metrics", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "switchyard-prom-"));
    try {
      const text = await readFile(path.join(DIR, "prometheus.example.yml"), "utf8");
      const job = (parse(text) as { scrape_configs: Array<Record<string, unknown>> }).scrape_configs[0]!;
      expect(job).toMatchObject({ metrics_path: "/api/v1/metrics", authorization: { type: "Bearer", credentials_file: expect.any(String) } });
      // The key file must exist for promtool; the example's path is the operator's.
      const keyFile = path.join(dir, "metrics.key");
      await writeFile(keyFile, "sy_example\n");
      await writeFile(path.join(dir, "prometheus.yml"), text.replace(String((job.authorization as { credentials_file: string }).credentials_file), keyFile));
      await copyFile(RULES, path.join(dir, "switchyard-alerts.yml"));
      expect(promtool(["check", "config", "prometheus.yml"], dir)).toContain("SUCCESS");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
