/**
 * The tracker's rules, pure: facts in time order go into the open incidents of their
 * (operation, region), opening, updating and closing them. The database side (track-incidents.ts)
 * reads the facts and writes what changed; this file decides.
 */
import { DEFAULT_CIRCUIT_BREAKER_CONFIG } from "../../router-core/index";
import type {
  TActivationFact,
  TBreakerFact,
  TCauseKind,
  TFact,
  TIncidentFactRow,
  TIncidentRecord,
  TIncidentSeverity,
  TOverrideFact,
  TScope,
  TShiftFact,
  TStep,
  TStepPhase,
} from "./types";
import { FAULT_CAUSES } from "./types";

/** What the tracker changed in one incident; the writer persists and notifies from this. */
export type TWorkingIncident = {
  record: TIncidentRecord;
  isNew: boolean;
  dirty: boolean;
  /** The stored last step, kept to extend it; `extended` when this run changed it. */
  lastStep: TStep | null;
  extended: boolean;
  newSteps: TStep[];
  newFacts: TIncidentFactRow[];
  /** Material changes for notifications: a new step, recovery, a better cause. */
  changes: string[];
  opened: boolean;
  resolved: boolean;
  /** A policy activation that settled without moving traffic: no incident after all, removed. */
  discard?: boolean;
};

export type TApplyOptions = { newId: () => string };

/** A policy activation's incident ends once its scope's shares stop moving for this long. */
export const ACTIVATION_SETTLE_MS = 60_000;
/** Consecutive ticks of one phase further apart than this are separate steps. */
export const STEP_GAP_MS = 60_000;

const PHASE: Record<string, TStepPhase> = {
  score_decay_shift: "away",
  hard_exclusion: "away",
  circuit_open_shift_to_secondary: "away",
  exclusion_rebalance: "away",
  probe_floor_held: "away",
  no_eligible_provider: "away",
  recovery_detected: "recovery",
  probe_exploration_increase: "recovery",
  cooldown_started: "recovery",
  recovery_aborted: "recovery",
  failback_step: "failback",
  full_failback_completed: "failback",
  rebalance: "rebalance",
  probe_floor_restored: "rebalance",
};

/** The step phase a shift event of `type` belongs to. */
export const stepPhaseOf = (type: string): TStepPhase => PHASE[type] ?? "rebalance";

const isFault = (k: TCauseKind) => (FAULT_CAUSES as readonly string[]).includes(k);
const scopeKey = (s: TScope) => `${s.operation}\u0000${s.region}`;
const pct = (v: number) => `${Math.round(v * 100)}%`;

/**
 * A score shift is a triggering fact only when the demoted provider's own regional calls crossed
 * the breaker's failure-rate threshold: a healthy leader out-scored by a challenger is routine, and
 * must not become the cause of an outage that follows it.
 */
export function degradedBy(e: TShiftFact): string | null {
  const ev = e.evidence.find((x) => x.provider === e.provider);
  const r = ev?.regional;
  const { failure_rate_threshold: threshold, min_calls: minCalls } = DEFAULT_CIRCUIT_BREAKER_CONFIG;
  if (!r || r.samples < minCalls) return null;
  const rate = r.failures / r.samples;
  return rate > threshold ? `failure rate ${pct(rate)} over ${r.samples} calls > threshold ${pct(threshold)}` : null;
}

/** The cause a shift event stands for, or null when it only follows one (or is routine). */
export function shiftCause(e: TShiftFact): { kind: TCauseKind; detail: string } | null {
  switch (e.type) {
    case "circuit_open_shift_to_secondary":
      return { kind: "breaker_open", detail: e.detail };
    case "no_eligible_provider":
      return { kind: "no_eligible_provider", detail: e.detail };
    case "hard_exclusion": {
      const gates = e.evidence.find((x) => x.provider === e.provider)?.failedGates ?? [];
      const quota = gates.some((g) => g.includes("quota"));
      return { kind: quota ? "quota_exhausted" : "hard_exclusion", detail: gates.length > 0 ? `failed ${gates.join(", ")}: ${e.detail}` : e.detail };
    }
    case "score_decay_shift": {
      const why = degradedBy(e);
      return why ? { kind: "metric_threshold", detail: `${why}; ${e.detail}` } : null;
    }
    default:
      return null;
  }
}

function severityOf(kind: TCauseKind, share: number): TIncidentSeverity {
  if (!isFault(kind)) return "info";
  // Losing the provider that carries most of the traffic (or every provider) pages; a minor one warns.
  return kind === "no_eligible_provider" || share >= 0.5 ? "critical" : "warning";
}

const CAUSE_WORDS: Record<TCauseKind, string> = {
  breaker_open: "breaker open",
  metric_threshold: "metric over threshold",
  hard_exclusion: "excluded by a gate",
  quota_exhausted: "quota exhausted",
  no_eligible_provider: "no eligible provider",
  provider_kill: "killed by an operator",
  provider_pin: "pinned by an operator",
  routing_kill_switch: "kill switch on",
  policy_activation: "policy activated",
};

export function incidentTitle(kind: TCauseKind, provider: string | null, scope: TScope): string {
  return `${provider ? `${provider} ` : ""}${CAUSE_WORDS[kind]} · ${scope.operation} · ${scope.region}`;
}

type TOpenCause = { kind: TCauseKind; provider: string | null; detail: string; source: string; evidence: Record<string, unknown>; at: number; share: number };

/** Open incidents by scope, oldest first, with the new ones this run adds. */
export function createTracker(open: TWorkingIncident[], opts: TApplyOptions) {
  const byScope = new Map<string, TWorkingIncident[]>();
  const all: TWorkingIncident[] = [...open];
  for (const w of open) byScope.set(scopeKey(w.record), [...(byScope.get(scopeKey(w.record)) ?? []), w]);
  const live = (s: TScope) => (byScope.get(scopeKey(s)) ?? []).filter((w) => w.record.endedAt === null);

  function openIncident(scope: TScope, c: TOpenCause): TWorkingIncident {
    const record: TIncidentRecord = {
      ...scope,
      id: opts.newId(),
      provider: c.provider,
      state: "open",
      severity: severityOf(c.kind, c.share),
      title: incidentTitle(c.kind, c.provider, scope),
      causeKind: c.kind,
      causeDetail: c.detail,
      causeSource: c.source,
      causeEvidence: c.evidence,
      startedAt: c.at,
      recoveredAt: null,
      failbackDoneAt: null,
      endedAt: null,
      endReason: null,
      lastFactAt: c.at,
    };
    const w: TWorkingIncident = {
      record,
      isNew: true,
      dirty: true,
      lastStep: null,
      extended: false,
      newSteps: [],
      newFacts: [],
      changes: [],
      opened: true,
      resolved: false,
    };
    all.push(w);
    byScope.set(scopeKey(scope), [...(byScope.get(scopeKey(scope)) ?? []), w]);
    return w;
  }

  function touch(w: TWorkingIncident, at: number, change?: string): void {
    w.dirty = true;
    w.record.lastFactAt = Math.max(w.record.lastFactAt, at);
    if (change) w.changes.push(change);
  }

  function resolve(w: TWorkingIncident, at: number, reason: string): void {
    w.record.endedAt = at;
    w.record.endReason = reason;
    w.record.state = "resolved";
    w.resolved = true;
    touch(w, at);
  }

  function addFact(w: TWorkingIncident, row: TIncidentFactRow): void {
    if (w.newFacts.some((f) => f.source === row.source)) return;
    w.newFacts.push(row);
    touch(w, row.at);
  }

  /** The incident a fact about `provider` belongs to: its own fault incident, else the latest fault one, else the latest change. */
  function target(scope: TScope, provider: string | null): TWorkingIncident | undefined {
    const here = live(scope);
    const faults = here.filter((w) => isFault(w.record.causeKind));
    return faults.find((w) => provider !== null && w.record.provider === provider) ?? faults.at(-1) ?? here.at(-1);
  }

  return { all, live, openIncident, touch, resolve, addFact, target };
}

type TTracker = ReturnType<typeof createTracker>;

/** Adds a tick to the incident's last step when it continues it (same phase and provider, soon after), else a new step. */
function addStep(t: TTracker, w: TWorkingIncident, e: TShiftFact, newId: () => string): void {
  const phase = stepPhaseOf(e.type);
  const last = w.newSteps.at(-1) ?? w.lastStep;
  const continues =
    last !== null && last.phase === phase && last.provider === e.provider && e.at - last.endedAt <= STEP_GAP_MS && last.lastType !== "full_failback_completed";
  if (continues) {
    last.ticks += 1;
    last.lastType = e.type;
    last.capped ||= e.capped;
    last.sharesTo = e.sharesTo;
    last.endedAt = e.at;
    last.lastEvent = e.id;
    if (last === w.lastStep) w.extended = true;
    t.touch(w, e.at);
    return;
  }
  w.newSteps.push({
    id: newId(),
    seq: (last?.seq ?? 0) + 1,
    phase,
    provider: e.provider,
    firstType: e.type,
    lastType: e.type,
    ticks: 1,
    capped: e.capped,
    sharesFrom: e.sharesFrom,
    sharesTo: e.sharesTo,
    detail: e.detail,
    startedAt: e.at,
    endedAt: e.at,
    firstEvent: e.id,
    lastEvent: e.id,
  });
  t.touch(w, e.at, `step:${phase}`);
}

function applyShift(t: TTracker, e: TShiftFact, opts: TApplyOptions): void {
  const cause = shiftCause(e);
  let w = t.target(e, e.provider);
  // A fault never joins an operator's or a policy's incident: it opens its own.
  if (cause && isFault(cause.kind) && (!w || !isFault(w.record.causeKind))) w = undefined;
  if (!w) {
    if (!cause) return; // routine: floors restored, rebalancing, a healthy leader out-scored
    const evidence = e.evidence.find((x) => x.provider === e.provider);
    w = t.openIncident(e, {
      kind: cause.kind,
      provider: e.provider,
      detail: cause.detail,
      source: `shift_event:${e.id}`,
      evidence: { provider: evidence ?? null, sharesFrom: e.sharesFrom },
      at: e.at,
      share: e.provider ? (e.sharesFrom[e.provider] ?? 0) : 1,
    });
  }
  addStep(t, w, e, opts.newId);
  const mine = w.record.provider === null || w.record.provider === e.provider;
  if (e.type === "recovery_detected" && mine && w.record.recoveredAt === null) {
    w.record.recoveredAt = e.at;
    w.record.state = "recovering";
    t.touch(w, e.at, "recovered");
  } else if (e.type === "recovery_aborted" && mine && w.record.state === "recovering") {
    w.record.recoveredAt = null;
    w.record.state = "open";
    t.touch(w, e.at, "recovery_aborted");
  } else if (e.type === "full_failback_completed" && mine) {
    w.record.failbackDoneAt = e.at;
    t.resolve(w, e.at, "failback_done");
  }
}

function breakerSummary(f: TBreakerFact): string {
  return `${f.provider}${f.region ? ` ${f.region}` : ""} breaker ${f.from} → ${f.to}${f.detail ? `: ${f.detail}` : ""}`;
}

function applyBreaker(t: TTracker, f: TBreakerFact): void {
  const row: TIncidentFactRow = {
    at: f.at,
    kind: "breaker",
    provider: f.provider,
    summary: breakerSummary(f),
    data: { from: f.from, to: f.to, reason: f.reason, detail: f.detail },
    source: `breaker_event:${f.id}`,
  };
  for (const scope of f.scopes) {
    const faults = t.live(scope).filter((w) => isFault(w.record.causeKind));
    const w = faults.find((x) => x.record.provider === f.provider) ?? (f.to === "open" ? faults.at(-1) : undefined);
    if (f.to !== "open") {
      if (w) t.addFact(w, row);
      continue;
    }
    const evidence = { reason: f.reason, detail: f.detail, from: f.from, breakerRegion: f.region, share: scope.share };
    if (!w) {
      const opened = t.openIncident(scope, {
        kind: "breaker_open",
        provider: f.provider,
        detail: f.detail,
        source: row.source,
        evidence,
        at: f.at,
        share: scope.share,
      });
      t.addFact(opened, row);
      continue;
    }
    t.addFact(w, row);
    // The first triggering fact is the cause: a breaker opening read after the shift it caused (the
    // instances write breaker events on their own clock) takes the cause and the start back to itself.
    const derived = w.record.causeSource.startsWith("shift_event:") && w.record.provider === f.provider;
    if (f.at < w.record.startedAt || (derived && w.record.causeKind === "breaker_open" && f.at <= w.record.startedAt + STEP_GAP_MS)) {
      Object.assign(w.record, {
        causeKind: "breaker_open",
        provider: f.provider,
        causeDetail: f.detail,
        causeSource: row.source,
        causeEvidence: evidence,
        startedAt: Math.min(f.at, w.record.startedAt),
        title: incidentTitle("breaker_open", f.provider, scope),
      });
      t.touch(w, f.at, "cause");
    }
  }
}

const OVERRIDE_CAUSE = { provider_kill: "provider_kill", provider_pin: "provider_pin", routing_kill_switch: "routing_kill_switch" } as const;

function applyOverride(t: TTracker, f: TOverrideFact): void {
  const verb = f.action === "create" ? "set" : "ended";
  const what = f.overrideKind === "routing_kill_switch" ? "kill switch" : f.overrideKind === "provider_pin" ? `pin on ${f.provider}` : `kill of ${f.provider}`;
  const row: TIncidentFactRow = {
    at: f.at,
    kind: "override",
    provider: f.provider,
    summary: `${f.actor} ${verb} ${what}${f.reason ? `: ${f.reason}` : ""}`,
    data: { overrideId: f.overrideId, overrideKind: f.overrideKind, action: f.action, expiresAt: f.expiresAt },
    source: `audit:${f.seq}`,
  };
  for (const scope of f.scopes) {
    const here = t.live(scope);
    if (f.action === "end") {
      for (const w of here) {
        t.addFact(w, row);
        if (w.record.causeEvidence.overrideId === f.overrideId) t.resolve(w, f.at, "override_ended");
      }
      continue;
    }
    const w = t.target(scope, f.provider);
    if (w) {
      t.addFact(w, row);
      continue;
    }
    const evidence = { overrideId: f.overrideId, actor: f.actor, reason: f.reason, expiresAt: f.expiresAt };
    const opened = t.openIncident(scope, {
      kind: OVERRIDE_CAUSE[f.overrideKind],
      provider: f.provider,
      detail: row.summary,
      source: row.source,
      evidence,
      at: f.at,
      share: 0,
    });
    t.addFact(opened, row);
  }
}

function applyActivation(t: TTracker, f: TActivationFact): void {
  const row: TIncidentFactRow = {
    at: f.at,
    kind: "activation",
    provider: null,
    summary: `${f.actor} activated ${f.operation} v${f.version}`,
    data: { version: f.version },
    source: `audit:${f.seq}`,
  };
  for (const scope of f.scopes) {
    const w = t.target(scope, null);
    if (w) t.addFact(w, row);
    else
      t.addFact(
        t.openIncident(scope, {
          kind: "policy_activation",
          provider: null,
          detail: row.summary,
          source: row.source,
          evidence: { version: f.version, actor: f.actor },
          at: f.at,
          share: 0,
        }),
        row,
      );
  }
}

/**
 * Applies facts (any order: sorted here by time) to the open incidents and returns every incident
 * it touched or opened. `now` settles policy activations whose shares stopped moving.
 */
export function applyFacts(open: TWorkingIncident[], facts: readonly TFact[], now: number, opts: TApplyOptions): TWorkingIncident[] {
  const t = createTracker(open, opts);
  const sorted = [...facts].sort((a, b) => a.at - b.at);
  for (const f of sorted) {
    if (f.kind === "shift") applyShift(t, f, opts);
    else if (f.kind === "breaker") applyBreaker(t, f);
    else if (f.kind === "override") applyOverride(t, f);
    else applyActivation(t, f);
  }
  for (const w of t.all) {
    if (w.record.endedAt === null && w.record.causeKind === "policy_activation" && now - w.record.lastFactAt >= ACTIVATION_SETTLE_MS) {
      const last = w.newSteps.at(-1) ?? w.lastStep;
      t.resolve(w, last?.endedAt ?? w.record.lastFactAt, "settled");
      // An activation the controller did not follow with any move is no incident: nothing happened to traffic.
      if (last === null) w.discard = true;
    }
  }
  return t.all.filter((w) => w.dirty);
}

/** An incident loaded from the database, ready for applyFacts. */
export function working(record: TIncidentRecord, lastStep: TStep | null): TWorkingIncident {
  return { record, isNew: false, dirty: false, lastStep, extended: false, newSteps: [], newFacts: [], changes: [], opened: false, resolved: false };
}
