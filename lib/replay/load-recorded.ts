import { createHistogram, histogramQuantile, HISTOGRAM_BUCKETS, type TLatencyHistogram } from "../../router-core/metrics/histogram";
import { countServedMinutes, type TRawDecisionCounter } from "../dataplane";
import type { TRecordedCell, TRecordedTraffic } from "./what-if";

/** Anything with pg's query signature (a Pool or a Client). */
export type TQueryable = { query<R>(sql: string, params: unknown[]): Promise<{ rows: R[] }> };

type TBucketRow = {
  provider_key: string;
  region: string;
  start_ms: string;
  calls: string;
  call_failures: string;
  /** The histogram's counts as "n,n,…" (see addCounts). */
  latency_counts: string;
  completions: string;
  failures_provider_call: string;
};

const MINUTE_MS = 60_000;

/**
 * Recorded traffic of one operation for [from, to) from the decision log's counts (how many
 * requests, where, and which provider each went to; client-local decisions included) and the merged metric buckets (how each provider
 * behaved per region and minute). Buckets narrower than a minute are summed into their minute.
 * `extraProviders` (the draft's provider list) become candidates even if nothing recorded them.
 */
export async function loadRecordedTraffic(
  db: TQueryable,
  operation: string,
  from: Date,
  to: Date,
  extraProviders: readonly string[] = [],
  /** ClickHouse mode: the decision rows are counted there (lib/decision-store). */
  raw?: TRawDecisionCounter,
): Promise<TRecordedTraffic> {
  if (!(to.getTime() > from.getTime())) throw new RangeError(`--to must be after --from, got ${from.toISOString()} .. ${to.toISOString()}`);
  const startMs = Math.floor(from.getTime() / MINUTE_MS) * MINUTE_MS;
  const minutes = Math.ceil((to.getTime() - startMs) / MINUTE_MS);
  // Per minute from the decision log's rollups (whole hours as one row of 60 minutes per region and
  // provider, the partial minutes at the ends from its rows): exact, whatever the range holds.
  const counted = await countServedMinutes(db, { operation, from: from.getTime(), to: to.getTime() }, raw);
  const buckets = await db.query<TBucketRow>(
    `SELECT provider_key, region, (extract(epoch FROM bucket_start) * 1000)::bigint AS start_ms, calls, call_failures,
            array_to_string(latency_counts, ',') AS latency_counts, completions, failures_provider_call
       FROM metric_bucket
      WHERE operation_key = $1 AND bucket_start >= $2 AND bucket_start < $3`,
    [operation, from, to],
  );

  const providers = [
    ...new Set([...extraProviders, ...buckets.rows.map((b) => b.provider_key), ...counted.cells.flatMap((c) => (c.provider ? [c.provider] : []))]),
  ];
  const regions = [...new Set(counted.cells.map((c) => c.region))].sort();
  if (regions.length === 0) throw new RangeError(`no recorded decisions for ${operation} between ${from.toISOString()} and ${to.toISOString()}`);
  const P = providers.length;
  const R = regions.length;
  const requests = Array.from({ length: minutes }, () => new Array<number>(R).fill(0));
  const selected = Array.from({ length: minutes }, () => new Array<number>(P).fill(0));
  for (const c of counted.cells) {
    const r = regions.indexOf(c.region);
    const p = c.provider === null ? -1 : providers.indexOf(c.provider);
    // countServedMinutes starts at the same minute (from's) and spans the same minutes.
    c.counts.forEach((n, m) => {
      if (n === 0 || m >= minutes) return;
      requests[m]![r]! += n;
      if (p >= 0) selected[m]![p]! += n;
    });
  }

  type TAcc = TRecordedCell & { latency: TLatencyHistogram };
  const acc: (TAcc | null)[][][] = Array.from({ length: minutes }, () => Array.from({ length: P }, () => new Array<TAcc | null>(R).fill(null)));
  for (const b of buckets.rows) {
    const m = Math.floor((Number(b.start_ms) - startMs) / MINUTE_MS);
    const p = providers.indexOf(b.provider_key);
    const r = regions.indexOf(b.region);
    if (m < 0 || m >= minutes || p < 0 || r < 0) continue;
    let cell = acc[m]![p]![r]!;
    if (cell === null) {
      cell = { calls: 0, callFailures: 0, completions: 0, providerFailures: 0, p95Ms: null, latency: createHistogram() };
      acc[m]![p]![r] = cell;
    }
    cell.calls += Number(b.calls);
    cell.callFailures += Number(b.call_failures);
    cell.completions += Number(b.completions);
    cell.providerFailures += Number(b.failures_provider_call);
    addCounts(cell.latency.counts, b.latency_counts);
  }
  const cells = acc.map((byProvider) =>
    byProvider.map((byRegion) =>
      byRegion.map((c) =>
        c === null || c.calls === 0
          ? null
          : {
              calls: c.calls,
              callFailures: c.callFailures,
              completions: c.completions,
              providerFailures: c.providerFailures,
              p95Ms: histogramQuantile(c.latency, 0.95),
            },
      ),
    ),
  );
  return { operation, startMs, providers, regions, requests, selected, cells, ...(await loadCatalog(db, operation)) };
}

/**
 * Adds "n,n,…" (a histogram's counts as array_to_string sends them) into `into`, element by
 * element, at most HISTOGRAM_BUCKETS of them. A bucket row carries 185 counts, mostly zero; six
 * hours of buckets are a million of them, which pg's array parser turned into strings first.
 */
export function addCounts(into: number[], text: string): void {
  if (text === "") return;
  let i = 0;
  let n = 0;
  let digits = false;
  for (let k = 0; k <= text.length; k++) {
    const c = k < text.length ? text.charCodeAt(k) : 44;
    if (c === 44) {
      if (!digits) throw new RangeError(`histogram counts: an empty count at ${k} in "${text.slice(0, 40)}"`);
      if (i < HISTOGRAM_BUCKETS) into[i] = (into[i] ?? 0) + n;
      i++;
      n = 0;
      digits = false;
    } else if (c >= 48 && c <= 57) {
      n = n * 10 + (c - 48);
      digits = true;
    } else {
      throw new RangeError(`histogram counts: "${text[k]}" at ${k} is not a digit or a comma`);
    }
  }
}

type TProviderRow = { key: string; supported_regions: string[]; compliance_tags: string[] };

/** The catalogue the gates read (regions, compliance tags) and the operation's regional requirements. */
async function loadCatalog(db: TQueryable, operation: string): Promise<Pick<TRecordedTraffic, "catalog" | "regionRequirements">> {
  const providers = await db.query<TProviderRow>(`SELECT key, supported_regions, compliance_tags FROM provider`, []);
  const op = await db.query<{ region_requirements: unknown }>(`SELECT region_requirements FROM operation WHERE key = $1`, [operation]);
  const raw = op.rows[0]?.region_requirements;
  const regionRequirements: Record<string, string[]> = {};
  if (raw && typeof raw === "object" && !Array.isArray(raw)) {
    for (const [region, tags] of Object.entries(raw))
      if (Array.isArray(tags)) regionRequirements[region] = tags.filter((t): t is string => typeof t === "string");
  }
  // A declared region's rule applies to every operation there, as the data plane applies it.
  const regions = await db.query<{ name: string; requires: string[] | null }>(`SELECT name, requires FROM region`, []);
  for (const r of regions.rows)
    if (r.requires && r.requires.length > 0) regionRequirements[r.name] = [...new Set([...(regionRequirements[r.name] ?? []), ...r.requires])].sort();
  return {
    catalog: providers.rows.map((p) => ({ key: p.key, regions: p.supported_regions, complianceTags: p.compliance_tags })),
    regionRequirements,
  };
}
