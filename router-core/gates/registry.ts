import type { TGateName } from "../policy/names";
import { circuitBreakerClosed } from "./circuit-breaker-closed";
import { complianceAllowed } from "./compliance-allowed";
import { credentialsValid } from "./credentials-valid";
import type { TGateFn } from "./gate";
import { metricFreshOrSafeDefault } from "./metric-fresh-or-safe-default";
import { notKilled } from "./not-killed";
import { quotaAvailable } from "./quota-available";
import { supportsRegion } from "./supports-region";

export const GATES: Readonly<Record<TGateName, TGateFn>> = Object.freeze({
  supports_region: supportsRegion,
  compliance_allowed: complianceAllowed,
  credentials_valid: credentialsValid,
  quota_available: quotaAvailable,
  circuit_breaker_closed: circuitBreakerClosed,
  metric_fresh_or_safe_default: metricFreshOrSafeDefault,
  not_killed: notKilled,
});

/**
 * Evaluated whatever the factor list says: an operator's kill must always win (the paper's section 5 (docs/references.md),
 * operational controls), so not_killed cannot be configured away.
 */
export const ALWAYS_ON_GATES: readonly TGateName[] = ["not_killed"];

/** A pin still respects these (issue 3): pinning cannot route around region, compliance or credentials. */
export const PIN_GATES: readonly TGateName[] = ["not_killed", "supports_region", "compliance_allowed", "credentials_valid"];

/**
 * Gates whose outcome depends only on the provider, the region and the policy (compliance_allowed
 * only while the request adds no compliance tags of its own). decide() evaluates them once per
 * (policy, catalogue, region) and reuses the outcome; the catalogue is replaced, never mutated.
 */
export const REQUEST_INDEPENDENT_GATES: readonly TGateName[] = ["supports_region", "credentials_valid", "compliance_allowed"];
