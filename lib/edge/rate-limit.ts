type TEnv = Readonly<Record<string, string | undefined>>;

/** Requests per second and burst size for one key; perSecond 0 means unlimited. */
export type TRateLimit = { perSecond: number; burst: number };

export type TRateLimitSettings = {
  /** Applies to every key without an override. */
  defaultLimit: TRateLimit;
  /** By key prefix (the 8 hex characters after `sy_`), or `env` for SWITCHYARD_API_KEY. */
  overrides: ReadonlyMap<string, TRateLimit>;
};

export type TRateDecision = { ok: true } | { ok: false; retryAfterSeconds: number; limit: TRateLimit };

/**
 * Generous: one instance answers about 25k decides/s on two cores, so a single service key
 * hitting 2,000/s sustained (4,000 burst) is a runaway loop, not a busy service.
 */
export const DEFAULT_RATE_LIMIT: TRateLimit = { perSecond: 2000, burst: 4000 };

/**
 * The bootstrap key is the operator's own (benchmarks and load tests use it); it is limited
 * only when API_KEY_RATE_LIMITS names `env`.
 */
const UNLIMITED: TRateLimit = { perSecond: 0, burst: 0 };

/** Above this many tracked keys, idle full buckets are dropped (they carry no state). */
const MAX_BUCKETS = 10_000;

function parseLimit(name: string, raw: string): TRateLimit {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(\d+))?\s*$/.exec(raw);
  if (!m) throw new RangeError(`${name} must be "<requests per second>" or "<requests per second>/<burst>", got ${JSON.stringify(raw)}`);
  const perSecond = Number(m[1]);
  const burst = m[2] === undefined ? Math.max(1, Math.ceil(perSecond * 2)) : Number(m[2]);
  if (perSecond > 0 && burst < 1) throw new RangeError(`${name}: burst must be at least 1, got ${JSON.stringify(raw)}`);
  return { perSecond, burst };
}

/**
 * API_KEY_RATE_LIMIT: "2000" or "2000/4000" (per second / burst) for governance-issued keys,
 * "0" turns limiting off.
 * API_KEY_RATE_LIMITS: per-key overrides, "ab12cd34=50/100,env=0" (prefix or `env`).
 */
export function rateLimitSettingsFromEnv(env: TEnv): TRateLimitSettings {
  const raw = env.API_KEY_RATE_LIMIT;
  const defaultLimit = raw === undefined || raw.trim() === "" ? DEFAULT_RATE_LIMIT : parseLimit("API_KEY_RATE_LIMIT", raw);
  const overrides = new Map<string, TRateLimit>([["env", UNLIMITED]]);
  for (const part of (env.API_KEY_RATE_LIMITS ?? "").split(",")) {
    if (part.trim() === "") continue;
    const eq = part.indexOf("=");
    const key = eq < 0 ? "" : part.slice(0, eq).trim();
    if (!/^(env|[0-9a-f]{8})$/.test(key)) {
      throw new RangeError(`API_KEY_RATE_LIMITS entries must be "<key prefix>=<limit>" or "env=<limit>", got ${JSON.stringify(part.trim())}`);
    }
    overrides.set(key, parseLimit(`API_KEY_RATE_LIMITS (${key})`, part.slice(eq + 1)));
  }
  return { defaultLimit, overrides };
}

type TBucket = { tokens: number; at: number };

/**
 * One token bucket per key, refilled lazily on each call: a Map lookup and a few float
 * operations on the hot path, no timers. Per instance: N instances allow N times the rate.
 */
export function createRateLimiter(settings: TRateLimitSettings, now: () => number = Date.now) {
  const buckets = new Map<string, TBucket>();

  function limitFor(key: string): TRateLimit {
    return settings.overrides.get(key) ?? settings.defaultLimit;
  }

  function prune(t: number): void {
    for (const [key, b] of buckets) {
      const limit = limitFor(key);
      if (b.tokens + ((t - b.at) / 1000) * limit.perSecond >= limit.burst) buckets.delete(key);
    }
    // Every bucket still draining: keep the newest half rather than grow without bound.
    if (buckets.size >= MAX_BUCKETS) for (const key of [...buckets.keys()].slice(0, MAX_BUCKETS / 2)) buckets.delete(key);
  }

  return {
    /**
     * Takes `cost` tokens for `key` (a batch costs one per item); when they are not there, says
     * how long until they are. A cost above the burst needs a full bucket and leaves it in debt,
     * so a batch larger than the burst is possible but the key's average rate still holds.
     */
    take(key: string, cost = 1): TRateDecision {
      const limit = limitFor(key);
      if (limit.perSecond <= 0) return { ok: true };
      const t = now();
      let b = buckets.get(key);
      if (!b) {
        if (buckets.size >= MAX_BUCKETS) prune(t);
        b = { tokens: limit.burst, at: t };
        buckets.set(key, b);
      } else {
        b.tokens = Math.min(limit.burst, b.tokens + ((t - b.at) / 1000) * limit.perSecond);
        b.at = t;
      }
      const needed = Math.min(cost, limit.burst);
      if (b.tokens >= needed) {
        b.tokens -= cost;
        return { ok: true };
      }
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((needed - b.tokens) / limit.perSecond)), limit };
    },
    size: () => buckets.size,
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
