/** Anything with pg's query signature (a Pool, a Client, or a wrapper over Prisma's raw queries). */
export type TCountQueryable = { query<R>(sql: string, params: unknown[]): Promise<{ rows: R[] }> };

/** The rollup's dimensions a count may be broken down by. */
export type TCountDimension = "region" | "provider" | "reasonCode" | "policyVersion" | "shadow" | "shadowPick" | "stale" | "degraded" | "source";

export type TDecisionCountQuery = {
  operation: string;
  /** Only this region (all regions when absent). */
  region?: string;
  /** Epoch ms bounds; `bounds` says which ends are included ("(]": after from, up to and with to). */
  from: number;
  to: number;
  bounds: "(]" | "[]" | "[)";
  /** Bucket width, a whole number of minutes, buckets aligned to the epoch. */
  bucketMs: number;
  by: readonly TCountDimension[];
  /** Only decisions a shadow policy was evaluated for (shadow agree or disagree). */
  shadowed?: boolean;
};

export type TDecisionCount = {
  /** The bucket's start, epoch ms. */
  t: number;
  region?: string;
  provider?: string | null;
  reasonCode?: string;
  policyVersion?: string | null;
  shadow?: "agree" | "disagree" | "none";
  shadowPick?: string | null;
  stale?: boolean;
  degraded?: boolean;
  source?: string;
  n: number;
};

const MINUTE_MS = 60_000;

/** A time range of decision rows to count; each end included or not. */
export type TRawRange = { from: number; to: number; fromIncluded: boolean; toIncluded: boolean };

/**
 * Counts decision rows kept in another store (lib/decision-store: ClickHouse) over ranges, by the
 * query's buckets (aligned to the epoch) and dimensions, as the raw parts of the plan below do.
 */
export type TRawDecisionCounter = (q: TDecisionCountQuery, ranges: readonly TRawRange[]) => Promise<TDecisionCount[]>;

/** Each dimension as decision_rollup stores it and as it is computed from a decision row. */
const DIMENSIONS: Record<TCountDimension, { rollup: string; raw: string }> = {
  region: { rollup: "region", raw: "region" },
  provider: { rollup: "nullif(selected_provider, '')", raw: "selected_provider" },
  reasonCode: { rollup: "reason_code", raw: "reason_code" },
  policyVersion: { rollup: "nullif(policy_version, '')", raw: "policy_version" },
  shadow: { rollup: "shadow", raw: "case when shadow_agrees is null then 'none' when shadow_agrees then 'agree' else 'disagree' end" },
  shadowPick: { rollup: "nullif(shadow_pick, '')", raw: "shadow_pick" },
  stale: { rollup: "stale", raw: "stale" },
  degraded: { rollup: "degraded", raw: "degraded" },
  source: { rollup: "source", raw: "source" },
};

type TPlan = { sql: string; params: unknown[] };

/**
 * The SQL for a count: whole minutes from decision_rollup, the partial minutes at either end of
 * the range (at most two) from the decision rows, in one statement so both read one snapshot.
 * A range shorter than that is read from the rows alone.
 */
function plan(q: TDecisionCountQuery): TPlan {
  const params: unknown[] = [q.operation, `${q.bucketMs / 1000} seconds`];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const region = q.region === undefined ? "" : ` and region = ${p(q.region)}`;
  const dims = q.by.map((d, i) => ({ name: `d${i}`, ...DIMENSIONS[d] }));
  const select = (kind: "rollup" | "raw") => dims.map((d) => `, ${d[kind]} as ${d.name}`).join("");
  const groupBy = dims.map((_, i) => `, ${i + 2}`).join("");
  const lo = q.bounds[0] === "(" ? ">" : ">=";
  const hi = q.bounds[1] === "]" ? "<=" : "<";
  const fullFrom = Math.floor(q.from / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const fullTo = Math.floor(q.to / MINUTE_MS) * MINUTE_MS;
  const raw = (cond: string) =>
    `select date_bin($2::interval, created_at, timestamptz 'epoch') as b${select("raw")}, count(*) as n from decision
      where operation = $1${region} and ${cond}${q.shadowed ? " and shadow_agrees is not null" : ""} group by 1${groupBy}`;
  const parts: string[] = [];
  if (fullTo <= fullFrom) parts.push(raw(`created_at ${lo} ${p(new Date(q.from))} and created_at ${hi} ${p(new Date(q.to))}`));
  else {
    const from = p(new Date(q.from));
    const a = p(new Date(fullFrom));
    const b = p(new Date(fullTo));
    const to = p(new Date(q.to));
    parts.push(
      `select date_bin($2::interval, minute, timestamptz 'epoch') as b${select("rollup")}, sum(count) as n from decision_rollup
        where operation = $1${region} and minute >= ${a} and minute < ${b}${q.shadowed ? " and shadow <> 'none'" : ""} group by 1${groupBy}`,
      raw(`created_at ${lo} ${from} and created_at < ${a}`),
      raw(`created_at >= ${b} and created_at ${hi} ${to}`),
    );
  }
  const outer = dims.map((d) => `, ${d.name}`).join("");
  return {
    sql: `select (extract(epoch from b) * 1000)::bigint as t${outer}, sum(n)::bigint as n from (${parts.join(" union all ")}) c group by b${outer} order by b`,
    params,
  };
}

/**
 * Decisions of one operation counted per bucket and dimension over a time range, exactly as
 * counting the decision rows would, but reading the per-minute rollup for every whole minute:
 * the cost follows the range's minutes and dimensions, not how many decisions they hold.
 */
export async function countDecisions(db: TCountQueryable, q: TDecisionCountQuery, raw?: TRawDecisionCounter): Promise<TDecisionCount[]> {
  if (!Number.isInteger(q.bucketMs / MINUTE_MS) || q.bucketMs <= 0) throw new RangeError(`bucketMs must be a whole number of minutes, got ${q.bucketMs}`);
  if (raw) return countWithRawStore(db, q, raw);
  const { sql, params } = plan(q);
  const { rows } = await db.query<Record<string, unknown>>(sql, params);
  return rows.map((r) => countOf(q, r));
}

function countOf(q: TDecisionCountQuery, r: Record<string, unknown>): TDecisionCount {
  const out: TDecisionCount = { t: Number(r.t), n: Number(r.n) };
  q.by.forEach((d, i) => {
    (out as Record<string, unknown>)[d] = r[`d${i}`];
  });
  return out;
}

/**
 * The same count when the rows are in another store: the whole minutes from decision_rollup here,
 * the partial minutes at the ends from `raw`, summed per bucket and dimensions.
 */
async function countWithRawStore(db: TCountQueryable, q: TDecisionCountQuery, raw: TRawDecisionCounter): Promise<TDecisionCount[]> {
  const fullFrom = Math.floor(q.from / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const fullTo = Math.floor(q.to / MINUTE_MS) * MINUTE_MS;
  const fromIncluded = q.bounds[0] === "[";
  const toIncluded = q.bounds[1] === "]";
  if (fullTo <= fullFrom) return raw(q, [{ from: q.from, to: q.to, fromIncluded, toIncluded }]);
  const dims = q.by.map((d, i) => `, ${DIMENSIONS[d].rollup} as d${i}`).join("");
  const groupBy = q.by.map((_, i) => `, ${i + 2}`).join("");
  const params: unknown[] = [q.operation, `${q.bucketMs / 1000} seconds`, new Date(fullFrom), new Date(fullTo)];
  if (q.region !== undefined) params.push(q.region);
  const [rolled, edges] = await Promise.all([
    db.query<Record<string, unknown>>(
      `select (extract(epoch from date_bin($2::interval, minute, timestamptz 'epoch')) * 1000)::bigint as t${dims}, sum(count)::bigint as n
         from decision_rollup where operation = $1 and minute >= $3 and minute < $4${q.region === undefined ? "" : " and region = $5"}${q.shadowed ? " and shadow <> 'none'" : ""}
        group by 1${groupBy}`,
      params,
    ),
    raw(q, [
      { from: q.from, to: fullFrom, fromIncluded, toIncluded: false },
      { from: fullTo, to: q.to, fromIncluded: true, toIncluded },
    ]),
  ]);
  const sums = new Map<string, TDecisionCount>();
  for (const c of [...rolled.rows.map((r) => countOf(q, r)), ...edges]) {
    const key = JSON.stringify([c.t, ...q.by.map((d) => c[d])]);
    const found = sums.get(key);
    if (found) found.n += c.n;
    else sums.set(key, { ...c });
  }
  return [...sums.values()].sort((a, b) => a.t - b.t);
}

export type TDisagreementGroupCount = { region: string; actual: string | null; shadow: string | null; count: number; lastAt: number };

/**
 * Disagreements (the shadow policy picked another provider) of one operation in [from, to], by
 * region and provider pair, largest first, each with its last decision's time: counted from the
 * rollup's whole minutes and the rows of the partial minutes at the ends, the last time read from
 * the rows of the groups' last minutes only.
 */
export async function countDisagreementGroups(
  db: TCountQueryable,
  q: { operation: string; from: number; to: number; limit: number },
): Promise<TDisagreementGroupCount[]> {
  const fullFrom = Math.floor(q.from / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const fullTo = Math.floor(q.to / MINUTE_MS) * MINUTE_MS;
  const whole = fullTo > fullFrom;
  const params: unknown[] = [q.operation, new Date(q.from), new Date(q.to), new Date(whole ? fullFrom : q.to), new Date(whole ? fullTo : q.to), q.limit];
  const raw = (
    cond: string,
  ) => `select region, selected_provider as actual, shadow_pick as shadow, count(*) as n, null::timestamptz as last_minute, max(created_at) as last_at
      from decision where operation = $1 and ${cond} and shadow_agrees = false group by 1, 2, 3`;
  const parts = whole
    ? [
        `select region, nullif(selected_provider, '') as actual, nullif(shadow_pick, '') as shadow, sum(count) as n, max(minute) as last_minute, null::timestamptz as last_at
           from decision_rollup where operation = $1 and minute >= $4 and minute < $5 and shadow = 'disagree' group by 1, 2, 3`,
        raw("created_at >= $2 and created_at < $4"),
        raw("created_at >= $5 and created_at <= $3"),
      ]
    : [raw("created_at >= $2 and created_at <= $3")];
  const { rows } = await db.query<{ region: string; actual: string | null; shadow: string | null; n: string; last_at: Date }>(
    `with parts as (${parts.join(" union all ")}),
     groups as (
       select region, actual, shadow, sum(n) as n, max(last_minute) as last_minute, max(last_at) as last_at from parts
        group by 1, 2, 3 order by 4 desc, 1, 2, 3 limit $6),
     -- One pass over the groups' last minutes (mostly the same one or two): a group's latest row
     -- in any of them is its latest in the whole minutes, since none of its rows is in a later one.
     latest as (
       select d.region, d.actual, d.shadow, max(d.last_at) as last_at
         from (select distinct last_minute from groups where last_minute is not null) m
         cross join lateral (
           select region, selected_provider as actual, shadow_pick as shadow, max(created_at) as last_at from decision
            where operation = $1 and created_at >= m.last_minute and created_at < m.last_minute + interval '1 minute' and shadow_agrees = false
            group by 1, 2, 3) d
        group by 1, 2, 3)
     select g.region, g.actual, g.shadow, g.n::bigint as n, greatest(g.last_at, l.last_at) as last_at
       from groups g
       left join latest l on l.region = g.region and l.actual is not distinct from g.actual and l.shadow is not distinct from g.shadow
      order by g.n desc, g.region, g.actual, g.shadow`,
    params,
  );
  return rows.map((r) => ({ region: r.region, actual: r.actual, shadow: r.shadow, count: Number(r.n), lastAt: new Date(r.last_at).getTime() }));
}
