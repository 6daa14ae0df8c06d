import { randomBytes } from "node:crypto";
import type { TActor } from "../../lib/audit/actor";
import { createAdmin } from "../../lib/controlplane/users/create-admin";
import { createOverride, type TCreateOverrideBody } from "../../lib/controlplane/overrides/create-override";
import { endOverride } from "../../lib/controlplane/overrides/end-override";
import { quantile } from "../lib/bench-results";
import { request } from "./http-client";
import type { AppInstance } from "./instances";
import { startLoad, type Load } from "./load";
import { figure, phaseTable, serverErrorInvariant, type TFaultReport } from "./report";
import { startScenario, type TScenario } from "./scenario";

export type TPropagationOptions = {
  dir: string;
  /** Trials per override kind (each: set, wait until instance 2 reflects it, end, wait until it no longer does). */
  trials: number;
  /** Background decide + outcome load across both instances while measuring (0: none). */
  rate: number;
  /** A trial whose change has not reached instance 2 after this long counts as never propagated. */
  trialTimeoutMs: number;
  serverUrl?: string;
  log?: (line: string) => void;
};

type TDecisionBody = { override: string; candidates: Array<{ provider: string; gates: Array<{ gate: string; passed: boolean }> }> };

type TKind = {
  name: string;
  body: TCreateOverrideBody;
  /** Whether a decision of instance 2 reflects the override. */
  reflects: (d: TDecisionBody) => boolean;
};

const KINDS: TKind[] = [
  {
    name: "kill switch (SEND_SMS adaptive routing off)",
    body: { kind: "routing_kill_switch", operationKey: "SEND_SMS", reason: "chaos:propagation trial" },
    reflects: (d) => d.override === "routing_killed",
  },
  {
    name: "provider kill (provider_A for SEND_SMS)",
    body: { kind: "provider_kill", providerKey: "provider_A", operationKey: "SEND_SMS", reason: "chaos:propagation trial" },
    reflects: (d) => d.candidates.some((c) => c.provider === "provider_A" && c.gates.some((g) => g.gate === "not_killed" && !g.passed)),
  },
];

/**
 * Decides on `inst` back to back until `want(decision)` holds; returns how long that took from
 * `since` and how many decides it needed. A decide's round trip is the resolution.
 */
async function until(inst: AppInstance, apiKey: string, want: (d: TDecisionBody) => boolean, since: number, timeoutMs: number, prefix: string) {
  let n = 0;
  for (;;) {
    const r = await request("POST", `${inst.url}/api/v1/decide`, {
      body: `{"operation":"SEND_SMS","region":"EU","requestId":"${prefix}-${n++}","explain":"full"}`,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    if (r.ok && r.status === 200 && want(JSON.parse(r.body) as TDecisionBody)) return { ms: performance.now() - since, decides: n };
    if (r.ok && r.status !== 200) throw new Error(`decide on ${inst.name} answered ${r.status}: ${r.body.slice(0, 300)}`);
    if (performance.now() - since > timeoutMs) return null;
  }
}

/**
 * Overrides set through the control plane's own function (what instance 1's console route runs:
 * createOverride commits the row, its audit entry and a NOTIFY in one transaction) and the time
 * until instance 2, another process, answers decides that reflect them; then the same for ending
 * them. Polling is slowed to 30 s on both instances so only LISTEN/NOTIFY can deliver in time.
 */
export async function runPropagation(o: TPropagationOptions): Promise<TFaultReport> {
  const s = await startScenario({ dir: o.dir, serverUrl: o.serverUrl, env: PROPAGATION_ENV, log: o.log });
  try {
    return await propagationOn(s, o);
  } finally {
    await s.close();
  }
}

/** Instances for propagationOn: polling slowed so that only LISTEN/NOTIFY can deliver within the target. */
export const PROPAGATION_ENV = { CONFIG_POLL_MS: "30000" };

/** The trials on running instances started with PROPAGATION_ENV (overrides on instance 1's side, decides on instance 2). */
/** An override left active would make the next trial's create a 409: ending it is retried. */
async function endOverrideWithRetry(s: TScenario, actor: TActor, id: string, controlErrors: string[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await endOverride(s.prisma, actor, id, "chaos:propagation trial over");
      return;
    } catch (err) {
      controlErrors.push((err as Error).message.split("\n").filter(Boolean).at(-1) ?? String(err));
      if (attempt === 5) throw err;
    }
  }
}

export async function propagationOn(s: TScenario, o: Omit<TPropagationOptions, "dir" | "serverUrl">): Promise<TFaultReport> {
  const log = o.log ?? (() => {});
  let load: Load | null = null;
  try {
    const password = randomBytes(18).toString("base64url");
    const admin = await createAdmin(s.prisma, { email: `chaos-admin-${randomBytes(4).toString("hex")}@example.com`, password });
    const actor: TActor = { userId: admin.id, label: admin.email, ip: "127.0.0.1" };
    const [, two] = s.instances as [AppInstance, AppInstance];
    load = o.rate > 0 ? startLoad({ targets: s.instances, apiKey: s.apiKey, rate: o.rate, providersUrl: s.providers.url }) : null;
    load?.phase("background load during the trials");

    const controlErrors: string[] = [];
    const endWithRetry = (id: string) => endOverrideWithRetry(s, actor, id, controlErrors);
    const rows: Array<Array<string | number | null>> = [];
    const figures = [];
    let never = 0;
    let trialNo = 0;
    const sets: number[] = [];
    for (const kind of KINDS) {
      const set: number[] = [];
      const setFromCommit: number[] = [];
      const ended: number[] = [];
      const decides: number[] = [];
      log(`${o.trials} trials: ${kind.name}`);
      for (let t = 0; t < o.trials; t++) {
        const prefix = `prop-${trialNo++}-${Date.now().toString(36)}`;
        const t0 = performance.now();
        let created: { id: string };
        try {
          created = await createOverride(s.prisma, actor, kind.body);
        } catch (err) {
          // The control plane refused or failed (e.g. its transaction timed out on a starved machine): nothing was set.
          controlErrors.push((err as Error).message.split("\n").filter(Boolean).at(-1) ?? String(err));
          continue;
        }
        const committed = performance.now();
        const on = await until(two, s.apiKey, kind.reflects, t0, o.trialTimeoutMs, `${prefix}-on`);
        const t1 = performance.now();
        await endWithRetry(created.id);
        const off = await until(two, s.apiKey, (d) => !kind.reflects(d), t1, o.trialTimeoutMs, `${prefix}-off`);
        if (!on || !off) {
          never++;
          // Let a late notice land before the next trial, so trials stay independent.
          await until(two, s.apiKey, (d) => !kind.reflects(d), performance.now(), 30_000, `${prefix}-settle`);
          continue;
        }
        set.push(on.ms);
        setFromCommit.push(on.ms - (committed - t0));
        ended.push(off.ms);
        decides.push(on.decides);
      }
      sets.push(...set);
      const sorted = (xs: number[]) => Float64Array.from(xs).sort();
      const q = (xs: number[], p: number) => quantile(sorted(xs), p);
      const r1 = (n: number) => Math.round(n * 10) / 10;
      rows.push([
        kind.name,
        set.length,
        r1(q(set, 0.5)),
        r1(q(set, 0.99)),
        r1(Math.max(...set)),
        r1(q(setFromCommit, 0.5)),
        r1(q(setFromCommit, 0.99)),
        r1(q(ended, 0.5)),
        r1(q(ended, 0.99)),
        r1(q(decides, 0.5)),
      ]);
      const short = kind.body.kind === "routing_kill_switch" ? "kill switch" : "provider kill";
      figures.push(
        figure(`${short}: set → instance 2 reflects it, p50`, q(set, 0.5), "ms"),
        figure(`${short}: set → instance 2 reflects it, p99`, q(set, 0.99), "ms", "< 1000"),
        figure(`${short}: end → instance 2 no longer reflects it, p99`, q(ended, 0.99), "ms", "< 1000"),
      );
    }
    await load?.stop();
    const all = Float64Array.from(sets).sort();
    return {
      parameters: { trialsPerKind: o.trials, backgroundRate: o.rate, configPollMs: 30000, instances: s.instances.length },
      figures: [
        figure("all trials: p50", quantile(all, 0.5), "ms"),
        figure("all trials: p99", quantile(all, 0.99), "ms", "< 1000"),
        ...figures,
        figure("control-plane calls that failed (trial skipped or end retried)", controlErrors.length, "calls"),
      ],
      tables: [
        {
          title: "override propagation, instance 1's control path → instance 2's decisions (ms; from the call to createOverride unless noted)",
          columns: ["override", "trials", "set p50", "set p99", "set max", "from commit p50", "from commit p99", "end p50", "end p99", "decides polled p50"],
          rows,
        },
        ...(load ? [phaseTable(load.phases)] : []),
      ],
      invariants: [
        {
          label: `every override reached instance 2 within ${o.trialTimeoutMs} ms`,
          ok: never === 0,
          detail: `${never} of ${o.trials * KINDS.length} trials did not`,
        },
        ...(load ? [serverErrorInvariant(load.phases)] : []),
      ],
      notes: [
        ...[...new Set(controlErrors)].slice(0, 3).map((e) => `control-plane error: ${e}`),
        "Instances run data plane only (no console), so the trials call lib/controlplane's createOverride/endOverride, the functions the console's override routes run, against the shared database.",
        "Resolution: one decide round trip on instance 2 (sync durability, so each includes its decision's commit).",
      ],
    };
  } finally {
    await load?.stop();
  }
}
