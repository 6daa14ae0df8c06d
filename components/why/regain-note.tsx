import type { TRegainGap } from "@/router-core/index";

const pct = (x: number) => `${(Math.round(x * 1000) / 10).toString()}%`;
const clock = (at: number) => `${new Date(at).toISOString().slice(11, 19)} UTC`;

/** How much traffic probes it, in words a person can check against the provider's own logs. */
function probeText(g: TRegainGap): string {
  if (g.probeShare === undefined) return "";
  const calls = g.callsPerMinute === null || g.callsPerMinute === undefined ? "" : ` (about ${g.callsPerMinute} calls a minute)`;
  return `It is probed at ${pct(g.probeShare)} of the traffic${calls}`;
}

/** What its samples lack, or that they are enough. */
function samplesText(g: TRegainGap): string {
  if (g.samples === undefined || g.samplesNeeded === undefined) return g.trusted ? "" : "Its samples are still too few to trust.";
  if (g.trusted) return `its ${g.samples} samples are enough.`;
  return `it has ${g.samples} of the ${g.samplesNeeded} samples that would prove its recovery.`;
}

function Gap({ g }: { g: TRegainGap }) {
  const probe = probeText(g);
  if (g.phase === "cooldown") {
    return (
      <p>
        <span className="mono">{g.provider}</span> looks recovered and is on its way back from <span className="mono">{g.leader}</span>. {probe}
        {probe ? "; " : ""}
        {samplesText(g)} Failback can start at {g.reconsiderAt ? clock(g.reconsiderAt) : "the end of its cooldown"} (end of the cooldown)
        {g.trusted ? "" : " once its samples prove it"}, then moves at the capped rate.
      </p>
    );
  }
  const what =
    g.margin === 0
      ? `it ranks above ${g.leader}, so scoring level with it is enough (scores ${g.score.toFixed(1)} vs ${g.leaderScore.toFixed(1)}, compared at full sample confidence)`
      : `the hysteresis margin ${g.margin} applies, as to any challenger (scores ${g.score.toFixed(1)} vs ${g.leaderScore.toFixed(1)})`;
  return (
    <p>
      <span className="mono">{g.provider}</span> needs +{g.needs.toFixed(1)} points over <span className="mono">{g.leader}</span> to regain traffic: {what}.{" "}
      {probe}
      {probe ? "; " : ""}
      {samplesText(g)} It is reconsidered at every controller tick; failures count against it until they are older than the metric window.{" "}
      {g.margin > 0 ? <span className="muted">Staying off is the hysteresis margin at work: policy, not a failure.</span> : null}
    </p>
  );
}

/**
 * What each displaced former leader lacks to take traffic back, in terms a person can act on: the
 * score lead (none for a former primary over a leader it outranks, the hysteresis margin
 * otherwise), the samples that would prove its recovery and the probe share bringing them, and
 * when it is reconsidered. A provider that already scores enough is shown only while it proves it.
 */
export function RegainNote({ gaps }: { gaps: readonly TRegainGap[] }) {
  const shown = gaps.filter((g) => g.needs > 0 || g.phase === "cooldown");
  if (shown.length === 0) return null;
  return (
    <section className="panel p-3 text-sm" data-testid="regain-note">
      {shown.map((g) => (
        <Gap key={g.provider} g={g} />
      ))}
    </section>
  );
}
