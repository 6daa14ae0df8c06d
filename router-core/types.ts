/**
 * Shapes shared by decide(), the gates, the scoring and control/. Views are plain data so the
 * data plane can cache them and the controller can produce them without depending on router
 * internals.
 */

export type TBreakerState = "closed" | "open" | "half_open";

/**
 * What the decision needs from a circuit breaker. Keyed `provider` or `provider|region`; the
 * region-specific key wins when both exist.
 */
export type TBreakerView = {
  state: TBreakerState;
  /** In half_open: whether a probe slot is free right now. */
  probeAvailable: boolean;
  openedAt?: number;
  nextAttemptAt?: number;
};

/** Remaining quota per provider; null means unlimited for that period. */
export type TQuotaView = {
  remainingMinute: number | null;
  remainingDay: number | null;
  resetAt: number | null;
  /**
   * Upper bound in [0, 1] on the provider's selection probability while it recovers from quota
   * exhaustion (control/quota-tracker.ts `quotaRamp`, the token-gateway article (docs/references.md) section 5); absent means 1.
   * Selection caps the provider's renormalised share at it and spreads the rest over the other
   * eligible providers; 0 fails the quota gate.
   */
  shareCeiling?: number;
  /** What the exhausted quota is, for the gate's detail (e.g. "100 requests per 3600 s"); absent: the per-minute or daily quota. */
  window?: string;
};

/** Traffic shares for one (operation, region), produced by the controller: provider key → share. */
export type TShares = Record<string, number>;

export type TCredentialStatus = "valid" | "invalid" | "expired" | "unknown";

export type TProviderInfo = {
  key: string;
  /** Regions the provider serves; "*" serves all. */
  regions: readonly string[];
  /** Compliance certifications or approvals (e.g. "gdpr", "hipaa", "in_dlt"). */
  complianceTags: readonly string[];
  /** Cost of one request in the account currency; the cost index and price strategies use it. */
  costPerRequest: number;
  credentialStatus: TCredentialStatus;
  enabled: boolean;
};

/**
 * Metrics of one provider for the decision's (operation, region), as produced by
 * metrics/window.ts `summarizeWindow`. `scope` says whether they came from the region itself or
 * from the operation-wide fallback used for thin regions.
 */
export type TMetricSnapshot = {
  sampleCount: number;
  /** Provider-attributable completion rate in [0, 1]; null with no business outcomes. */
  completionRate: number | null;
  /** Provider-call failure rate in [0, 1]; null with no calls. */
  errorRate: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  /** Incidents (breaker openings, declared incidents) in the window. */
  recentIncidents: number;
  /** In [0, 1]; see metrics/confidence.ts. */
  confidence: number;
  /** Time (ms) of the newest data that went into the snapshot; null when there is none. */
  updatedAt: number | null;
  scope: "region" | "operation" | "none";
  /**
   * The region's own calls and provider-attributable failures in the window, whichever scope the
   * snapshot took: a displaced provider proves its recovery in a region on that region's calls
   * (control/regain-margin.ts). Absent on snapshots not built by snapshotFor.
   */
  regional?: { sampleCount: number; failures: number };
};

export type TPin = {
  provider: string;
  reason: string;
  /** Epoch ms after which the pin is ignored. */
  expiresAt: number;
};

export type TOverrides = {
  /** Adaptive routing off for the operation: static priority order among providers passing gates. */
  routingKilled?: boolean;
  killedProviders?: readonly string[];
  pin?: TPin | null;
};

export type TRequestContext = {
  operation: string;
  region: string;
  requestId: string;
  /** Decision record id; defaults to requestId. */
  decisionId?: string;
  /** Per-instance request counter; weighted_round_robin interleaves by it. */
  sequence?: number;
  /**
   * Free-form request attributes. `compliance` (comma-separated tags the request requires) is
   * read by the compliance gate; `providers` (comma-separated) restricts the candidates.
   */
  attributes?: Readonly<Record<string, string>>;
};

export type TRouterState = {
  /**
   * The catalogue. Treated as immutable: candidate order and the request-independent gate
   * outcomes (region, credentials, region compliance) are cached per array and region, so a
   * change must come as a new array, as the data plane's setProviders does.
   */
  providers: readonly TProviderInfo[];
  /**
   * Per provider key, for the request's operation and region. These four maps, and the snapshots
   * and views in them, are treated as immutable like the catalogue: each decision's lookups and
   * evaluation are cached per map object (see decision/lookups.ts), so an update must come as a
   * new object, as the data plane's setters do.
   */
  metrics: Readonly<Record<string, TMetricSnapshot>>;
  /** Keyed `provider|region` or `provider`. */
  breakers: Readonly<Record<string, TBreakerView>>;
  quotas: Readonly<Record<string, TQuotaView>>;
  /** Shares for the request's (operation, region); missing → all traffic to the first eligible. */
  shares?: TShares | null;
  overrides?: TOverrides;
  /** Version label of the active policy, copied into the decision record. */
  policyVersion?: string;
};
