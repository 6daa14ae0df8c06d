import { z } from "zod";
import { FALLBACK_POLICY_NAMES, GATE_NAMES, SCORE_DIRECTIONS, SCORE_NAMES, STALE_POLICIES, STRATEGY_NAMES, type TScoreName } from "./names";
import { numberText } from "./number-text";

type Bound = { value: number; open: boolean };

/**
 * Numbers whose errors name the option and the value, e.g.
 * "max_traffic_shift_per_minute must be in (0, 1], got 1.5".
 */
function boundedNumber(name: string, lo: Bound | null, hi: Bound | null, integer = false) {
  const interval = `${lo ? (lo.open ? "(" : "[") + lo.value : "(-inf"}, ${hi ? hi.value + (hi.open ? ")" : "]") : "inf)"}`;
  return z.number({ error: (iss) => `${name} must be a number, got ${describe(iss.input)}` }).superRefine((v, ctx) => {
    const below = lo !== null && (lo.open ? v <= lo.value : v < lo.value);
    const above = hi !== null && (hi.open ? v >= hi.value : v > hi.value);
    if (!Number.isFinite(v) || below || above) {
      ctx.addIssue({ code: "custom", message: `${name} must be in ${interval}, got ${v}` });
    } else if (integer && !Number.isInteger(v)) {
      ctx.addIssue({ code: "custom", message: `${name} must be an integer, got ${v}` });
    }
  });
}

const closed = (value: number): Bound => ({ value, open: false });
const open = (value: number): Bound => ({ value, open: true });

function describe(input: unknown): string {
  if (typeof input === "string") return JSON.stringify(input);
  if (input === null) return "null";
  if (input === undefined) return "nothing (required)";
  if (Array.isArray(input)) return "an array";
  return typeof input === "object" ? "an object" : String(input);
}

function namedEnum<const T extends readonly [string, ...string[]]>(kind: string, names: T) {
  return z.enum(names, {
    error: (iss) => `unknown ${kind} ${describe(iss.input)}; known ${kind} names: ${names.join(", ")}`,
  });
}

const nonEmptyString = (name: string) =>
  z.string({ error: (iss) => `${name} must be a string, got ${describe(iss.input)}` }).min(1, `${name} must not be empty`);

export const ZScore = z.strictObject({
  weight: boundedNumber("weight", closed(0), closed(1)),
  direction: z.enum(["higher", "lower"], {
    error: (iss) => `direction must be "higher" or "lower", got ${describe(iss.input)}`,
  }),
  /**
   * Latency scores only: the operation's latency objective in ms. A provider slower than it
   * scores at most 100 × slo_ms / own even when no other candidate has data to be compared with.
   * Omitted on p95_latency_5m: guardrails.max_p95_ms when set; otherwise relative only.
   */
  slo_ms: boundedNumber("slo_ms", open(0), null).optional(),
});

/** The scores an absolute latency objective applies to. */
export const SLO_SCORES: readonly TScoreName[] = ["p95_latency_5m", "p99_latency_5m"];

export const ZGuardrails = z.strictObject({
  max_p95_ms: boundedNumber("max_p95_ms", open(0), null).optional(),
  max_cost_per_request: boundedNumber("max_cost_per_request", closed(0), null).optional(),
  min_confidence: boundedNumber("min_confidence", closed(0), closed(1)).optional(),
});

export const ZSafety = z.strictObject({
  max_traffic_shift_per_minute: boundedNumber("max_traffic_shift_per_minute", open(0), closed(1)).default(0.25),
  primary_probe_share: boundedNumber("primary_probe_share", closed(0), closed(0.5)).default(0.01),
  primary_recovery_cooldown_seconds: boundedNumber("primary_recovery_cooldown_seconds", closed(0), null).default(300),
  require_reason_code: z.boolean({ error: "require_reason_code must be a boolean" }).default(true),
});

/** Defaults follow the token-gateway article (docs/references.md) (5 consecutive failures or > 30% in 5 min) and Envoy's capped backoff. */
export const ZCircuitBreaker = z
  .strictObject({
    consecutive_failures: boundedNumber("consecutive_failures", closed(1), null, true).default(5),
    failure_rate_threshold: boundedNumber("failure_rate_threshold", open(0), closed(1)).default(0.3),
    window_seconds: boundedNumber("window_seconds", open(0), null).default(300),
    min_calls: boundedNumber("min_calls", closed(1), null, true).default(20),
    open_seconds: boundedNumber("open_seconds", open(0), null).default(30),
    max_open_seconds: boundedNumber("max_open_seconds", open(0), null).default(600),
    backoff_multiplier: boundedNumber("backoff_multiplier", closed(1), null).default(2),
    half_open_probes: boundedNumber("half_open_probes", closed(1), null, true).default(5),
    half_open_successes_to_close: boundedNumber("half_open_successes_to_close", closed(1), null, true).default(3),
  })
  .superRefine((cb, ctx) => {
    if (cb.max_open_seconds < cb.open_seconds) {
      ctx.addIssue({
        code: "custom",
        path: ["max_open_seconds"],
        message: `max_open_seconds must be >= open_seconds (${cb.open_seconds}), got ${cb.max_open_seconds}`,
      });
    }
    if (cb.half_open_successes_to_close > cb.half_open_probes) {
      ctx.addIssue({
        code: "custom",
        path: ["half_open_successes_to_close"],
        message: `half_open_successes_to_close must be <= half_open_probes (${cb.half_open_probes}), got ${cb.half_open_successes_to_close}`,
      });
    }
  });

/** Regional rules are owned by compliance (the paper's section 5, docs/references.md): changing them needs their approval. */
export const ZRegionRule = z.strictObject({
  /** Only these providers may serve the region; omitted = any provider that supports it. */
  providers: z.array(nonEmptyString("provider")).optional(),
  /** Compliance tags every provider serving the region must carry. */
  required_compliance: z.array(nonEmptyString("required_compliance tag")).default([]),
});

/** The paper's representative weights (section 4.8), used when a factor list gives no scores. */
const DEFAULT_SCORES = {
  completion_rate_5m: { weight: 0.4, direction: "higher" },
  p95_latency_5m: { weight: 0.25, direction: "lower" },
  cost_per_request: { weight: 0.15, direction: "lower" },
  recent_incident_penalty: { weight: 0.1, direction: "lower" },
  confidence_from_sample: { weight: 0.1, direction: "higher" },
} as const;

const WEIGHT_TOLERANCE = 1e-9;

function noDuplicates(kind: string) {
  return (list: readonly string[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>();
    list.forEach((item, i) => {
      if (seen.has(item)) ctx.addIssue({ code: "custom", path: [i], message: `duplicate ${kind} "${item}"` });
      seen.add(item);
    });
  };
}

export const ZScores = z.record(z.string(), ZScore).superRefine((scores, ctx) => {
  const entries = Object.entries(scores);
  if (entries.length === 0) {
    ctx.addIssue({ code: "custom", message: "scores must name at least one score" });
    return;
  }
  let sum = 0;
  for (const [name, score] of entries) {
    sum += score.weight;
    if (!(name in SCORE_DIRECTIONS)) {
      ctx.addIssue({ code: "custom", path: [name], message: `unknown score "${name}"; known score names: ${SCORE_NAMES.join(", ")}` });
      continue;
    }
    if (score.slo_ms !== undefined && !SLO_SCORES.includes(name as TScoreName)) {
      ctx.addIssue({ code: "custom", path: [name, "slo_ms"], message: `slo_ms applies to ${SLO_SCORES.join(" and ")} only, not ${name}` });
    }
    const natural = SCORE_DIRECTIONS[name as TScoreName];
    if (score.direction !== natural) {
      ctx.addIssue({
        code: "custom",
        path: [name, "direction"],
        message: `${name} is better when ${natural}; direction must be "${natural}", got "${score.direction}"`,
      });
    }
  }
  if (Math.abs(sum - 1) > WEIGHT_TOLERANCE) {
    ctx.addIssue({ code: "custom", message: `score weights must sum to 1 (±1e-9), got ${numberText(sum)}` });
  }
});

export const ZFactorList = z
  .strictObject({
    operation: nonEmptyString("operation"),
    description: z.string().optional(),
    /** Static priority order, primary first. Empty: the caller's provider catalog order. */
    providers: z.array(nonEmptyString("provider")).superRefine(noDuplicates("provider")).default([]),
    gates: z
      .array(namedEnum("gate", GATE_NAMES))
      .superRefine(noDuplicates("gate"))
      .default([...GATE_NAMES]),
    scores: ZScores.default(() => structuredClone(DEFAULT_SCORES) as Record<string, z.output<typeof ZScore>>),
    guardrails: ZGuardrails.prefault({}),
    /** 3.5 is the paper's value after post-incident tuning (Table 10, v1.2.0). */
    hysteresis_score_margin: boundedNumber("hysteresis_score_margin", closed(0), closed(100)).default(3.5),
    safety: ZSafety.prefault({}),
    circuit_breaker: ZCircuitBreaker.prefault({}),
    fallback_policy: namedEnum("fallback_policy", FALLBACK_POLICY_NAMES as [string, ...string[]]).default("use_secondary_then_queue"),
    /**
     * At most an hour: routing on metrics refreshed less often is blind, and the derived values
     * (the default max_metric_age_seconds, the data plane's refresh timer) must stay finite.
     */
    refresh_interval_seconds: boundedNumber("refresh_interval_seconds", open(0), closed(3600)).default(30),
    metric_window_minutes: boundedNumber("metric_window_minutes", open(0), null).default(5),
    min_sample_size: boundedNumber("min_sample_size", closed(1), null, true).default(100),
    /** Omitted: twice the refresh interval, at least 60 s (one missed refresh is not staleness). */
    max_metric_age_seconds: boundedNumber("max_metric_age_seconds", open(0), null).optional(),
    /**
     * Omitted: penalty. Telemetry lag usually hits every provider of an operation at once (one
     * pipeline); safe defaults then score them all 50 and routing freezes on the incumbent, while
     * their stale-but-recent windows (the store drops anything older than the metric window) still
     * rank them correctly. The penalty keeps that ranking and still puts a fresh provider ahead of
     * a stale one with equal evidence.
     */
    stale_policy: namedEnum("stale_policy", STALE_POLICIES).default("penalty"),
    /** Points subtracted from a stale candidate's score under stale_policy: penalty. */
    stale_penalty_points: boundedNumber("stale_penalty_points", closed(0), closed(100)).default(10),
    strategy: namedEnum("strategy", STRATEGY_NAMES).default("weighted_score"),
    /** p99 baseline for price_latency_penalty; omitted: the lowest p99 among eligible candidates. */
    p99_baseline_ms: boundedNumber("p99_baseline_ms", open(0), null).optional(),
    regions: z.record(z.string(), ZRegionRule).default({}),
  })
  .transform((fl) => ({
    ...fl,
    max_metric_age_seconds: fl.max_metric_age_seconds ?? Math.max(60, 2 * fl.refresh_interval_seconds),
  }));

export type TFactorListInput = z.input<typeof ZFactorList>;
export type TFactorList = z.output<typeof ZFactorList>;
export type TScore = z.output<typeof ZScore>;
export type TGuardrails = z.output<typeof ZGuardrails>;
export type TSafety = z.output<typeof ZSafety>;
export type TCircuitBreakerConfig = z.output<typeof ZCircuitBreaker>;
export type TRegionRule = z.output<typeof ZRegionRule>;

export const TOP_LEVEL_FIELDS = Object.keys(ZFactorList.in.shape);
