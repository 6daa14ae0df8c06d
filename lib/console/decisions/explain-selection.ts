/**
 * Why a decision split traffic the way it did, in sentences: the score table alone invites "C
 * scored 0.1 more and got 99%?". Under weighted_score, decide draws from the controller's planned
 * shares; the controller moves those toward a better score only past the hysteresis margin and at
 * the capped rate, so close scores keep whatever the plan holds. Pure: the drilldown renders it.
 */
import type { TDecisionRecord } from "@/router-core/decision/record";

type TRecord = Pick<TDecisionRecord, "strategy" | "selected" | "override" | "reasonCode" | "scoreMargin" | "candidates">;

const pctText = (v: number) => `${(v * 100).toFixed(1)}%`;

function scored(r: TRecord) {
  return r.candidates.filter((c) => c.eligible && c.score !== null).sort((a, b) => b.score! - a.score!);
}

function overrideSentence(r: TRecord): string | null {
  if (r.override === "pinned") return `A pin sent this decision to ${r.selected}: scores and shares were not used.`;
  if (r.override === "routing_killed") return "The routing kill switch is on: decisions follow the static priority order.";
  if (r.override === "pin_ineligible") return "A pin is set, but the pinned provider failed a gate, so routing chose among the eligible ones.";
  return null;
}

function sharesSentences(r: TRecord): string[] {
  const ranked = scored(r);
  const out = [
    "Strategy weighted_score: the decision draws from the controller's planned shares (column Share), not from the scores directly.",
    "The controller moves shares toward the best-scoring provider only when it leads by more than the factor list's hysteresis_score_margin, and by at most max_traffic_shift_per_minute.",
  ];
  if (ranked.length >= 2) {
    const [top, second] = ranked as [(typeof ranked)[0], (typeof ranked)[0]];
    const gap = top.score! - second.score!;
    const leader = r.candidates.reduce((a, b) => ((b.share ?? 0) > (a.share ?? 0) ? b : a));
    out.push(
      `${top.provider} scores ${top.score!.toFixed(2)}, ${second.provider} ${second.score!.toFixed(2)} (${gap.toFixed(2)} apart); the plan gives ${leader.provider} ${pctText(leader.share ?? 0)}${
        leader.provider === top.provider ? "." : `: while the gap stays inside the margin the plan keeps ${leader.provider} as leader.`
      }`,
    );
  }
  return out;
}

export function explainSelection(r: TRecord): string[] {
  const override = overrideSentence(r);
  if (override) return [override];
  if (r.selected === null) return [`No provider was eligible (${r.reasonCode}).`];
  switch (r.strategy) {
    case "weighted_score":
      return sharesSentences(r);
    case "price_weighted":
      return ["Strategy price_weighted: each eligible provider's weight is the cheapest price ÷ its price; P(selected) is the weight over the sum."];
    case "price_latency_penalty":
      return [
        "Strategy price_latency_penalty: weight = (cheapest price ÷ price) × clamp(1 − (p99 − p99 baseline) ÷ p99 baseline, 0.3, 1); P(selected) is the weight over the sum.",
      ];
    case "weighted_round_robin":
      return ["Strategy weighted_round_robin: requests interleave in proportion to the planned shares."];
    default:
      return [`Strategy ${r.strategy}: the first eligible provider in the static priority order serves.`];
  }
}
