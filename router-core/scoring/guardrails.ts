import type { TGuardrails } from "../policy/schema";

export type TGuardrailCheck = {
  passed: boolean;
  /** Human-readable, one per broken guardrail. */
  violations: string[];
  /**
   * Total relative excess over the broken guardrails: (p95 − max)/max + (cost − max)/max +
   * (min − confidence)/min. The least-bad rule picks the smallest; relative excess lets a 10%
   * latency overrun and a 10% cost overrun weigh the same.
   */
  excess: number;
};

const PASSED: TGuardrailCheck = Object.freeze({ passed: true, violations: Object.freeze([]) as unknown as string[], excess: 0 });

/** Soft limits (the paper's section 4.11, docs/references.md): checked after the hard gates and before selection. */
export function checkGuardrails(g: TGuardrails, p95Ms: number | null, cost: number, confidence: number): TGuardrailCheck {
  let violations: string[] | null = null;
  let excess = 0;
  // A missing p95 is not a breach: thin evidence is what min_confidence is for.
  if (g.max_p95_ms !== undefined && p95Ms !== null && p95Ms > g.max_p95_ms) {
    (violations ??= []).push(`p95 ${Math.round(p95Ms)} ms > max_p95_ms ${g.max_p95_ms}`);
    excess += (p95Ms - g.max_p95_ms) / g.max_p95_ms;
  }
  if (g.max_cost_per_request !== undefined && cost > g.max_cost_per_request) {
    (violations ??= []).push(`cost ${cost} > max_cost_per_request ${g.max_cost_per_request}`);
    excess += g.max_cost_per_request > 0 ? (cost - g.max_cost_per_request) / g.max_cost_per_request : 1;
  }
  if (g.min_confidence !== undefined && g.min_confidence > 0 && confidence < g.min_confidence) {
    (violations ??= []).push(`confidence ${confidence.toFixed(2)} < min_confidence ${g.min_confidence}`);
    excess += (g.min_confidence - confidence) / g.min_confidence;
  }
  return violations === null ? PASSED : { passed: false, violations, excess };
}
