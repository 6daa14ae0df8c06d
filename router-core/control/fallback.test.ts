import { describe, expect, it } from "vitest";
import { resolveFallback, type TFallbackCandidate } from "./fallback";

const NOW = 1_000_000;
const breakerOpen = (provider: string, nextAttemptAt: number): TFallbackCandidate => ({
  provider,
  breaker: { state: "open", probeAvailable: false, openedAt: NOW - 1000, nextAttemptAt },
  failedGates: ["circuit_breaker_closed"],
});
const quotaOut = (provider: string, resetAt: number): TFallbackCandidate => ({
  provider,
  quota: { remainingMinute: 0, remainingDay: null, resetAt },
  failedGates: ["quota_available"],
});

describe("resolveFallback", () => {
  it("use_secondary_then_queue queues until the earliest provider is expected back", () => {
    const d = resolveFallback("use_secondary_then_queue", {
      now: NOW,
      candidates: [breakerOpen("A", NOW + 45_000), quotaOut("B", NOW + 12_200)],
    });
    expect(d).toEqual({
      action: "queue",
      retryAfterSeconds: 13,
      detail: "no eligible provider; queued (use_secondary_then_queue); B expected back in 13 s",
    });
  });

  it("a provider blocked by both its breaker and its quota is back only when both lift", () => {
    const both: TFallbackCandidate = {
      provider: "A",
      breaker: { state: "open", probeAvailable: false, nextAttemptAt: NOW + 10_000 },
      quota: { remainingMinute: null, remainingDay: 0, resetAt: NOW + 60_000 },
      failedGates: ["circuit_breaker_closed", "quota_available"],
    };
    expect(resolveFallback("queue", { now: NOW, candidates: [both] }).retryAfterSeconds).toBe(60);
  });

  it("ignores providers excluded for good and uses the default retry when nobody has a known return", () => {
    const d = resolveFallback("degraded_message", {
      now: NOW,
      candidates: [
        { provider: "A", failedGates: ["supports_region"] },
        { ...breakerOpen("B", NOW + 5_000), failedGates: ["compliance_allowed"] },
      ],
      defaultRetryAfterSeconds: 120,
    });
    expect(d).toEqual({
      action: "degraded_message",
      retryAfterSeconds: 120,
      detail: "no eligible provider; capacity exhausted, please retry later; no provider has a known return time",
    });
  });

  it("probe_only sends the request to a half-open provider with a free slot", () => {
    const halfOpen: TFallbackCandidate = {
      provider: "A",
      breaker: { state: "half_open", probeAvailable: true, openedAt: NOW - 30_000, nextAttemptAt: NOW },
      failedGates: ["circuit_breaker_closed"],
    };
    expect(resolveFallback("probe_only", { now: NOW, candidates: [quotaOut("B", NOW + 5_000), halfOpen] })).toEqual({
      action: "probe_only",
      provider: "A",
      detail: "no eligible provider; probe call to half-open A",
    });
  });

  it("probe_only never forces a probe: without a free slot it queues", () => {
    const busy: TFallbackCandidate = {
      provider: "A",
      breaker: { state: "half_open", probeAvailable: false, nextAttemptAt: NOW + 20_000 },
      failedGates: ["circuit_breaker_closed"],
    };
    const regionBlocked: TFallbackCandidate = {
      provider: "B",
      breaker: { state: "half_open", probeAvailable: true },
      failedGates: ["circuit_breaker_closed", "supports_region"],
    };
    expect(resolveFallback("probe_only", { now: NOW, candidates: [busy, regionBlocked] })).toEqual({
      action: "queue",
      retryAfterSeconds: 20,
      detail: "no eligible provider and no free probe slot; queued; A expected back in 20 s",
    });
  });

  it("escalate asks for an operator and still gives a retry-after", () => {
    expect(resolveFallback("escalate", { now: NOW, candidates: [breakerOpen("A", NOW + 500)] })).toEqual({
      action: "escalate",
      retryAfterSeconds: 1,
      detail: "no eligible provider; escalated for an operator pin or override; A expected back in 1 s",
    });
  });

  it("rejects unknown policies listing the known ones", () => {
    expect(() => resolveFallback("panic", { now: NOW, candidates: [] })).toThrow(
      /^fallback_policy must be one of use_secondary_then_queue, .*escalate, got "panic"$/,
    );
    expect(() => resolveFallback("queue", { now: NOW, candidates: [], defaultRetryAfterSeconds: 0 })).toThrow(
      "defaultRetryAfterSeconds must be in (0, inf), got 0",
    );
  });
});
