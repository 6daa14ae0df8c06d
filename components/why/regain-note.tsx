import type { TRegainGap } from "@/router-core/index";

/**
 * One sentence per displaced former leader still short of the hysteresis margin: staying off is
 * the policy at work (a challenger must lead by the margin), not a failure.
 */
export function RegainNote({ gaps }: { gaps: readonly TRegainGap[] }) {
  const short = gaps.filter((g) => g.needs > 0);
  if (short.length === 0) return null;
  return (
    <section className="panel p-3 text-sm" data-testid="regain-note">
      {short.map((g) => (
        <p key={g.provider}>
          <span className="mono">{g.provider}</span> needs +{g.needs.toFixed(1)} points over <span className="mono">{g.leader}</span> to regain traffic
          (hysteresis margin {g.margin}).{" "}
          <span className="muted">
            Scores {g.score.toFixed(1)} vs {g.leaderScore.toFixed(1)}: this is policy, not a failure.
          </span>
        </p>
      ))}
    </section>
  );
}
