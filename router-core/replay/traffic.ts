import { createSeededRandom } from "../random";

/**
 * Synthetic requests as parallel typed arrays: 36,000 objects per run would cost more than the
 * routing itself. Every random draw a run needs is made here, once per request, so every policy
 * replays exactly the same requests with the same luck (common random numbers): differences
 * between policies come from routing, not from sampling noise.
 */
export type TTraffic = {
  minutes: number;
  regions: readonly string[];
  /** Send time of each request, ms from the start of the run, non-decreasing. */
  at: Float64Array;
  /** Index into `regions`. */
  region: Uint8Array;
  /** The routing draw (decide's Random.next()). */
  uRoute: Float64Array;
  /** Whether the provider call fails, compared with the provider's failure probabilities. */
  uCall: Float64Array;
  /** Whether the business outcome completes, given the call answered. */
  uComplete: Float64Array;
  /** Standard normal draw for the latency. */
  zLatency: Float64Array;
};

export type TTrafficSpec = {
  minutes: number;
  requestsPerMinute: number;
  regions: readonly string[];
  /** Share of requests per region, same order as `regions`; normalised. */
  regionWeights: readonly number[];
};

/** Evenly spaced requests, regions drawn by weight. */
export function generateTraffic(spec: TTrafficSpec, seed: number): TTraffic {
  const { minutes, requestsPerMinute, regions, regionWeights } = spec;
  if (!Number.isInteger(minutes) || minutes < 1) throw new RangeError(`minutes must be an integer >= 1, got ${minutes}`);
  if (!Number.isInteger(requestsPerMinute) || requestsPerMinute < 1) {
    throw new RangeError(`requestsPerMinute must be an integer >= 1, got ${requestsPerMinute}`);
  }
  if (regions.length === 0 || regions.length !== regionWeights.length) {
    throw new RangeError(`regionWeights must have one weight per region (${regions.length}), got ${regionWeights.length}`);
  }
  const total = regionWeights.reduce((s, w) => s + w, 0);
  if (!(total > 0) || regionWeights.some((w) => !(w >= 0))) throw new RangeError(`regionWeights must be >= 0 with a positive sum`);
  const cumulative: number[] = [];
  let acc = 0;
  for (const w of regionWeights) cumulative.push((acc += w / total));
  const counts: number[][] = [];
  const random = createSeededRandom(seed);
  for (let m = 0; m < minutes; m++) {
    const row = new Array<number>(regions.length).fill(0);
    for (let i = 0; i < requestsPerMinute; i++) {
      const u = random.next();
      let r = 0;
      while (r < cumulative.length - 1 && u >= cumulative[r]!) r++;
      row[r]!++;
    }
    counts.push(row);
  }
  return fillTraffic(regions, counts, random, true);
}

/**
 * Requests from recorded per-minute counts per region (what-if replay). Within a minute the
 * regions are interleaved in proportion, so no region's requests bunch at the start.
 */
export function trafficFromCounts(regions: readonly string[], counts: readonly (readonly number[])[], seed: number): TTraffic {
  for (const row of counts) {
    if (row.length !== regions.length || row.some((c) => !Number.isInteger(c) || c < 0)) {
      throw new RangeError(`counts rows must hold ${regions.length} integer counts >= 0`);
    }
  }
  return fillTraffic(regions, counts, createSeededRandom(seed), false);
}

function fillTraffic(regions: readonly string[], counts: readonly (readonly number[])[], random: { next(): number }, shuffle: boolean): TTraffic {
  let n = 0;
  for (const row of counts) for (const c of row) n += c;
  const t: TTraffic = {
    minutes: counts.length,
    regions,
    at: new Float64Array(n),
    region: new Uint8Array(n),
    uRoute: new Float64Array(n),
    uCall: new Float64Array(n),
    uComplete: new Float64Array(n),
    zLatency: new Float64Array(n),
  };
  let i = 0;
  for (let m = 0; m < counts.length; m++) {
    const row = counts[m]!;
    const inMinute = row.reduce((s, c) => s + c, 0);
    const order = interleave(row, shuffle ? random : null);
    for (let k = 0; k < inMinute; k++, i++) {
      t.at[i] = m * 60_000 + ((k + 0.5) * 60_000) / inMinute;
      t.region[i] = order[k]!;
      t.uRoute[i] = random.next();
      t.uCall[i] = random.next();
      t.uComplete[i] = random.next();
      // Box–Muller; 1 − u keeps the logarithm finite.
      t.zLatency[i] = Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
    }
  }
  return t;
}

/** Region of each request slot in a minute: shuffled, or spread evenly by largest remainder. */
function interleave(row: readonly number[], random: { next(): number } | null): number[] {
  const out: number[] = [];
  for (let r = 0; r < row.length; r++) for (let k = 0; k < row[r]!; k++) out.push(r);
  if (random !== null) {
    for (let k = out.length - 1; k > 0; k--) {
      const j = Math.floor(random.next() * (k + 1));
      const tmp = out[k]!;
      out[k] = out[j]!;
      out[j] = tmp;
    }
    return out;
  }
  const total = out.length;
  const placed = new Array<number>(row.length).fill(0);
  const spread: number[] = [];
  for (let k = 0; k < total; k++) {
    let best = 0;
    let bestLag = -Infinity;
    for (let r = 0; r < row.length; r++) {
      const lag = ((k + 1) * row[r]!) / total - placed[r]!;
      if (placed[r]! < row[r]! && lag > bestLag) {
        best = r;
        bestLag = lag;
      }
    }
    placed[best]!++;
    spread.push(best);
  }
  return spread;
}

/** FNV-1a over the traffic arrays: a compact fingerprint for pinning generators in tests. */
export function trafficHash(t: TTraffic): string {
  let h = 0x811c9dc5;
  const mix = (x: number) => {
    h ^= x & 0xff;
    h = Math.imul(h, 0x01000193);
    h ^= (x >>> 8) & 0xff;
    h = Math.imul(h, 0x01000193);
    h ^= (x >>> 16) & 0xff;
    h = Math.imul(h, 0x01000193);
    h ^= x >>> 24;
    h = Math.imul(h, 0x01000193);
  };
  for (let i = 0; i < t.at.length; i++) {
    mix(Math.round(t.at[i]!));
    mix(t.region[i]!);
    mix(Math.floor(t.uRoute[i]! * 2 ** 31));
    mix(Math.floor(t.uCall[i]! * 2 ** 31));
    mix(Math.floor(t.uComplete[i]! * 2 ** 31));
    mix(Math.round(t.zLatency[i]! * 1e6));
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}
