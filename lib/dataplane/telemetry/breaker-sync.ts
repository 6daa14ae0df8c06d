import type pg from "pg";
import {
  breakerView,
  mergeBreakerState,
  restoreBreakerState,
  withClusterProbeSuccesses,
  withProbeSlots,
  type TCircuitBreakerState,
} from "../../../router-core/index";
import type { BreakerBank, TBreakerEntry, TBreakerSharing } from "./breakers";
import { createBreakerListener } from "./breaker-listener";
import { BREAKER_CHANNEL, claimProbeSlot, countProbeSuccess, pullBreakerStates, pushBreakerState, type TBreakerRow } from "./breaker-store";

/** Rows changed this long before the newest one seen are read again: commits can land out of order. */
const PULL_OVERLAP_MS = 2_000;
/** A claim that found the cluster's budget spent is not retried sooner than this. */
const CLAIM_RETRY_MS = 500;

export type TBreakerSyncOptions = {
  pool: pg.Pool;
  databaseUrl: string;
  instanceId: string;
  /** Safety-net pull period, for notices missed while the listener was away. */
  pollMs?: number;
  log?: (line: string) => void;
  now?: () => number;
};

/**
 * Circuit breakers shared by every instance through Postgres (breaker_state, LISTEN/NOTIFY on
 * BREAKER_CHANNEL, polling as the safety net). An instance's own transitions are written at once
 * and win when they are later than the row's; other instances merge them on the notice. While
 * shared, an opening starts with no local probe slots and takes them one at a time from the
 * row, so the cluster stays within half_open_probes; probe successes are counted in the row, so
 * a breaker closes when the cluster has seen enough. When Postgres is unreachable each instance
 * runs on its own breakers and budget, and pushes and pulls everything once it is back.
 */
export function createBreakerSync(opts: TBreakerSyncOptions) {
  const log = opts.log ?? (() => {});
  const now = opts.now ?? Date.now;
  let bank: BreakerBank | null = null;
  let healthy = false;
  let lastError: string | null = null;
  let lastSyncAt: number | null = null;
  let cursorMs = 0;
  const dirty = new Set<TBreakerEntry>();

  function failed(err: unknown): void {
    if (healthy) log(`breaker sync: Postgres unreachable, running on local breakers (${(err as Error).message})`);
    healthy = false;
    lastError = (err as Error).message;
  }

  function ok(): void {
    healthy = listener.listening;
    lastError = null;
    lastSyncAt = now();
  }

  async function push(entry: TBreakerEntry): Promise<void> {
    dirty.delete(entry);
    try {
      await pushBreakerState(opts.pool, entry, opts.instanceId);
      ok();
    } catch (err) {
      dirty.add(entry);
      failed(err);
    }
  }

  function merge(row: TBreakerRow): void {
    let remote: TCircuitBreakerState;
    try {
      remote = restoreBreakerState(row.state);
    } catch (err) {
      log(`breaker sync: ignoring unreadable state for ${row.provider_key}|${row.region}: ${(err as Error).message}`);
      return;
    }
    bank?.replace(row.provider_key, row.region, (local) => mergeBreakerState(local, remote));
  }

  /** Reads rows changed since the last pull (all of them when `full`) and merges them. */
  async function pull(full = false): Promise<void> {
    const from = full ? 0 : Math.max(0, cursorMs - PULL_OVERLAP_MS);
    try {
      for (const row of await pullBreakerStates(opts.pool, from)) {
        merge(row);
        cursorMs = Math.max(cursorMs, Number(row.updated_ms));
      }
      ok();
    } catch (err) {
      failed(err);
    }
  }

  const probes = createProbeBudget({
    pool: opts.pool,
    now,
    bank: () => bank,
    shared: () => healthy,
    ok: () => ok(),
    failed: (err) => failed(err),
  });
  const grantSlots = probes.grantSlots;

  const listener = createBreakerListener({
    databaseUrl: opts.databaseUrl,
    channel: BREAKER_CHANNEL,
    pollMs: opts.pollMs ?? 1_000,
    log,
    onNotice: () => pull(),
    onPoll: async () => {
      for (const e of [...dirty]) await push(e);
      await pull();
      grantSlots();
    },
    // Every (re)connect: ours may have changed while away, and notices are not queued for absent listeners.
    onConnect: async () => {
      for (const e of bank?.entries() ?? []) if (e.state.history.length > 0) await push(e);
      await pull(true);
    },
  });

  const sharing: TBreakerSharing = {
    onTransition: (entry) => void push(entry),
    onProbeStarted: (entry) => void probes.claim(entry),
    onProbeSuccess: (entry) => void probes.countSuccess(entry),
    openingProbeSlots: () => (healthy && listener.listening ? 0 : null),
  };

  return {
    sharing,
    attach(b: BreakerBank): void {
      bank = b;
    },
    start: () => listener.start(),
    stop: () => listener.stop(),
    /** Called from the maintenance pass: slots for breakers whose open time just ran out. */
    tick: grantSlots,
    /** For /health and /metrics: whether breaker state is the cluster's or this instance's alone. */
    status: () => ({
      shared: healthy && listener.listening,
      listening: listener.listening,
      lastSyncAt,
      lastError,
      unpushed: dirty.size,
    }),
  };
}

type TProbeBudgetDeps = {
  pool: pg.Pool;
  now: () => number;
  bank: () => BreakerBank | null;
  /** Whether slots come from the cluster (false: each instance's own budget). */
  shared: () => boolean;
  ok: () => void;
  failed: (err: unknown) => void;
};

/** Half-open probe slots and successes counted in the breaker_state row, for the whole cluster. */
function createProbeBudget(deps: TProbeBudgetDeps) {
  const { now } = deps;
  const claiming = new Set<string>();
  const claimAfter = new Map<string, number>();
  const key = (e: TBreakerEntry) => `${e.provider}|${e.region}`;

  /** Takes one more probe slot from the cluster for a breaker whose local slots are used up. */
  async function claim(entry: TBreakerEntry): Promise<void> {
    const k = key(entry);
    const { openedAt } = entry.state;
    if (claiming.has(k) || openedAt === null || (claimAfter.get(k) ?? 0) > now()) return;
    claiming.add(k);
    const config = deps.bank()!.configFor(entry);
    try {
      const claimed = await claimProbeSlot(deps.pool, { provider: entry.provider, region: entry.region, openedAt }, config);
      deps.ok();
      if (!claimed) claimAfter.set(k, now() + CLAIM_RETRY_MS);
      else deps.bank()?.replace(entry.provider, entry.region, (s) => (s.openedAt === openedAt ? withProbeSlots(s, s.probeLimit + 1) : s));
    } catch (err) {
      deps.failed(err);
    } finally {
      claiming.delete(k);
    }
  }

  async function countSuccess(entry: TBreakerEntry): Promise<void> {
    const { openedAt } = entry.state;
    if (openedAt === null) return;
    try {
      const n = await countProbeSuccess(deps.pool, { provider: entry.provider, region: entry.region, openedAt });
      deps.ok();
      if (n === null) return;
      deps.bank()?.replace(entry.provider, entry.region, (s, m) => (s.openedAt === openedAt ? withClusterProbeSuccesses(m, s, n, now()) : s), true);
    } catch (err) {
      deps.failed(err);
    }
  }

  /** Slots for breakers that may probe now; without Postgres, each instance's own full budget. */
  function grantSlots(): void {
    const at = now();
    for (const e of deps.bank()?.entries() ?? []) {
      if (e.state.state === "closed") continue;
      const due = e.state.state === "half_open" || (e.state.openUntil !== null && at >= e.state.openUntil);
      if (!due || breakerView(e.state, at).probeAvailable) continue;
      if (!deps.shared()) deps.bank()?.replace(e.provider, e.region, (s, m) => withProbeSlots(s, Math.max(s.probeLimit, m.config.half_open_probes)));
      else void claim(e);
    }
  }

  return { claim, countSuccess, grantSlots };
}

export type BreakerSync = ReturnType<typeof createBreakerSync>;
