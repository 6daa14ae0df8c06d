/**
 * In-process counters for GET /api/v1/metrics. Per instance and reset on restart, as Prometheus
 * counters are: the scraper sums instances and handles resets. Keys are joined label values so
 * counting is one Map lookup on the decide path.
 */

const SEP = "\u0000";

const outcomes = new Map<string, number>();

type TCell = { labels: string[]; value: number };

/**
 * Decision counters by operation, region, provider and reason, one Map level per label: decide
 * counts with four lookups of the strings it has, without joining them into a key first (a joined
 * key is new text each time and is hashed afresh).
 */
const decisions = new Map<string, Map<string, Map<string, Map<string, TCell>>>>();
const decisionCells: TCell[] = [];

function level<V>(map: Map<string, V>, key: string, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) map.set(key, (v = make()));
  return v;
}

function bump(map: Map<string, number>, key: string, by: number): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

type TDecisionObserver = (operation: string, region: string, provider: string) => void;
let observers: TDecisionObserver[] = [];

/**
 * Telemetry and the cluster quota watch decisions through the counter decide already calls: a
 * decision routed to a provider whose breaker is half-open takes one of its probe slots, and one
 * to a provider with a call quota spends one call of it. Returns the function that stops watching.
 */
export function observeDecisions(fn: TDecisionObserver): () => void {
  observers = [...observers, fn];
  return () => {
    observers = observers.filter((o) => o !== fn);
  };
}

/** Called by decide for every answered decision; provider null means the fallback answered. */
export function countDecision(operation: string, region: string, provider: string | null, reason: string): void {
  const p = provider ?? "none";
  const byRegion = level(decisions, operation, () => new Map<string, Map<string, Map<string, TCell>>>());
  const byReason = level(
    level(byRegion, region, () => new Map<string, Map<string, TCell>>()),
    p,
    () => new Map<string, TCell>(),
  );
  let cell = byReason.get(reason);
  if (cell === undefined) {
    cell = { labels: [operation, region, p, reason], value: 0 };
    byReason.set(reason, cell);
    decisionCells.push(cell);
  }
  cell.value++;
}

/**
 * Called by decide as soon as a decision is made, before its log write is awaited: a half-open
 * breaker's probe slot must be taken before the next concurrent decision reads the gate, or a
 * burst would pass it many times over.
 */
export function noteRouted(operation: string, region: string, provider: string | null): void {
  if (provider === null) return;
  for (let i = 0; i < observers.length; i++) observers[i]!(operation, region, provider);
}

/** result: recorded (in Postgres), spooled (DB unreachable), or the rejection (unknown_decision, invalid). */
export function countOutcome(type: string, provider: string, result: string, by = 1): void {
  bump(outcomes, type + SEP + provider + SEP + result, by);
}

export type TCounterSample = { labels: string[]; value: number };

function samples(map: Map<string, number>): TCounterSample[] {
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, value]) => ({ labels: k.split(SEP), value }));
}

export function decisionCounts(): TCounterSample[] {
  // In the order of the joined label values, as the other counters are.
  return decisionCells
    .map((c) => ({ key: c.labels.join(SEP), c }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ c }) => ({ labels: [...c.labels], value: c.value }));
}

export function outcomeCounts(): TCounterSample[] {
  return samples(outcomes);
}
