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

/** A function that appends a value to `params` and returns its placeholder ($n). */
function placeholders(params: unknown[]): (v: unknown) => string {
  return (v) => {
    params.push(v);
    return `$${params.length}`;
  };
}

/** The whole minutes of [from, to]: from the minute after from's to the start of to's; whole when any lie between. */
function wholeMinutes(from: number, to: number): { fullFrom: number; fullTo: number; whole: boolean } {
  const fullFrom = Math.floor(from / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const fullTo = Math.floor(to / MINUTE_MS) * MINUTE_MS;
  return { fullFrom, fullTo, whole: fullTo > fullFrom };
}

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

/** decision_rollup's key columns after `minute`, and its count. */
const CELL_COLUMNS = "operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count";

/**
 * The minute cells: decision_rollup's and those decide's transactions left in
 * decision_rollup_pending since the last roll. decision_rollup_roll() moves pending cells in one
 * transaction, so at any snapshot each decision is counted in exactly one of the two.
 */
const MINUTE_CELLS = `(select minute, ${CELL_COLUMNS} from decision_rollup union all select minute, ${CELL_COLUMNS} from decision_rollup_pending)`;

/** The tiers' cells, the pending minute cells among them in the 10-minute and hour periods they fall in (see MINUTE_CELLS). */
const TIER_CELLS = `(select minutes, start, ${CELL_COLUMNS} from decision_rollup_tier union all
  select w.m, date_bin(w.m * interval '1 minute', minute, timestamptz 'epoch'), ${CELL_COLUMNS} from decision_rollup_pending cross join (values (10), (60)) as w(m))`;

/** decision_rollup_tier's period widths in minutes, coarsest first (its migration writes both). */
const TIER_MINUTES = [60, 10] as const;

/** A run of whole periods [from, to) of one width: 1 minute (decision_rollup) or a tier's. */
export type TRollupSegment = { minutes: number; from: number; to: number };

/**
 * Whole minutes [from, to) as runs of the coarsest periods that fit, finer ones only at the ends:
 * a week of hourly buckets is 168 hour cells and at most two partial hours of 10-minute and minute
 * cells at each end. A tier is used only when its periods nest in the buckets (its width divides
 * bucketMs; both are aligned to the epoch), so each period adds to exactly one bucket; every tier
 * when the count has no time buckets (`bucketMs` null).
 */
export function rollupSegments(from: number, to: number, bucketMs: number | null): TRollupSegment[] {
  const tiers = TIER_MINUTES.filter((m) => bucketMs === null || bucketMs % (m * MINUTE_MS) === 0);
  const out: TRollupSegment[] = [];
  const split = (a: number, b: number, i: number): void => {
    if (b <= a) return;
    const m = tiers[i];
    if (m === undefined) {
      out.push({ minutes: 1, from: a, to: b });
      return;
    }
    const w = m * MINUTE_MS;
    const first = Math.ceil(a / w) * w;
    const last = Math.floor(b / w) * w;
    if (last <= first) return split(a, b, i + 1);
    split(a, first, i + 1);
    out.push({ minutes: m, from: first, to: last });
    split(last, b, i + 1);
  };
  split(from, to, 0);
  return out;
}

/**
 * The SELECT of one segment's cells, one row per cell (the caller sums them): `b` the bucket
 * ($2, from the epoch), the dimensions as d0.., `n` the count. `p` adds a parameter.
 */
function segmentSql(q: TDecisionCountQuery, s: TRollupSegment, p: (v: unknown) => string, region: string): string {
  const dims = q.by.map((d, i) => `, ${DIMENSIONS[d].rollup} as d${i}`).join("");
  const shadowed = q.shadowed ? " and shadow <> 'none'" : "";
  if (s.minutes === 1)
    return `select date_bin($2::interval, minute, timestamptz 'epoch') as b${dims}, count as n from ${MINUTE_CELLS} c
      where operation = $1${region} and minute >= ${p(new Date(s.from))} and minute < ${p(new Date(s.to))}${shadowed}`;
  return `select date_bin($2::interval, start, timestamptz 'epoch') as b${dims}, count as n from ${TIER_CELLS} c
      where operation = $1${region} and minutes = ${s.minutes} and start >= ${p(new Date(s.from))} and start < ${p(new Date(s.to))}${shadowed}`;
}

/**
 * The SQL for a count: whole periods from the rollup (rollupSegments), the partial minutes at
 * either end of the range (at most two) from the decision rows, in one statement so all read one
 * snapshot, summed once. A range shorter than that is read from the rows alone.
 */
function plan(q: TDecisionCountQuery): TPlan {
  const params: unknown[] = [q.operation, `${q.bucketMs / 1000} seconds`];
  const p = placeholders(params);
  const region = q.region === undefined ? "" : ` and region = ${p(q.region)}`;
  const dims = q.by.map((d, i) => ({ name: `d${i}`, ...DIMENSIONS[d] }));
  const groupBy = dims.map((_, i) => `, ${i + 2}`).join("");
  const lo = q.bounds[0] === "(" ? ">" : ">=";
  const hi = q.bounds[1] === "]" ? "<=" : "<";
  const { fullFrom, fullTo } = wholeMinutes(q.from, q.to);
  const raw = (cond: string) =>
    `select date_bin($2::interval, created_at, timestamptz 'epoch') as b${dims.map((d) => `, ${d.raw} as ${d.name}`).join("")}, count(*) as n from decision
      where operation = $1${region} and ${cond}${q.shadowed ? " and shadow_agrees is not null" : ""} group by 1${groupBy}`;
  const parts: string[] = [];
  if (fullTo <= fullFrom) parts.push(raw(`created_at ${lo} ${p(new Date(q.from))} and created_at ${hi} ${p(new Date(q.to))}`));
  else {
    const from = p(new Date(q.from));
    const a = p(new Date(fullFrom));
    const b = p(new Date(fullTo));
    const to = p(new Date(q.to));
    parts.push(
      ...rollupSegments(fullFrom, fullTo, q.bucketMs).map((s) => segmentSql(q, s, p, region)),
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
 * The same count when the rows are in another store: the whole periods from the rollup here
 * (rollupSegments), the partial minutes at the ends from `raw`, summed per bucket and dimensions.
 */
async function countWithRawStore(db: TCountQueryable, q: TDecisionCountQuery, raw: TRawDecisionCounter): Promise<TDecisionCount[]> {
  const { fullFrom, fullTo } = wholeMinutes(q.from, q.to);
  const fromIncluded = q.bounds[0] === "[";
  const toIncluded = q.bounds[1] === "]";
  if (fullTo <= fullFrom) return raw(q, [{ from: q.from, to: q.to, fromIncluded, toIncluded }]);
  const params: unknown[] = [q.operation, `${q.bucketMs / 1000} seconds`];
  const p = placeholders(params);
  const region = q.region === undefined ? "" : ` and region = ${p(q.region)}`;
  const parts = rollupSegments(fullFrom, fullTo, q.bucketMs).map((s) => segmentSql(q, s, p, region));
  const outer = q.by.map((_, i) => `, d${i}`).join("");
  const [rolled, edges] = await Promise.all([
    db.query<Record<string, unknown>>(
      `select (extract(epoch from b) * 1000)::bigint as t${outer}, sum(n)::bigint as n from (${parts.join(" union all ")}) c group by b${outer}`,
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
 * Disagreements of an operation (shadow_agrees false) in the decision rows kept in another store
 * (lib/decision-store: ClickHouse), by region and provider pair, in no particular order: each
 * group's rows in `counted` and its last decision's time (epoch ms) in `counted` and `latest`
 * together. A group with rows in `latest` only comes with a count of 0.
 */
export type TRawDisagreementGroups = (operation: string, counted: readonly TRawRange[], latest: readonly TRawRange[]) => Promise<TDisagreementGroupCount[]>;

/** The most groups one count lists; the console asks for 50. */
const MAX_GROUP_LIMIT = 1_000;

/** The most last-minute ranges one read of the other store is given (its reader takes up to 1,000). */
const RAW_RANGES_PER_READ = 250;

/**
 * One rollup segment's disagreement cells by region and provider pair, with the span
 * [last_lo, last_hi) of the group's last period in it. The segments are disjoint and in time
 * order, so the latest span of a group has both the greatest start and the greatest end, and
 * max() of each picks it. `p` adds a parameter ($1 is the operation).
 */
function disagreementSegmentSql(s: TRollupSegment, p: (v: unknown) => string): string {
  const [table, t, width] = s.minutes === 1 ? [MINUTE_CELLS, "minute", ""] : [TIER_CELLS, "start", ` and minutes = ${s.minutes}`];
  return `select region, nullif(selected_provider, '') as actual, nullif(shadow_pick, '') as shadow, sum(count) as n,
      max(${t}) as last_lo, max(${t}) + interval '${s.minutes} minutes' as last_hi, null::timestamptz as last_at
      from ${table} c where operation = $1${width} and ${t} >= ${p(new Date(s.from))} and ${t} < ${p(new Date(s.to))} and shadow = 'disagree' group by 1, 2, 3`;
}

/**
 * The group's last minute in its last period, from the minute cells (at most 60 minutes of one
 * region's cells, by the key's prefix), for each row of `groups` that has a last period.
 */
const NARROW_SQL = `cross join lateral (
       select max(minute) as last_minute from ${MINUTE_CELLS} r
        where g.last_lo is not null and r.operation = $1 and r.region = g.region and r.minute >= g.last_lo and r.minute < g.last_hi
          and r.selected_provider = coalesce(g.actual, '') and r.shadow = 'disagree' and r.shadow_pick = coalesce(g.shadow, '')) m`;

/**
 * Disagreements (the shadow policy picked another provider) of one operation in [from, to], by
 * region and provider pair, largest first, each with its last decision's time: counted from the
 * rollup's whole periods (hours, then 10-minute and minute cells at the ends) and the rows of the
 * partial minutes at the ends; the last time is narrowed from the group's last period to its last
 * minute through the minute cells, then read from the rows of that minute only. With `raw` (the
 * rows are in ClickHouse), those rows are read through it (countWithRawGroups).
 */
export async function countDisagreementGroups(
  db: TCountQueryable,
  q: { operation: string; from: number; to: number; limit: number },
  raw?: TRawDisagreementGroups,
): Promise<TDisagreementGroupCount[]> {
  if (!Number.isInteger(q.limit) || q.limit < 1 || q.limit > MAX_GROUP_LIMIT) throw new RangeError(`limit must be 1..${MAX_GROUP_LIMIT}, got ${q.limit}`);
  if (!(q.to >= q.from)) throw new RangeError(`to must not be before from, got ${q.from} .. ${q.to}`);
  if (raw) return countWithRawGroups(db, q, raw);
  const { fullFrom, fullTo, whole } = wholeMinutes(q.from, q.to);
  // Every parameter is one the statement uses: Postgres cannot type one it does not (a range
  // shorter than two minutes has no whole minutes).
  const params: unknown[] = [q.operation, q.limit, new Date(q.from), new Date(q.to)];
  const p = placeholders(params);
  const rawRows = (cond: string) => `select region, selected_provider as actual, shadow_pick as shadow, count(*) as n,
      null::timestamptz as last_lo, null::timestamptz as last_hi, max(created_at) as last_at
      from decision where operation = $1 and ${cond} and shadow_agrees = false group by 1, 2, 3`;
  const parts = whole
    ? [
        ...rollupSegments(fullFrom, fullTo, null).map((s) => disagreementSegmentSql(s, p)),
        rawRows(`created_at >= $3 and created_at < ${p(new Date(fullFrom))}`),
        rawRows(`created_at >= ${p(new Date(fullTo))} and created_at <= $4`),
      ]
    : [rawRows("created_at >= $3 and created_at <= $4")];
  const { rows } = await db.query<{ region: string; actual: string | null; shadow: string | null; n: string; last_at: Date }>(
    `with parts as (${parts.join(" union all ")}),
     groups as (
       select region, actual, shadow, sum(n) as n, max(last_lo) as last_lo, max(last_hi) as last_hi, max(last_at) as last_at from parts
        group by 1, 2, 3 order by 4 desc, 1, 2, 3 limit $2),
     narrowed as (select g.*, m.last_minute from groups g ${NARROW_SQL}),
     -- One pass over the groups' last minutes (mostly the same one or two): a group's latest row
     -- in any of them is its latest in the whole periods, since none of its rows is in a later one.
     latest as (
       select d.region, d.actual, d.shadow, max(d.last_at) as last_at
         from (select distinct last_minute from narrowed where last_minute is not null) m
         cross join lateral (
           select region, selected_provider as actual, shadow_pick as shadow, max(created_at) as last_at from decision
            where operation = $1 and created_at >= m.last_minute and created_at < m.last_minute + interval '1 minute' and shadow_agrees = false
            group by 1, 2, 3) d
        group by 1, 2, 3)
     select g.region, g.actual, g.shadow, g.n::bigint as n, greatest(g.last_at, l.last_at) as last_at
       from narrowed g
       left join latest l on l.region = g.region and l.actual is not distinct from g.actual and l.shadow is not distinct from g.shadow
      order by g.n desc, g.region, g.actual, g.shadow`,
    params,
  );
  return rows.map((r) => ({ region: r.region, actual: r.actual, shadow: r.shadow, count: Number(r.n), lastAt: new Date(r.last_at).getTime() }));
}

/**
 * The same groups when the rows are in another store, in three steps with one read of that
 * store: every group of the whole periods with its last minute, from the rollups here; then the
 * rows of the partial minutes at the ends (counted) and of those last minutes (their times only;
 * a group's latest row in any of them is its latest in the whole periods, since none of its rows
 * is in a later one), in one read through `raw`; then the order and the limit, by Postgres, so
 * that ties order by its collation as in Postgres mode.
 */
async function countWithRawGroups(
  db: TCountQueryable,
  q: { operation: string; from: number; to: number; limit: number },
  raw: TRawDisagreementGroups,
): Promise<TDisagreementGroupCount[]> {
  const { fullFrom, fullTo, whole } = wholeMinutes(q.from, q.to);
  type TRolled = { region: string; actual: string | null; shadow: string | null; n: unknown; minute_ms: unknown };
  let rolled: TRolled[] = [];
  if (whole) {
    const params: unknown[] = [q.operation];
    const p = placeholders(params);
    const parts = rollupSegments(fullFrom, fullTo, null).map((s) => disagreementSegmentSql(s, p));
    ({ rows: rolled } = await db.query<TRolled>(
      `with groups as (
         select region, actual, shadow, sum(n) as n, max(last_lo) as last_lo, max(last_hi) as last_hi from (${parts.join(" union all ")}) c group by 1, 2, 3)
       select g.region, g.actual, g.shadow, g.n::bigint as n, (extract(epoch from m.last_minute) * 1000)::bigint as minute_ms from groups g ${NARROW_SQL}`,
      params,
    ));
  }
  const edges: TRawRange[] = whole
    ? [
        { from: q.from, to: fullFrom, fromIncluded: true, toIncluded: false },
        { from: fullTo, to: q.to, fromIncluded: true, toIncluded: true },
      ]
    : [{ from: q.from, to: q.to, fromIncluded: true, toIncluded: true }];
  // The last minutes, adjacent ones joined (a group's rows in a minute before its last one do not
  // move its latest), in reads of at most RAW_RANGES_PER_READ ranges: as many as the groups at worst.
  const latest: TRawRange[] = [];
  for (const m of [...new Set(rolled.flatMap((r) => (r.minute_ms === null ? [] : [Number(r.minute_ms)])))].sort((a, b) => a - b)) {
    const last = latest.at(-1);
    if (last && last.to === m) last.to = m + MINUTE_MS;
    else latest.push({ from: m, to: m + MINUTE_MS, fromIncluded: true, toIncluded: false });
  }
  const found: TDisagreementGroupCount[] = [];
  for (let i = 0; i === 0 || i < latest.length; i += RAW_RANGES_PER_READ)
    found.push(...(await raw(q.operation, i === 0 ? edges : [], latest.slice(i, i + RAW_RANGES_PER_READ))));
  const key = (g: { region: string; actual: string | null; shadow: string | null }) => JSON.stringify([g.region, g.actual, g.shadow]);
  const groups = new Map<string, TDisagreementGroupCount>();
  // A last minute the rollup counts but the other store holds no row of (an instance killed between
  // its claim and its insert) still dates the group, by the minute's start.
  for (const r of rolled)
    groups.set(key(r), {
      region: r.region,
      actual: r.actual,
      shadow: r.shadow,
      count: Number(r.n),
      lastAt: r.minute_ms === null ? -Infinity : Number(r.minute_ms),
    });
  for (const f of found) {
    const g = groups.get(key(f));
    if (g) {
      g.count += f.count;
      g.lastAt = Math.max(g.lastAt, f.lastAt);
    } else if (f.count > 0) groups.set(key(f), { ...f });
  }
  const all = [...groups.values()];
  if (all.length === 0) return [];
  const { rows } = await db.query<{ i: number }>(
    `select i from unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) with ordinality as g(region, actual, shadow, n, i)
      order by n desc, region, actual, shadow limit $5`,
    [all.map((g) => g.region), all.map((g) => g.actual), all.map((g) => g.shadow), all.map((g) => g.count), q.limit],
  );
  return rows.map((r) => all[Number(r.i) - 1]!);
}

/** Decisions per minute of [startMs, startMs + minutes), one dense array per region and selected provider (null: none). */
export type TServedMinutes = { startMs: number; minutes: number; cells: { region: string; provider: string | null; counts: number[] }[] };

const HOUR_MS = 60 * MINUTE_MS;

/**
 * Decisions of one operation in [from, to) per minute, region and selected provider, exactly as
 * counting the rows would: whole hours from decision_served_minutes (one row per hour, region and
 * provider with its 60 minutes), the other whole minutes from decision_rollup, the partial minutes
 * at the ends from the rows (or `raw`, in ClickHouse mode). A week reads 168 rows per (region,
 * provider) however busy its minutes were, and returns arrays rather than a row per minute.
 */
export async function countServedMinutes(
  db: TCountQueryable,
  q: { operation: string; from: number; to: number },
  raw?: TRawDecisionCounter,
): Promise<TServedMinutes> {
  if (!(q.to > q.from)) throw new RangeError(`to must be after from, got ${q.from} .. ${q.to}`);
  const startMs = Math.floor(q.from / MINUTE_MS) * MINUTE_MS;
  const minutes = Math.ceil((q.to - startMs) / MINUTE_MS);
  const fullFrom = startMs + MINUTE_MS;
  const fullTo = Math.max(fullFrom, Math.floor(q.to / MINUTE_MS) * MINUTE_MS);
  const h1 = Math.min(fullTo, Math.ceil(fullFrom / HOUR_MS) * HOUR_MS);
  const h2 = Math.max(h1, Math.floor(fullTo / HOUR_MS) * HOUR_MS);
  const params: unknown[] = [q.operation, new Date(fullFrom), new Date(h1), new Date(h2), new Date(fullTo)];
  const parts = [
    `select region, nullif(selected_provider, '') as provider, hour as t, null::bigint as n, array_to_string(minutes, ',') as minutes from decision_served_minutes
      where operation = $1 and hour >= $3 and hour < $4`,
    // The whole hours' pending cells (MINUTE_CELLS) are not in decision_served_minutes yet.
    `select region, nullif(selected_provider, '') as provider, minute as t, sum(count)::bigint as n, null::text as minutes from decision_rollup_pending
      where operation = $1 and minute >= $3 and minute < $4 group by 1, 2, 3`,
    `select region, nullif(selected_provider, '') as provider, minute as t, sum(count)::bigint as n, null::text as minutes from ${MINUTE_CELLS} c
      where operation = $1 and (minute >= $2 and minute < $3 or minute >= $4 and minute < $5) group by 1, 2, 3`,
  ];
  const edges: TRawRange[] = [
    { from: q.from, to: Math.min(fullFrom, q.to), fromIncluded: true, toIncluded: false },
    ...(fullTo < q.to && fullTo >= fullFrom ? [{ from: Math.max(fullTo, q.from), to: q.to, fromIncluded: true, toIncluded: false }] : []),
  ];
  if (!raw) {
    for (const e of edges) {
      params.push(new Date(e.from), new Date(e.to));
      parts.push(`select region, selected_provider as provider, date_bin('1 minute', created_at, timestamptz 'epoch') as t, count(*) as n, null::text as minutes
        from decision where operation = $1 and created_at >= $${params.length - 1} and created_at < $${params.length} group by 1, 2, 3`);
    }
  }
  // The minutes travel as text: split and converted, a week's arrays take half the time pg's array parser does.
  type TRow = { region: string; provider: string | null; t: unknown; n: unknown; minutes: string | null };
  const [rolled, rawCounts] = await Promise.all([
    db.query<TRow>(`select region, provider, (extract(epoch from t) * 1000)::bigint as t, n, minutes from (${parts.join(" union all ")}) c`, params),
    raw ? raw({ operation: q.operation, from: q.from, to: q.to, bounds: "[)", bucketMs: MINUTE_MS, by: ["region", "provider"] }, edges) : Promise.resolve([]),
  ]);
  const cells = new Map<string, { region: string; provider: string | null; counts: number[] }>();
  const cellOf = (region: string, provider: string | null) => {
    const key = `${region}\u001f${provider ?? ""}`;
    let cell = cells.get(key);
    if (!cell) cells.set(key, (cell = { region, provider, counts: new Array<number>(minutes).fill(0) }));
    return cell.counts;
  };
  // Each row's minutes added from its first minute's index: one lookup per row, not per minute.
  const add = (counts: number[], t: number, ns: readonly number[]) => {
    const first = (t - startMs) / MINUTE_MS;
    for (let i = 0; i < ns.length; i++) if (first + i >= 0 && first + i < minutes) counts[first + i]! += ns[i]!;
  };
  for (const r of rolled.rows) add(cellOf(r.region, r.provider), Number(r.t), r.minutes === null ? [Number(r.n)] : r.minutes.split(",").map(Number));
  for (const c of rawCounts) add(cellOf(c.region!, c.provider ?? null), c.t, [c.n]);
  const order = (c: { region: string; provider: string | null }) => `${c.region}\u001f${c.provider ?? ""}`;
  return { startMs, minutes, cells: [...cells.values()].sort((a, b) => order(a).localeCompare(order(b))) };
}
