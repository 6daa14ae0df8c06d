import { request, type THttpResult } from "./http-client";

export type TLoadTarget = { name: string; url: string };

export type TLoadOptions = {
  targets: readonly TLoadTarget[];
  apiKey: string;
  /** Decide calls per second across all targets (each followed by one outcome). */
  rate: number;
  /** The mock providers' base URL: each selected provider is called and its result reported. */
  providersUrl: string;
  operation?: string;
  regions?: readonly string[];
  /** Flows in flight beyond this are not started (counted as shed), so a stalled server cannot exhaust the generator. */
  maxInFlight?: number;
  timeoutMs?: number;
};

/** A decision answered 200: it must be in the decision table once every spool has drained. */
export type TAcknowledged = { id: string; instance: string; atMs: number; durability: string };

export type TAcknowledgedOutcome = { decisionId: string; provider: string };

type TDecideAnswer = {
  decisionId: string;
  selected: string | null;
  degraded?: boolean;
  /** The failover order of the compact answer: the selected provider first. */
  order: Array<{ provider: string }>;
};

export type TPhaseStats = {
  decides: number;
  /** By HTTP status, or "connection" / "timeout" when there was no HTTP answer. */
  decideStatus: Record<string, number>;
  /** x-decision-durability of the 200 answers: committed, spooled, buffered, replayed. */
  durability: Record<string, number>;
  degraded: number;
  outcomes: number;
  outcomeStatus: Record<string, number>;
  decideLatencyMs: number[];
  shed: number;
};

function emptyPhase(): TPhaseStats {
  return { decides: 0, decideStatus: {}, durability: {}, degraded: 0, outcomes: 0, outcomeStatus: {}, decideLatencyMs: [], shed: 0 };
}

const bump = (m: Record<string, number>, k: string) => void (m[k] = (m[k] ?? 0) + 1);
const statusKey = (r: THttpResult) => (r.ok ? String(r.status) : r.error);

/**
 * Calls the selected provider; when it fails, the next one in the decision's failover order, as a
 * service with use_secondary_then_queue would. Returns the provider_call outcome of each call.
 */
async function callProviders(opts: TLoadOptions, d: TDecideAnswer): Promise<Array<Record<string, unknown>>> {
  const outcomes: Array<Record<string, unknown>> = [];
  const fallbacks = d.order.filter((c) => c.provider !== d.selected);
  for (const provider of [d.selected!, ...fallbacks.map((c) => c.provider)]) {
    const call = await request("POST", `${opts.providersUrl}/${encodeURIComponent(provider)}`, { body: "{}", timeoutMs: opts.timeoutMs });
    const success = call.ok && call.status === 200;
    outcomes.push({
      type: "provider_call",
      decisionId: d.decisionId,
      provider,
      status: success ? "success" : "failure",
      ...(success ? {} : call.ok ? { errorClass: "http_5xx", httpStatus: call.status } : { errorClass: "timeout" }),
      latencyMs: Math.round(call.ms * 10) / 10,
      retryCount: outcomes.length,
    });
    if (success) break;
  }
  return outcomes;
}

/** Sends a flow's outcomes as one batch to `to` and counts each item's answer. */
async function reportOutcomes(
  opts: TLoadOptions,
  to: TLoadTarget,
  headers: Record<string, string>,
  decisionId: string,
  outcomes: Array<Record<string, unknown>>,
  p: TPhaseStats,
  acknowledged: TAcknowledgedOutcome[],
): Promise<void> {
  const o = await request("POST", `${to.url}/api/v1/outcomes`, { body: JSON.stringify({ outcomes }), headers, timeoutMs: opts.timeoutMs });
  if (!o.ok || o.status !== 200) {
    p.outcomes += outcomes.length;
    for (let k = 0; k < outcomes.length; k++) bump(p.outcomeStatus, statusKey(o));
    return;
  }
  const results = (JSON.parse(o.body) as { results: Array<{ status: number }> }).results;
  results.forEach((r, k) => {
    p.outcomes++;
    bump(p.outcomeStatus, String(r.status));
    if (r.status === 201 || r.status === 202) acknowledged.push({ decisionId, provider: outcomes[k]!.provider as string });
  });
}

/**
 * An open-loop load generator on loopback: `rate` flows per second, each one decide (round robin
 * over the targets), a call to the mock provider it selected (and, when that fails, to the next
 * eligible one), and the provider_call outcomes as one batch sent to the next instance (as a load balancer would spread them, so outcomes often reach an instance
 * that did not make the decision). Open loop: a slow or dead server does not slow the offered
 * load down. Statistics are kept per phase, the phase being the one current when a flow started.
 */
export function startLoad(opts: TLoadOptions) {
  const operation = opts.operation ?? "SEND_SMS";
  const regions = opts.regions ?? ["EU", "NA", "APAC", "LATAM"];
  const maxInFlight = opts.maxInFlight ?? 2_000;
  const headers = { authorization: `Bearer ${opts.apiKey}` };
  const t0 = performance.now();
  const phases = new Map<string, TPhaseStats>();
  const acknowledged: TAcknowledged[] = [];
  /** Outcomes acknowledged (201 stored, 202 spooled), by decision and provider. */
  const outcomesAcknowledged: TAcknowledgedOutcome[] = [];
  const lastOk = new Map<string, number>();
  let phase = "warm-up";
  let stats = emptyPhase();
  phases.set(phase, stats);
  let started = 0;
  let inFlight = 0;
  let stopped = false;
  let idle: (() => void) | null = null;
  const prefix = `load-${Date.now().toString(36)}`;

  async function flow(i: number, p: TPhaseStats): Promise<void> {
    const target = opts.targets[i % opts.targets.length]!;
    const body = `{"operation":"${operation}","region":"${regions[i % regions.length]}","requestId":"${prefix}-${i}"}`;
    const r = await request("POST", `${target.url}/api/v1/decide`, { body, headers, timeoutMs: opts.timeoutMs });
    p.decides++;
    bump(p.decideStatus, statusKey(r));
    p.decideLatencyMs.push(r.ms);
    if (!r.ok || r.status !== 200) return;
    const d = JSON.parse(r.body) as TDecideAnswer;
    const durability = String(r.headers["x-decision-durability"] ?? "unknown");
    bump(p.durability, durability);
    if (d.degraded) p.degraded++;
    const atMs = performance.now() - t0;
    acknowledged.push({ id: d.decisionId, instance: target.name, atMs, durability });
    lastOk.set(target.name, atMs);
    if (!d.selected) return;

    const outcomes = await callProviders(opts, d);
    const to = opts.targets[(i + 1) % opts.targets.length]!;
    await reportOutcomes(opts, to, headers, d.decisionId, outcomes, p, outcomesAcknowledged);
  }

  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - t0) / 1000) * opts.rate);
    while (started < due) {
      const i = started++;
      if (inFlight >= maxInFlight) {
        stats.shed++;
        continue;
      }
      inFlight++;
      void flow(i, stats).finally(() => {
        inFlight--;
        if (inFlight === 0 && idle) idle();
      });
    }
  }, 5);

  return {
    /** Flows started from now on count under `name`. */
    phase(name: string): void {
      phase = name;
      stats = phases.get(name) ?? emptyPhase();
      phases.set(name, stats);
    },
    get currentPhase(): string {
      return phase;
    },
    get elapsedMs(): number {
      return performance.now() - t0;
    },
    /** When a target last answered a decide with 200 (ms since the load started), for recovery checks. */
    lastOkAt(target: string): number | null {
      return lastOk.get(target) ?? null;
    },
    phases,
    acknowledged,
    outcomesAcknowledged,
    /** Stops starting flows and waits for those in flight. */
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
    },
  };
}

export type Load = ReturnType<typeof startLoad>;
