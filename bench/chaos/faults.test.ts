import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminDatabaseUrl } from "../../test/support/database";
import { instanceKillOn } from "./instance-kill";
import { PROPAGATION_ENV, propagationOn } from "./propagation";
import type { TFaultReport } from "./report";
import { startScenario, type TScenario } from "./scenario";

/**
 * Quick versions of `npm run chaos:propagation` and `npm run chaos:instance-kill` on two real
 * server.ts processes sharing one database of the suite's server. Invariants are asserted;
 * timings are printed, never asserted.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
let s: TScenario | null = null;

beforeAll(async () => {
  s = await startScenario({ dir: ROOT, serverUrl: adminDatabaseUrl(), env: PROPAGATION_ENV, instances: 2 });
}, 180_000);

afterAll(async () => {
  await s?.close();
}, 60_000);

const broken = (r: TFaultReport) => (r.invariants ?? []).filter((i) => !i.ok).map((i) => `${i.label}: ${i.detail ?? ""}`);
const printed = (r: TFaultReport, pick: (label: string) => boolean) =>
  r.figures
    .filter((f) => pick(f.label))
    .map((f) => `${f.label} ${f.value ?? "-"} ${f.unit}`)
    .join("; ");

describe("faults on two server processes", () => {
  it("a kill switch and a provider kill set on instance 1's side reach instance 2's decisions, and their end does too (5 trials each)", async () => {
    const r = await propagationOn(s!, { trials: 5, rate: 0, trialTimeoutMs: 35_000 });
    process.stdout.write(`override propagation: ${printed(r, (l) => l.startsWith("all trials"))}\n`);
    expect(broken(r)).toEqual([]);
  }, 120_000);

  it("SIGKILL of one instance under load loses no acknowledged decision or outcome", async () => {
    const r = await instanceKillOn(s!, { rate: 40, steadySeconds: 3, downSeconds: 2, afterSeconds: 0, restart: false });
    process.stdout.write(`instance kill: ${printed(r, (l) => l.startsWith("acknowledged") || l.startsWith("answered"))}\n`);
    expect(broken(r)).toEqual([]);
    const checked = r.figures.find((f) => f.label === "acknowledged decisions checked")!.value!;
    expect(checked).toBeGreaterThan(0);
  }, 180_000);
});
