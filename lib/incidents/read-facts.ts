import type { Prisma } from "../db";
import type { TActivationFact, TBreakerFact, TEvidenceEntry, TFact, TOverrideFact, TScope, TShares, TShiftFact } from "./types";

/** Facts read per source and run: a backlog (a first start on old history) drains over a few ticks. */
export const FACT_BATCH = 2000;

export type TCursor = { shiftEventId: bigint; breakerEvent: bigint; auditSeq: number };

type TShareRow = { operation_key: string; region: string; provider_key: string; share: number };

/** Where each provider holds a planned share now: a breaker or an override touches those (operation, region)s. */
function createScopes(rows: TShareRow[]) {
  const ops = [...new Set(rows.map((r) => r.operation_key))];
  const regionsOf = (op: string) => [...new Set(rows.filter((r) => r.operation_key === op).map((r) => r.region))];
  return {
    /** The scopes a provider's breaker in `region` (null: every region) touches, with its share in each. */
    ofBreaker(provider: string, region: string | null): (TScope & { share: number })[] {
      return rows
        .filter((r) => r.provider_key === provider && (region === null || r.region === region) && r.share > 0)
        .map((r) => ({ operation: r.operation_key, region: r.region, share: r.share }));
    },
    /** An override's or activation's scopes: null operation or region means all of them. */
    of(operation: string | null, region: string | null): TScope[] {
      return (operation ? [operation] : ops).flatMap((op) => (region ? [region] : regionsOf(op)).map((r) => ({ operation: op, region: r })));
    },
    shareOf(provider: string, s: TScope): number {
      return rows.find((r) => r.provider_key === provider && r.operation_key === s.operation && r.region === s.region)?.share ?? 0;
    },
  };
}

type TShiftRow = {
  id: string;
  at_ms: number | string;
  operation_key: string;
  region: string;
  type: string;
  provider_key: string | null;
  shares_from: TShares;
  shares_to: TShares;
  capped: boolean;
  detail: string;
  evidence: TEvidenceEntry[];
};
type TBreakerRow = {
  id: string;
  at_ms: number | string;
  provider_key: string;
  region: string | null;
  from_state: string;
  to_state: string;
  reason: string;
  detail: string;
};
type TAuditRow = {
  seq: number;
  at_ms: number | string;
  actor: string;
  action: string;
  target_id: string | null;
  after: Record<string, unknown> | null;
  reason: string | null;
};

const OVERRIDE_ACTIONS: Record<string, "create" | "end"> = { "override.create": "create", "override.end": "end" };
const ACTIVATIONS = ["factor_list.activate", "factor_list.rollback"];

function toOverride(r: TAuditRow, scopes: ReturnType<typeof createScopes>): TOverrideFact | null {
  const a = r.after ?? {};
  const kind = a.kind as TOverrideFact["overrideKind"] | undefined;
  if (!kind || !r.target_id) return null;
  const provider = (a.providerKey as string | null) ?? null;
  const all = scopes.of((a.operationKey as string | null) ?? null, (a.region as string | null) ?? null);
  const action = OVERRIDE_ACTIONS[r.action]!;
  // A kill moves traffic only where the provider has some; its end is matched by id wherever it was.
  const touched = kind === "provider_kill" && action === "create" && provider ? all.filter((s) => scopes.shareOf(provider, s) > 0) : all;
  const expires = a.expiresAt ? Date.parse(String(a.expiresAt)) : NaN;
  return {
    kind: "override",
    seq: r.seq,
    at: Number(r.at_ms),
    action,
    overrideId: r.target_id,
    overrideKind: kind,
    provider,
    actor: r.actor,
    reason: r.reason ?? "",
    expiresAt: Number.isNaN(expires) ? null : expires,
    scopes: touched,
  };
}

function toActivation(r: TAuditRow, scopes: ReturnType<typeof createScopes>): TActivationFact | null {
  const a = r.after ?? {};
  const operation = typeof a.operation === "string" ? a.operation : null;
  if (!operation) return null;
  return {
    kind: "activation",
    seq: r.seq,
    at: Number(r.at_ms),
    operation,
    version: Number(a.version ?? 0),
    actor: r.actor,
    scopes: scopes.of(operation, null),
  };
}

/** The cursor moves past a prefix of each batch only: ids grow, times need not (instances' clocks). */
function takeWhile<T>(rows: T[], keep: (r: T) => boolean): T[] {
  const i = rows.findIndex((r) => !keep(r));
  return i < 0 ? rows : rows.slice(0, i);
}

/** Keeps the facts up to the earliest time a full (truncated) batch reached, so facts stay in time order across sources. */
function horizon(...batches: { full: boolean; last: number | null }[]): number {
  return Math.min(...batches.filter((b) => b.full && b.last !== null).map((b) => b.last!), Number.POSITIVE_INFINITY);
}

/**
 * The facts after the cursor, in the caller's transaction, and the cursor past them. Audit
 * entries are read up to the head seen first: seq is gapless and appended under a lock, so an
 * entry still being written has a later seq and is read next time.
 */
export async function readFacts(tx: Prisma.TransactionClient, cursor: TCursor): Promise<{ facts: TFact[]; next: TCursor }> {
  const head = await tx.$queryRaw<{ seq: number | null }[]>`select max(seq) as seq from audit_entry`;
  const auditHead = Math.min(head[0]?.seq ?? cursor.auditSeq, cursor.auditSeq + FACT_BATCH);
  const [shares, shifts, breakers, audits] = await Promise.all([
    tx.$queryRaw<TShareRow[]>`select operation_key, region, provider_key, share from traffic_share`,
    tx.$queryRaw<TShiftRow[]>`
      select id::text, (extract(epoch from at) * 1000)::float8 as at_ms, operation_key, region, type, provider_key, shares_from, shares_to, capped, detail, evidence
      from shift_event where id > ${cursor.shiftEventId} order by shift_event.id limit ${FACT_BATCH}`,
    tx.$queryRaw<TBreakerRow[]>`
      select id::text, (extract(epoch from at) * 1000)::float8 as at_ms, provider_key, region, from_state, to_state, reason, detail
      from breaker_event where id > ${cursor.breakerEvent} order by breaker_event.id limit ${FACT_BATCH}`,
    tx.$queryRaw<TAuditRow[]>`
      select seq, (extract(epoch from at) * 1000)::float8 as at_ms, actor, action, target_id, after, reason
      from audit_entry where seq > ${cursor.auditSeq} and seq <= ${auditHead}
        and action in ('override.create', 'override.end', 'factor_list.activate', 'factor_list.rollback') order by seq`,
  ]);
  const until = horizon(
    { full: shifts.length === FACT_BATCH, last: shifts.length > 0 ? Number(shifts.at(-1)!.at_ms) : null },
    { full: breakers.length === FACT_BATCH, last: breakers.length > 0 ? Number(breakers.at(-1)!.at_ms) : null },
  );
  const scopes = createScopes(shares);
  const shiftTaken = takeWhile(shifts, (r) => Number(r.at_ms) <= until);
  const breakerTaken = takeWhile(breakers, (r) => Number(r.at_ms) <= until);
  const facts: TFact[] = [
    ...shiftTaken.map((r): TShiftFact => ({
      kind: "shift",
      id: r.id,
      at: Number(r.at_ms),
      operation: r.operation_key,
      region: r.region,
      type: r.type,
      provider: r.provider_key,
      sharesFrom: r.shares_from,
      sharesTo: r.shares_to,
      capped: r.capped,
      detail: r.detail,
      evidence: Array.isArray(r.evidence) ? r.evidence : [],
    })),
    ...breakerTaken.map((r): TBreakerFact => ({
      kind: "breaker",
      id: r.id,
      at: Number(r.at_ms),
      provider: r.provider_key,
      region: r.region,
      from: r.from_state,
      to: r.to_state,
      reason: r.reason,
      detail: r.detail,
      scopes: scopes.ofBreaker(r.provider_key, r.region),
    })),
    ...audits
      .map((r): TFact | null => (OVERRIDE_ACTIONS[r.action] ? toOverride(r, scopes) : ACTIVATIONS.includes(r.action) ? toActivation(r, scopes) : null))
      .filter((f) => f !== null),
  ];
  const lastShift = shiftTaken.at(-1)?.id;
  const lastBreaker = breakerTaken.at(-1)?.id;
  return {
    facts,
    next: {
      shiftEventId: lastShift ? BigInt(lastShift) : cursor.shiftEventId,
      breakerEvent: lastBreaker ? BigInt(lastBreaker) : cursor.breakerEvent,
      auditSeq: Math.max(cursor.auditSeq, auditHead),
    },
  };
}
