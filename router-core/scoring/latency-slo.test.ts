import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createSimulatedClock } from "../clock";
import { createControllerState, stepController, type TControllerState } from "../control/controller";
import { controllerConfigFor } from "../control/routing-defaults";
import { scoreCandidates } from "../decision/score-candidates";
import { createMetricStore } from "../metrics/store";
import { parseFactorList } from "../policy/codec";
import type { TFactorList } from "../policy/schema";
import type { TProviderInfo, TRouterState } from "../types";

const LISTING_1 = readFileSync(new URL("../policy/listing1.yaml", import.meta.url), "utf8");
const PROVIDERS = ["provider_A", "provider_B", "provider_C"];
const REGION = "EU";
const T0 = 1_800_000_000_000;

function policy(edit: (yaml: string) => string = (y) => y): TFactorList {
  const parsed = parseFactorList(edit(LISTING_1));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.value;
}

const withSlo = (ms: number) => (y: string) =>
  y.replace("p95_latency_5m: {weight: 0.20, direction: lower}", `p95_latency_5m: {weight: 0.20, direction: lower, slo_ms: ${ms}}`);

const catalog: TProviderInfo[] = PROVIDERS.map((key) => ({
  key,
  regions: ["*"],
  complianceTags: [],
  costPerRequest: 0.01,
  credentialStatus: "valid",
  enabled: true,
}));

/**
 * The case: A answers 20% timeouts (never two in a row, so no breaker trips) at 1.5–3 s;
 * B and C have served nothing. Returns the router state the controller would score.
 */
function degradedPrimaryOnly(pol: TFactorList, now: number): TRouterState {
  const store = createMetricStore({ bucketSeconds: 60, retainMinutes: 10 });
  for (let i = 0; i < 400; i++) {
    const at = now - 240_000 + i * 600;
    store.recordCall({ provider: "provider_A", operation: "SEND_SMS", region: REGION }, { at, latencyMs: 1_500 + ((i * 37) % 1_500), ok: i % 5 !== 0 });
  }
  const metrics = store.snapshots("SEND_SMS", REGION, PROVIDERS, { now, windowMinutes: pol.metric_window_minutes, minSampleSize: pol.min_sample_size });
  return { providers: catalog, metrics, breakers: {}, quotas: {}, shares: null };
}

function scores(pol: TFactorList): Record<string, number> {
  const scored = scoreCandidates(pol, degradedPrimaryOnly(pol, T0), { region: REGION }, createSimulatedClock(T0));
  return Object.fromEntries(scored.map((c) => [c.provider, c.score ?? NaN]));
}

/** Ten controller ticks, 10 s apart, on the same evidence; returns the last state. */
function runController(pol: TFactorList): TControllerState {
  const config = controllerConfigFor(pol, PROVIDERS);
  let state = createControllerState("SEND_SMS", REGION, config, T0);
  for (let k = 1; k <= 10; k++) {
    const now = T0 + k * 10_000;
    const scored = scoreCandidates(pol, degradedPrimaryOnly(pol, now), { region: REGION }, createSimulatedClock(now));
    const input = {
      candidates: scored.map((c) => ({
        provider: c.provider,
        eligible: c.passedGates,
        score: c.score,
        sampleCount: c.sampleCount,
        failedGates: c.failedGates,
      })),
    };
    state = stepController(state, input, config, now).state;
  }
  return state;
}

describe("absolute latency objective (slo_ms)", () => {
  it("without an objective the degraded primary is its own yardstick and keeps the lead over providers with no data", () => {
    const s = scores(policy());
    // A's p95 is the best p95 measured (the only one): latency index 100 despite 3 s.
    expect(s.provider_A! - s.provider_C!).toBeGreaterThan(-3.5);
    expect(runController(policy()).leader).toBe("provider_A");
  });

  it("with slo_ms the degraded primary falls below a fallback with no data by more than the margin, and traffic moves", () => {
    const pol = policy(withSlo(1_000));
    const s = scores(pol);
    expect(s.provider_C! - s.provider_A!).toBeGreaterThan(pol.hysteresis_score_margin);
    const state = runController(pol);
    expect(state.leader).not.toBe("provider_A");
    expect(state.displaced).toContain("provider_A");
    expect(state.shares.provider_A!).toBeLessThan(0.5);
  });

  it("guardrails.max_p95_ms is the p95 objective when slo_ms is omitted", () => {
    const pol = policy((y) => `${y}guardrails:\n  max_p95_ms: 1000\n`);
    const s = scores(pol);
    expect(s.provider_C! - s.provider_A!).toBeGreaterThan(pol.hysteresis_score_margin);
  });

  it("a provider within its objective scores as before", () => {
    const fast = scores(policy(withSlo(10_000)));
    const plain = scores(policy());
    expect(fast.provider_A).toBeCloseTo(plain.provider_A!, 9);
  });

  it("is validated: latency scores only, positive", () => {
    const bad = parseFactorList(
      LISTING_1.replace("completion_rate_5m: {weight: 0.45, direction: higher}", "completion_rate_5m: {weight: 0.45, direction: higher, slo_ms: 5}"),
    );
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.errors).toContainEqual(
        expect.objectContaining({
          path: "scores.completion_rate_5m.slo_ms",
          message: "slo_ms applies to p95_latency_5m and p99_latency_5m only, not completion_rate_5m",
        }),
      );
    const zero = parseFactorList(withSlo(0)(LISTING_1));
    expect(zero.ok).toBe(false);
    if (!zero.ok) expect(zero.errors[0]?.message).toBe("slo_ms must be in (0, inf), got 0");
  });
});
