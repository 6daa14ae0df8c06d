/**
 * context_window_fits: a per-request hard gate for LLM providers (the LLM-routing article (docs/references.md) pitfall 2). A
 * request whose estimated tokens (prompt plus the completion it asks for) exceed the model's
 * context window would be truncated or refused, so the provider is ineligible for that request
 * rather than a failed call. The factor list's gate vocabulary describes the provider, not the
 * request body, so this gate is evaluated by the execute path, which knows the request, and its
 * outcome is recorded beside the other gates of the candidate.
 */
export type TContextWindowInput = {
  /** Estimated prompt tokens plus the requested completion tokens. */
  estimatedTokens: number;
  /** The model's window; null when unknown (the gate passes: nothing to check against). */
  contextWindow: number | null;
  model: string | null;
};

export type TContextWindowOutcome = { gate: "context_window_fits"; passed: boolean; detail: string };

const PASS_UNKNOWN: TContextWindowOutcome = Object.freeze({
  gate: "context_window_fits",
  passed: true,
  detail: "no context window configured for the provider",
});

export function contextWindowFits({ estimatedTokens, contextWindow, model }: TContextWindowInput): TContextWindowOutcome {
  if (!(estimatedTokens >= 0)) throw new RangeError(`estimatedTokens must be >= 0, got ${estimatedTokens}`);
  if (contextWindow === null) return PASS_UNKNOWN;
  const name = model ? `${model}'s` : "the model's";
  if (estimatedTokens > contextWindow) {
    return { gate: "context_window_fits", passed: false, detail: `request needs about ${estimatedTokens} tokens; ${name} context window is ${contextWindow}` };
  }
  return { gate: "context_window_fits", passed: true, detail: `about ${estimatedTokens} of ${name} ${contextWindow} tokens` };
}
