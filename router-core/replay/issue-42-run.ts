import type { TControllerEvent } from "../control/controller-types";
import { parseFactorList } from "../policy/codec";
import type { TFactorList } from "../policy/schema";
import { createSeededRandom } from "../random";
import { createFactorListPolicy } from "./factor-list-policy";
import { LISTING_1_YAML } from "./suite";

/**
 * Issue 42's run, deterministic, on the replay's router (router-core's shared defaults, as the data
 * plane runs them): SEND_SMS in EU, provider_A and provider_B at the demo catalogue's prices, one
 * outcome per decision; A healthy for `healthySeconds`, then every fifth call of A failing
 * (timeouts and 5xx alternating, never five in a row, so its breaker stays closed) for
 * `degradedSeconds`, then healthy again (or, with `stillFailing`, failing every fifth call to the end).
 * B's outcome is reported only when the router chose it, and B is always healthy.
 */
export type TIssueRunOptions = {
  perSecond: number;
  healthySeconds: number;
  degradedSeconds: number;
  /** Seconds after the degradation; the run ends then. */
  afterSeconds: number;
  /** A keeps failing every fifth call after the degradation instead of recovering. */
  stillFailing?: boolean;
  seed?: number;
};

export type TIssueRunTick = { at: number; shares: Readonly<Record<string, number>> };
export type TIssueRun = {
  ticks: TIssueRunTick[];
  events: readonly TControllerEvent[];
  /** Per decision: its time and whether A served it. */
  decisions: { at: number; a: boolean }[];
  policy: TFactorList;
};

const PROVIDERS = ["provider_A", "provider_B"] as const;
const COSTS = { provider_A: 0.0075, provider_B: 0.0079 };

export function issue42Policy(): TFactorList {
  const parsed = parseFactorList(`${LISTING_1_YAML}providers: [provider_A, provider_B]\n`);
  if (!parsed.ok) throw new Error("Listing 1 with the demo providers does not parse");
  return parsed.value;
}

export function runIssue42(o: TIssueRunOptions): TIssueRun {
  const policy = issue42Policy();
  const router = createFactorListPolicy(policy, PROVIDERS, ["EU"], COSTS);
  const random = createSeededRandom(o.seed ?? 42);
  const stepMs = 1000 / o.perSecond;
  const degradedFrom = o.healthySeconds * 1000;
  const degradedTo = degradedFrom + o.degradedSeconds * 1000;
  const end = degradedTo + o.afterSeconds * 1000;
  const ticks: TIssueRunTick[] = [];
  const decisions: { at: number; a: boolean }[] = [];
  let nextTick = 0;
  let aCalls = 0;
  for (let at = stepMs / 2; at < end; at += stepMs) {
    while (nextTick <= at) {
      router.tick(nextTick);
      const s = router.shares(0)!;
      ticks.push({ at: nextTick, shares: { provider_A: s[0]!, provider_B: s[1]! } });
      nextTick += router.tickMs;
    }
    const p = router.route(at, 0, random.next());
    if (p < 0) continue;
    decisions.push({ at, a: p === 0 });
    const failingNow = p === 0 && at >= degradedFrom && (at < degradedTo || o.stillFailing === true);
    let kind: "ok" | "timeout" | "error" = "ok";
    if (p === 0) {
      aCalls++;
      if (failingNow && aCalls % 5 === 0) kind = (aCalls / 5) % 2 === 0 ? "timeout" : "error";
    }
    const ok = kind === "ok";
    const latencyMs = kind === "timeout" ? 3_000 : kind === "error" ? 80 : p === 0 ? 170 + (aCalls % 7) * 10 : 240 + (decisions.length % 7) * 10;
    router.observe(at, 0, p, { ok, completed: ok, latencyMs, kind, exposed: false });
  }
  return { ticks, events: router.events, decisions, policy };
}

/** The largest share moved by the capped movement within any (s, s + 60 s], from the tick-by-tick shares. */
export function worstMinuteMove(ticks: readonly TIssueRunTick[]): number {
  const moves = ticks.slice(1).map((t, i) => ({
    at: t.at,
    moved: Object.keys(t.shares).reduce((s, p) => s + Math.max(0, (ticks[i]!.shares[p] ?? 0) - (t.shares[p] ?? 0)), 0),
  }));
  let worst = 0;
  for (let i = 0; i < moves.length; i++) {
    let sum = 0;
    for (let j = i; j < moves.length && moves[j]!.at < moves[i]!.at + 60_000; j++) sum += moves[j]!.moved;
    worst = Math.max(worst, sum);
  }
  return worst;
}
