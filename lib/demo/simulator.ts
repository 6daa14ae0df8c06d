import { randomBytes } from "node:crypto";
import { effectOf, type TFault } from "./fault-model";
import { simulateCall, simulateFlow } from "./provider-model";
import type { TErrorDetail } from "../http";

/**
 * Synthetic services calling Switchyard the way a real integration does: POST /api/v1/decide,
 * call the provider it picked (here: a model of that provider, with the chaos panel's faults
 * applied), then POST /api/v1/outcomes with the provider call and the business outcome. Execute
 * operations (LLM_CHAT) go through POST /api/v1/execute instead: Switchyard calls the provider
 * itself (in demo mode, the demo LLM providers of llm-providers.ts) and records the call's
 * outcome; the service reports only the business outcome. Only the public HTTP API is used, so
 * nothing in Switchyard can tell this traffic from a real service's.
 */
export type TWeighted = { key: string; weight: number };

export const DEFAULT_OPERATIONS: readonly TWeighted[] = [
  { key: "SEND_SMS", weight: 0.65 },
  { key: "SEND_EMAIL", weight: 0.25 },
  { key: "LLM_CHAT", weight: 0.1 },
];

/** Operations whose calls go through execute mode rather than decide + the service's own call. */
export const DEFAULT_EXECUTE_OPERATIONS: readonly string[] = ["LLM_CHAT"];
export const DEFAULT_REGIONS: readonly TWeighted[] = [
  { key: "EU", weight: 0.5 },
  { key: "NA", weight: 0.3 },
  { key: "APAC", weight: 0.2 },
];

export type TSimulatorOptions = {
  /** Switchyard's base URL, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  /** Bearer key for the data plane; not needed in demo mode. */
  apiKey?: string;
  /** Decide calls per second. */
  rate: number;
  operations?: readonly TWeighted[];
  executeOperations?: readonly string[];
  regions?: readonly TWeighted[];
  random?: () => number;
  now?: () => number;
  /** Above this many unanswered decide calls the simulator skips beats instead of piling up sockets. */
  maxInFlight?: number;
  log?: (line: string) => void;
};

export type TSimulatorStats = {
  decided: number;
  decideErrors: number;
  outcomesSent: number;
  outcomeErrors: number;
  skipped: number;
  selected: Record<string, number>;
};

const BEAT_MS = 50;
const FLUSH_MS = 250;
const MAX_BATCH = 1_000;
const ERROR_LOG_EVERY_MS = 10_000;

/** 422 `invalid` naming the operation: this database does not route it. */
function unknownOperation(status: number, body: { error?: TErrorDetail } | null): boolean {
  return status === 422 && body?.error?.code === "invalid" && (body.error.fields ?? []).some((f) => f.path === "operation");
}

function pick(list: readonly TWeighted[], random: () => number): string {
  const total = list.reduce((s, w) => s + w.weight, 0);
  let r = random() * total;
  for (const w of list) {
    r -= w.weight;
    if (r < 0) return w.key;
  }
  return list[list.length - 1]!.key;
}

export function createSimulator(opts: TSimulatorOptions) {
  if (!(opts.rate > 0) || !Number.isFinite(opts.rate)) throw new RangeError(`rate must be a positive number of requests per second, got ${opts.rate}`);
  const now = opts.now ?? Date.now;
  const sim: TSim = {
    rate: opts.rate,
    random: opts.random ?? Math.random,
    now,
    log: opts.log ?? (() => {}),
    maxInFlight: opts.maxInFlight ?? 64,
    base: opts.baseUrl.replace(/\/$/, ""),
    headers: { "content-type": "application/json", ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) },
    regions: opts.regions ?? DEFAULT_REGIONS,
    operations: [...(opts.operations ?? DEFAULT_OPERATIONS)],
    executeOperations: new Set(opts.executeOperations ?? DEFAULT_EXECUTE_OPERATIONS),
    runId: randomBytes(4).toString("hex"),
    faults: [],
    outcomes: [],
    seq: 0,
    credit: 0,
    lastBeat: now(),
    inFlight: 0,
    flushing: null,
    pending: new Set(),
    lastErrorLog: new Map(),
    stats: { decided: 0, decideErrors: 0, outcomesSent: 0, outcomeErrors: 0, skipped: 0, selected: {} },
  };
  let beat: ReturnType<typeof setInterval> | null = null;
  let flusher: ReturnType<typeof setInterval> | null = null;

  return {
    start(): void {
      if (beat) return;
      sim.lastBeat = now();
      beat = setInterval(() => onBeat(sim), BEAT_MS);
      flusher = setInterval(() => void flush(sim), FLUSH_MS);
    },
    /** Stops sending, waits for the calls in flight and reports their outcomes. */
    async stop(): Promise<void> {
      if (beat) clearInterval(beat);
      if (flusher) clearInterval(flusher);
      beat = flusher = null;
      await Promise.allSettled([...sim.pending]);
      await flush(sim);
    },
    /** Replaces the fault list (the chaos panel's table is the source of truth in the demo). */
    setFaults(list: readonly TFault[]): void {
      sim.faults = [...list];
    },
    inject(fault: TFault): void {
      sim.faults = [...sim.faults.filter((f) => f.id !== fault.id), fault];
    },
    endFault(id: string, at = now()): void {
      sim.faults = sim.faults.map((f) => (f.id === id ? { ...f, endsAt: Math.min(f.endsAt, at) } : f));
    },
    faults: (): readonly TFault[] => sim.faults,
    stats: (): TSimulatorStats => ({ ...sim.stats, selected: { ...sim.stats.selected } }),
  };
}

/** A simulator's settings and running state. */
type TSim = {
  rate: number;
  random: () => number;
  now: () => number;
  log: (line: string) => void;
  maxInFlight: number;
  base: string;
  headers: Record<string, string>;
  regions: readonly TWeighted[];
  operations: TWeighted[];
  executeOperations: Set<string>;
  runId: string;
  faults: TFault[];
  /** Outcomes not yet sent. */
  outcomes: unknown[];
  seq: number;
  /** Calls owed: accrues with wall time at `rate` per second. */
  credit: number;
  lastBeat: number;
  inFlight: number;
  flushing: Promise<void> | null;
  pending: Set<Promise<void>>;
  lastErrorLog: Map<string, number>;
  stats: TSimulatorStats;
};

function logError(sim: TSim, key: string, line: string): void {
  const t = sim.now();
  if ((sim.lastErrorLog.get(key) ?? 0) + ERROR_LOG_EVERY_MS > t) return;
  sim.lastErrorLog.set(key, t);
  sim.log(line);
}

function dropOperation(sim: TSim, operation: string, why: string): void {
  sim.operations = sim.operations.filter((o) => o.key !== operation);
  sim.log(`simulator: ${operation} ${why}; simulating ${sim.operations.map((o) => o.key).join(", ")} only`);
}

async function executeOnce(sim: TSim, operation: string, region: string, requestId: string): Promise<void> {
  const input = { messages: [{ role: "user", content: `[${region}] Summarise support ticket #${sim.seq} in one line.` }], maxTokens: 64 };
  const res = await fetch(`${sim.base}/api/v1/execute/${encodeURIComponent(operation)}`, {
    method: "POST",
    headers: sim.headers,
    body: JSON.stringify({ region, requestId, input }),
  });
  const body = (await res.json().catch(() => null)) as {
    decisionId?: string;
    provider?: string;
    attempts?: Array<{ called?: boolean; latencyMs?: number }>;
    error?: TErrorDetail;
  } | null;
  if (unknownOperation(res.status, body) && sim.operations.length > 1) return dropOperation(sim, operation, "is not configured");
  if (res.status !== 200 || !body?.decisionId || !body.provider) {
    // No provider was even called: this server has no credentials for them (not demo mode).
    if (body?.attempts && body.attempts.length > 0 && body.attempts.every((a) => a.called === false) && sim.operations.length > 1) {
      return dropOperation(sim, operation, "has no provider this server can call");
    }
    sim.stats.decideErrors++;
    logError(sim, `execute-${res.status}`, `simulator: execute answered ${res.status} ${JSON.stringify(body?.error ?? body)}`);
    return;
  }
  sim.stats.decided++;
  sim.stats.selected[body.provider] = (sim.stats.selected[body.provider] ?? 0) + 1;
  // The user waited for every attempt, failed ones included.
  const latencyMs = (body.attempts ?? []).reduce((sum, a) => sum + (a.latencyMs ?? 0), 0);
  const flow = simulateFlow(body.provider, effectOf(sim.faults, body.provider, region, sim.now()), sim.random, latencyMs);
  sim.outcomes.push({
    type: "business",
    decisionId: body.decisionId,
    provider: body.provider,
    completed: flow.completed,
    ...(flow.failureStage ? { failureStage: flow.failureStage } : {}),
    withinSla: flow.withinSla,
  });
  if (sim.outcomes.length >= MAX_BATCH) void flush(sim);
}

async function decideOnce(sim: TSim): Promise<void> {
  const { stats } = sim;
  const operation = pick(sim.operations, sim.random);
  const region = pick(sim.regions, sim.random);
  const requestId = `sim-${sim.runId}-${++sim.seq}`;
  if (sim.executeOperations.has(operation)) return executeOnce(sim, operation, region, requestId);
  const res = await fetch(`${sim.base}/api/v1/decide`, { method: "POST", headers: sim.headers, body: JSON.stringify({ operation, region, requestId }) });
  const body = (await res.json().catch(() => null)) as { decisionId?: string; selected?: string | null; error?: TErrorDetail } | null;
  if (unknownOperation(res.status, body) && sim.operations.length > 1) {
    // A database without this operation (e.g. not seeded in demo mode): keep simulating the others.
    return dropOperation(sim, operation, "is not configured");
  }
  if (res.status !== 200 || !body?.decisionId) {
    stats.decideErrors++;
    logError(sim, `decide-${res.status}`, `simulator: decide answered ${res.status} ${JSON.stringify(body?.error ?? body)}`);
    return;
  }
  stats.decided++;
  const provider = body.selected;
  // The fallback policy answered: the service queues the message; nothing reached a provider.
  if (!provider) return;
  stats.selected[provider] = (stats.selected[provider] ?? 0) + 1;
  const call = simulateCall(provider, effectOf(sim.faults, provider, region, sim.now()), sim.random);
  const { decisionId } = body;
  sim.outcomes.push(
    {
      type: "provider_call",
      decisionId,
      provider,
      status: call.status,
      ...(call.errorClass ? { errorClass: call.errorClass } : {}),
      ...(call.httpStatus ? { httpStatus: call.httpStatus } : {}),
      latencyMs: call.latencyMs,
      retryCount: 0,
    },
    { type: "business", decisionId, completed: call.completed, ...(call.failureStage ? { failureStage: call.failureStage } : {}), withinSla: call.withinSla },
  );
  if (sim.outcomes.length >= MAX_BATCH) void flush(sim);
}

async function sendBatch(sim: TSim, batch: unknown[]): Promise<void> {
  const { stats } = sim;
  try {
    const res = await fetch(`${sim.base}/api/v1/outcomes`, { method: "POST", headers: sim.headers, body: JSON.stringify({ outcomes: batch }) });
    if (res.status >= 300) {
      stats.outcomeErrors += batch.length;
      logError(sim, `outcomes-${res.status}`, `simulator: outcomes answered ${res.status} ${await res.text().catch(() => "")}`);
      return;
    }
    const body = (await res.json()) as { rejected?: number };
    stats.outcomeErrors += body.rejected ?? 0;
    stats.outcomesSent += batch.length - (body.rejected ?? 0);
  } catch (err) {
    stats.outcomeErrors += batch.length;
    logError(sim, "outcomes-network", `simulator: outcomes failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function flush(sim: TSim): Promise<void> {
  if (sim.flushing) return sim.flushing;
  sim.flushing = (async () => {
    while (sim.outcomes.length > 0) {
      const batch = sim.outcomes.slice(0, MAX_BATCH);
      sim.outcomes = sim.outcomes.slice(batch.length);
      await sendBatch(sim, batch);
    }
  })().finally(() => {
    sim.flushing = null;
  });
  return sim.flushing;
}

function onBeat(sim: TSim): void {
  const t = sim.now();
  // Credits accrue with wall time, so a late timer catches up instead of lowering the rate; capped at one second's worth.
  sim.credit = Math.min(sim.rate, sim.credit + (sim.rate * (t - sim.lastBeat)) / 1000);
  sim.lastBeat = t;
  while (sim.credit >= 1) {
    sim.credit -= 1;
    if (sim.inFlight >= sim.maxInFlight) {
      sim.stats.skipped++;
      continue;
    }
    sim.inFlight++;
    const p = decideOnce(sim)
      .catch((err: unknown) => {
        sim.stats.decideErrors++;
        logError(sim, "decide-network", `simulator: decide failed: ${err instanceof Error ? err.message : String(err)}`);
      })
      .finally(() => {
        sim.inFlight--;
        sim.pending.delete(p);
      });
    sim.pending.add(p);
  }
}

export type Simulator = ReturnType<typeof createSimulator>;
