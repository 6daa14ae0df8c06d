import type { TFaultEffect } from "./fault-model";

/**
 * How a simulated provider behaves when nothing is wrong. The differences are small on purpose:
 * A is the best SMS provider (so Listing 1 keeps it in the lead), C is cheaper and a little
 * clearly worse (its lower price must not make it the heir when A fails: then B leads, and the
 * only displaced provider waiting to fail back is A), and only a fault makes A or B worse.
 */
export type TProviderProfile = {
  /** Share of calls that answer 2xx. */
  callSuccess: number;
  /** Median latency of a successful call, ms. */
  p50Ms: number;
  /** Share of successful calls whose business flow completes (the code arrives, the mail lands). */
  completion: number;
};

export const PROVIDER_PROFILES: Readonly<Record<string, TProviderProfile>> = {
  provider_A: { callSuccess: 0.997, p50Ms: 170, completion: 0.975 },
  provider_B: { callSuccess: 0.994, p50Ms: 240, completion: 0.96 },
  provider_C: { callSuccess: 0.985, p50Ms: 420, completion: 0.91 },
  provider_D: { callSuccess: 0.996, p50Ms: 420, completion: 0.98 },
  provider_E: { callSuccess: 0.993, p50Ms: 560, completion: 0.965 },
  // LLM_CHAT (execute mode): completion is "the user accepted the answer".
  llm_openai: { callSuccess: 0.996, p50Ms: 650, completion: 0.97 },
  llm_anthropic: { callSuccess: 0.995, p50Ms: 800, completion: 0.975 },
  llm_gemini: { callSuccess: 0.993, p50Ms: 520, completion: 0.955 },
};

const DEFAULT_PROFILE: TProviderProfile = { callSuccess: 0.99, p50Ms: 300, completion: 0.95 };

/** A flow that takes longer than this end to end misses its SLA (an SMS code that arrives late is useless). */
export const SLA_MS = 2_000;
/** Users who never type the code they received: a failure nobody can blame the provider for. */
const USER_ABANDON = 0.02;

export type TSimulatedCall = {
  status: "success" | "failure";
  errorClass?: "timeout" | "http_5xx" | "quota";
  httpStatus?: number;
  latencyMs: number;
  completed: boolean;
  failureStage?: "provider_call" | "user_action";
  withinSla: boolean;
};

/** Log-normal around the median: most calls near p50, a tail a few times longer. */
function latency(p50: number, random: () => number): number {
  const u = Math.max(1e-9, random());
  const v = random();
  const gaussian = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  return Math.round(p50 * Math.exp(0.35 * gaussian));
}

export function simulateCall(provider: string, effect: TFaultEffect, random: () => number): TSimulatedCall {
  const profile = PROVIDER_PROFILES[provider] ?? DEFAULT_PROFILE;
  const failed = (errorClass: "timeout" | "http_5xx" | "quota", httpStatus: number | undefined, latencyMs: number): TSimulatedCall => ({
    status: "failure",
    errorClass,
    ...(httpStatus === undefined ? {} : { httpStatus }),
    latencyMs,
    completed: false,
    failureStage: "provider_call",
    withinSla: false,
  });
  if (effect.outage) return random() < 0.7 ? failed("http_5xx", 503, latency(40, random)) : failed("timeout", undefined, 5_000);
  if (random() < effect.quotaRefusal) return failed("quota", 429, latency(30, random));
  if (random() >= profile.callSuccess) return failed("http_5xx", 500, latency(profile.p50Ms, random));
  const ms = latency(profile.p50Ms * effect.latencyFactor, random);
  return { status: "success", httpStatus: 200, latencyMs: ms, ...simulateFlow(provider, effect, random, ms) };
}

/**
 * The business flow behind a call that succeeded after `latencyMs`: whether it completes and, if
 * not, whose fault it was. Also what the demo's execute-mode services report, whose calls are real.
 */
export function simulateFlow(
  provider: string,
  effect: TFaultEffect,
  random: () => number,
  latencyMs: number,
): Pick<TSimulatedCall, "completed" | "failureStage" | "withinSla"> {
  const profile = PROVIDER_PROFILES[provider] ?? DEFAULT_PROFILE;
  const withinSla = latencyMs <= SLA_MS;
  if (random() >= profile.completion * (1 - effect.completionDrop)) return { completed: false, failureStage: "provider_call", withinSla };
  if (random() < USER_ABANDON) return { completed: false, failureStage: "user_action", withinSla };
  return { completed: true, withinSla };
}
