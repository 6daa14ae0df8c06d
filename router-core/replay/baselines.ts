import { breakerView, createCircuitBreaker, type TBreakerConfig, type TCircuitBreakerState } from "../control/circuit-breaker";
import type { ReplayPolicy } from "./engine";
import type { TCallResult } from "./model";

/** Static primary: every request to the configured primary, whatever happens to it. */
export function createStaticPrimaryPolicy(primary = 0): ReplayPolicy {
  return { tickMs: 0, tick: () => {}, route: () => primary, observe: () => {}, shares: () => null };
}

/**
 * Conventional operational failover: a person moves all traffic to the secondary once detection,
 * diagnosis and action have taken `delayMinutes` after the degradation started, and moves it
 * back `delayMinutes` after it ended.
 */
export function createConventionalFailoverPolicy(opts: {
  degradedFrom: number;
  degradedTo: number;
  delayMinutes?: number;
  primary?: number;
  secondary?: number;
}): ReplayPolicy {
  const delay = opts.delayMinutes ?? 10;
  const from = (opts.degradedFrom + delay) * 60_000;
  const to = (opts.degradedTo + delay) * 60_000;
  const primary = opts.primary ?? 0;
  const secondary = opts.secondary ?? 1;
  return {
    tickMs: 0,
    tick: () => {},
    route: (now) => (now >= from && now < to ? secondary : primary),
    observe: () => {},
    shares: () => null,
  };
}

/**
 * Circuit breaker only: static priority order with one local breaker per provider (router-core's
 * breaker), fed with transport failures only (errors, timeouts, 429s); a business outcome that
 * fails behind a 200 is invisible to it. A request goes to the first provider whose breaker
 * lets it through; with every breaker open it fails fast.
 */
export function createCircuitBreakerPolicy(providerCount: number, config: Partial<TBreakerConfig> = {}): ReplayPolicy {
  const breaker = createCircuitBreaker(config);
  const states: TCircuitBreakerState[] = Array.from({ length: providerCount }, () => breaker.initial(0));
  return {
    tickMs: 0,
    tick: () => {},
    route(now) {
      for (let p = 0; p < providerCount; p++) {
        const s = states[p]!;
        if (s.state === "closed") return p;
        const view = breakerView(s, now);
        if (view.state === "half_open" && view.probeAvailable) {
          states[p] = breaker.step(s, { type: "probe_started" }, now);
          return p;
        }
      }
      return -1;
    },
    observe(now, _region, provider, result: TCallResult) {
      const s = states[provider]!;
      states[provider] = breaker.step(s, result.ok ? { type: "success" } : { type: "failure", detail: result.kind }, now);
    },
    shares: () => null,
  };
}
