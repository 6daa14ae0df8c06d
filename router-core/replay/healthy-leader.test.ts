import { describe, expect, it } from "vitest";
import type { TControllerEvent } from "../control/controller-types";
import { parseFactorList } from "../policy/codec";
import { createSeededRandom } from "../random";
import { createFactorListPolicy } from "./factor-list-policy";
import { LISTING_1_YAML } from "./suite";

/**
 * A healthy leader keeps its traffic under short timings. SEND_SMS in EU with Listing 1 and the
 * console-truth e2e's timings (1-minute window, min_sample_size 20, hysteresis 1, 5% probe floor),
 * at that spec's EU volume (40 decisions/s, half of them in EU), and two healthy providers as the
 * demo models them: A fails 0.3% of calls and 2.5% of completions, B 0.6% and 4%, and A is faster.
 * B on the probe floor has a few dozen calls in the window; the rate indices' lower bound gave
 * them the benefit of the doubt, so B out-scored A by more than the margin on noise and the
 * controller moved EU off a healthy A (score_decay_shift) every few minutes. A real degradation
 * of A still moves it.
 */
const FAST = `
safety:
  max_traffic_shift_per_minute: 1
  primary_probe_share: 0.05
  primary_recovery_cooldown_seconds: 10
  require_reason_code: true
circuit_breaker: {open_seconds: 3, max_open_seconds: 6, half_open_probes: 3, half_open_successes_to_close: 2}
hysteresis_score_margin: 1
providers: [provider_A, provider_B]
`;
const PROVIDERS = ["provider_A", "provider_B"] as const;
const MODEL = [
  { callFail: 0.003, completionFail: 0.025, p50Ms: 170 },
  { callFail: 0.006, completionFail: 0.04, p50Ms: 240 },
];
const PER_SECOND = 20;
const MINUTE = 60_000;

function shortTimings() {
  const yaml = `${LISTING_1_YAML.replace(/^safety:\n(?: {2}.*\n)+/m, "")
    .replace(/^refresh_interval_seconds: .*$/m, "refresh_interval_seconds: 2")
    .replace(/^metric_window_minutes: .*$/m, "metric_window_minutes: 1")
    .replace(/^min_sample_size: .*$/m, "min_sample_size: 20")
    .trimEnd()}\n${FAST}`;
  const parsed = parseFactorList(yaml);
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => `${e.path}: ${e.message}`).join("; "));
  return parsed.value;
}

/** `minutes` of EU traffic; from `degradeAt` (ms) A's completions fail at `degradedFail` instead. */
function run(seed: number, minutes: number, degradeAt = Infinity, degradedFail = 0): readonly TControllerEvent[] {
  const router = createFactorListPolicy(shortTimings(), PROVIDERS, ["EU"], { provider_A: 0.0075, provider_B: 0.0079 });
  const random = createSeededRandom(seed);
  let nextTick = 0;
  for (let at = 500 / PER_SECOND; at < minutes * MINUTE; at += 1000 / PER_SECOND) {
    while (nextTick <= at) {
      router.tick(nextTick);
      nextTick += router.tickMs;
    }
    const p = router.route(at, 0, random.next());
    if (p < 0) continue;
    const m = MODEL[p]!;
    const ok = random.next() >= m.callFail;
    const completionFail = p === 0 && at >= degradeAt ? degradedFail : m.completionFail;
    const completed = ok && random.next() >= completionFail;
    // Log-normal latency around the median (Box-Muller), as the demo's providers answer.
    const g = Math.sqrt(-2 * Math.log(Math.max(1e-9, random.next()))) * Math.cos(2 * Math.PI * random.next());
    router.observe(at, 0, p, { ok, completed, latencyMs: Math.round(m.p50Ms * Math.exp(0.35 * g)), kind: ok ? "ok" : "error", exposed: false });
  }
  return router.events;
}

describe("a healthy leader under short timings", { timeout: 60_000 }, () => {
  it("is demoted at most once per half hour, not every few minutes (2 hours: four seeds × 30 minutes)", () => {
    // What remains is a one-sided 95% test looked at every tick: B's true 4.6% shows as 0
    // failures in ~100 calls about once an hour, and that is a significant lead. Before the test,
    // the lower bound's benefit of the doubt demoted A every three minutes or so.
    const demotions = [1, 2, 3, 4].flatMap((seed) =>
      run(seed, 30)
        .filter((e) => e.type === "score_decay_shift" && e.leader.from !== e.leader.to)
        .map((e) => `seed ${seed} at ${e.at / 1000} s: ${e.detail}`),
    );
    expect(demotions.length, demotions.join("\n")).toBeLessThanOrEqual(4);
  });

  it("is still demoted when 15% of its completions fail, and not before", () => {
    const events = run(1, 10, 5 * MINUTE, 0.15);
    const first = events.find((e) => e.type === "score_decay_shift");
    expect(first).toBeDefined();
    expect(first!.at).toBeGreaterThanOrEqual(5 * MINUTE);
    expect(first!.at).toBeLessThan(7 * MINUTE);
    expect(first!.provider).toBe("provider_A");
    expect(first!.leader).toEqual({ from: "provider_A", to: "provider_B" });
  });
});
