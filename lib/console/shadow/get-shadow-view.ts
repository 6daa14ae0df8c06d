import "server-only";
import { getPrisma, Prisma } from "@/lib/db";
import { countDecisions, type TDecisionCount } from "@/lib/dataplane";
import { consoleClickHouseReads, consoleDecisionCounter, type TLatestOutcome } from "@/lib/decision-store";
import { prismaQueryable } from "../prisma-queryable";
import { RANGES, type TRangeKey } from "../ranges";

export type TAgreementPoint = { t: number; compared: number; agreed: number; rate: number | null };

export type TDisagreement = {
  id: string;
  at: number;
  region: string;
  policyVersion: string | null;
  shadowVersion: string | null;
  actual: string | null;
  shadow: string | null;
  reasonCode: string;
  /** Business outcome: true completed, false failed, null none reported yet. */
  completed: boolean | null;
  failureStage: string | null;
  callStatus: string | null;
  callError: string | null;
  actualBreaker: string | null;
  shadowBreaker: string | null;
  degraded: boolean;
  avoided: boolean;
};

export type TShadowView = {
  operation: string;
  range: TRangeKey;
  from: number;
  to: number;
  bucketSeconds: number;
  shadowVersion: { id: string; version: number } | null;
  totals: { compared: number; agreed: number };
  series: TAgreementPoint[];
  disagreements: TDisagreement[];
};

type TRawDisagreement = {
  id: string;
  created_at: Date;
  region: string;
  policy_version: string | null;
  shadow_version: string | null;
  selected_provider: string | null;
  shadow_pick: string | null;
  reason_code: string;
  completed: boolean | null;
  failure_stage: string | null;
  call_status: string | null;
  call_error: string | null;
  actual_breaker: string | null;
  shadow_breaker: string | null;
};

const BROKEN = new Set(["open", "half_open"]);

type TBucket = { t: number; compared: number; agreed: number };

/** The columns of a listed disagreement that come from Postgres's outcome and breaker tables. */
const ENRICHMENT = Prisma.sql`b.completed, b.failure_stage::text as failure_stage, c.status as call_status, c.error_class::text as call_error,
             ab.to_state as actual_breaker, sb.to_state as shadow_breaker`;

/** Both providers' breakers at the time of each listed disagreement. */
const BREAKER_JOINS = Prisma.sql`
      left join lateral (select to_state from breaker_event where provider_key = d.selected_provider and (region is null or region = d.region) and at <= d.created_at order by at desc limit 1) ab on true
      left join lateral (select to_state from breaker_event where provider_key = d.shadow_pick and (region is null or region = d.region) and at <= d.created_at order by at desc limit 1) sb on true`;

/** Each listed disagreement's latest business outcome, its selected provider's latest call, and its breakers. */
const ENRICH_JOINS = Prisma.sql`
      left join lateral (select completed, failure_stage from business_outcome where decision_id = d.id::text order by reported_at desc limit 1) b on true
      left join lateral (select status, error_class from provider_call_outcome where decision_id = d.id::text and provider_key = d.selected_provider order by reported_at desc limit 1) c on true
      ${BREAKER_JOINS}`;

/**
 * The latest 100 disagreements with their outcomes and breakers. In ClickHouse mode the rows and
 * their outcomes come from ClickHouse and are joined to Postgres's breaker history as a list of values.
 */
async function disagreementRows(operation: string, from: number, to: number): Promise<TRawDisagreement[]> {
  const clickHouse = consoleClickHouseReads();
  if (!clickHouse) {
    // The 100 rows first, then their outcomes and breakers: joined to the range's rows, the planner
    // sized a Memoize cache per lateral by the range's estimated rows, a cost that grew with the log;
    // picking the 100 first keeps the query's cost the same at any size.
    return getPrisma().$queryRaw<TRawDisagreement[]>(Prisma.sql`
      select d.id::text as id, d.created_at, d.region, d.policy_version, d.shadow_version, d.selected_provider, d.shadow_pick, d.reason_code, ${ENRICHMENT}
      from (
        select id, created_at, region, policy_version, shadow_version, selected_provider, shadow_pick, reason_code from decision
         where operation = ${operation} and created_at >= ${new Date(from)} and created_at <= ${new Date(to)} and shadow_agrees = false
         order by created_at desc, id desc
         limit 100) d ${ENRICH_JOINS}
      order by d.created_at desc, d.id desc`);
  }
  const found = await clickHouse.disagreements(operation, from, to, 100);
  if (found.length === 0) return [];
  const latest = await clickHouse.outcomes.latest(found.map((r) => ({ id: r.id, provider: r.selected_provider })));
  const col = <K extends keyof (typeof found)[number]>(k: K) => found.map((r) => r[k]);
  const out = <K extends keyof TLatestOutcome>(k: K) => found.map((r) => latest.get(r.id)?.[k] ?? null);
  return getPrisma().$queryRaw<TRawDisagreement[]>(Prisma.sql`
      select d.id::text as id, d.created_at, d.region, d.policy_version, d.shadow_version, d.selected_provider, d.shadow_pick, d.reason_code,
             d.completed, d.failure_stage, d.call_status, d.call_error, ab.to_state as actual_breaker, sb.to_state as shadow_breaker
      from unnest(${col("id")}::uuid[], ${found.map((r) => new Date(r.at))}::timestamptz[], ${col("region")}::text[], ${col("policy_version")}::text[],
                  ${col("shadow_version")}::text[], ${col("selected_provider")}::text[], ${col("shadow_pick")}::text[], ${col("reason_code")}::text[],
                  ${out("completed")}::boolean[], ${out("failureStage")}::text[], ${out("callStatus")}::text[], ${out("callError")}::text[])
        with ordinality as d(id, created_at, region, policy_version, shadow_version, selected_provider, shadow_pick, reason_code,
                             completed, failure_stage, call_status, call_error, n)
      ${BREAKER_JOINS}
      order by d.n`);
}

/** Shadowed decisions per bucket from counts by shadow outcome. */
function bucketsOf(counts: readonly TDecisionCount[]): TBucket[] {
  const byT = new Map<number, TBucket>();
  for (const c of counts) {
    const b = byT.get(c.t) ?? { t: c.t, compared: 0, agreed: 0 };
    b.compared += c.n;
    if (c.shadow === "agree") b.agreed += c.n;
    byT.set(c.t, b);
  }
  return [...byT.values()].sort((a, b) => a.t - b.t);
}

/**
 * Shadowed decisions and agreements per bucket. Whole-minute buckets (24 h, 7 d) come from the
 * decision log's rollups (10-minute and hour cells, aligned to the epoch), so the page reads
 * the range's periods however many decisions they hold. Sub-minute buckets (15 min, 1 h) are counted from the rows,
 * one index-only count per bucket from the range start rather than GROUP BY date_bin(...): the
 * planner cannot tell that date_bin follows created_at's order, estimates a group per row and
 * sorts every shadowed decision of the range; each bucket's count reads only its slice of the
 * (operation, created_at, shadow_agrees) index.
 */
async function agreementBuckets(operation: string, from: number, to: number, bucketSeconds: number): Promise<TBucket[]> {
  if (bucketSeconds % 60 === 0) {
    const counts = await countDecisions(
      prismaQueryable(),
      { operation, from, to, bounds: "[]", bucketMs: bucketSeconds * 1000, by: ["shadow"], shadowed: true },
      consoleDecisionCounter(),
    );
    return bucketsOf(counts);
  }
  const clickHouse = consoleClickHouseReads();
  if (clickHouse) {
    // The same buckets as below: from the range's start, each [t, t + bucket), up to `to` included.
    const q = { operation, from, to, bounds: "[]", bucketMs: bucketSeconds * 1000, by: ["shadow"], shadowed: true } as const;
    const counts = await clickHouse.count(q, [{ from, to, fromIncluded: true, toIncluded: true }], from);
    return bucketsOf(counts);
  }
  const rows = await getPrisma().$queryRaw<{ t: Date; compared: bigint; agreed: bigint }[]>`
    select b.t, s.compared, s.agreed
    from generate_series(${new Date(from)}::timestamptz, ${new Date(to)}::timestamptz, ${`${bucketSeconds} seconds`}::interval) as b(t)
    cross join lateral (
      select count(*) as compared, count(*) filter (where shadow_agrees) as agreed
      from decision
      where operation = ${operation} and created_at >= b.t and created_at < b.t + ${`${bucketSeconds} seconds`}::interval
        and created_at <= ${new Date(to)} and shadow_agrees is not null
    ) s
    where s.compared > 0
    order by b.t`;
  return rows.map((r) => ({ t: r.t.getTime(), compared: Number(r.compared), agreed: Number(r.agreed) }));
}

/**
 * Shadow mode for one operation. Agreement is counted per time bucket (agreementBuckets), every
 * decision included, those clients made locally too (their count reports); the list of
 * disagreements is drilldown, read from the rows (every disagreement a client made is among
 * them: clients send a full record for each). A disagreement's actual provider counts as degraded when, at decision
 * time, its latest breaker transition (for that region or all regions) left it open or half-open,
 * or when this decision's own call failed or its business outcome failed at the provider-call
 * stage; the shadow would have avoided it when it picked another provider whose breaker was closed.
 */
export async function getShadowView(operation: string, range: TRangeKey, now = Date.now()): Promise<TShadowView> {
  const prisma = getPrisma();
  const { ms, bucketSeconds } = RANGES[range];
  const to = now;
  const from = to - ms;
  const [pointer, buckets, raw] = await Promise.all([
    prisma.operationPolicy.findUnique({ where: { operationKey: operation } }),
    agreementBuckets(operation, from, to, bucketSeconds),
    disagreementRows(operation, from, to),
  ]);
  const shadow = pointer?.shadowVersionId
    ? await prisma.factorListVersion.findUnique({ where: { id: pointer.shadowVersionId }, select: { id: true, version: true } })
    : null;
  const series = buckets.map((b) => ({ ...b, rate: b.compared > 0 ? b.agreed / b.compared : null }));
  const disagreements = raw.map((r): TDisagreement => {
    const degraded =
      BROKEN.has(r.actual_breaker ?? "") ||
      (r.call_status !== null && r.call_status !== "success") ||
      (r.completed === false && r.failure_stage === "provider_call");
    return {
      id: r.id,
      at: r.created_at.getTime(),
      region: r.region,
      policyVersion: r.policy_version,
      shadowVersion: r.shadow_version,
      actual: r.selected_provider,
      shadow: r.shadow_pick,
      reasonCode: r.reason_code,
      completed: r.completed,
      failureStage: r.failure_stage,
      callStatus: r.call_status,
      callError: r.call_error,
      actualBreaker: r.actual_breaker,
      shadowBreaker: r.shadow_breaker,
      degraded,
      avoided: degraded && r.shadow_pick !== null && r.shadow_pick !== r.selected_provider && !BROKEN.has(r.shadow_breaker ?? ""),
    };
  });
  return {
    operation,
    range,
    from,
    to,
    bucketSeconds,
    shadowVersion: shadow,
    totals: { compared: series.reduce((s, p) => s + p.compared, 0), agreed: series.reduce((s, p) => s + p.agreed, 0) },
    series,
    disagreements,
  };
}
