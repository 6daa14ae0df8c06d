import type { TContribution } from "@/router-core/index";

const FACTOR_COLORS = ["#4e79a7", "#59a14f", "#f28e2b", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7", "#9c755f"];

export function factorColor(name: string, names: readonly string[]): string {
  return name === "stale_penalty" ? "var(--bad)" : FACTOR_COLORS[Math.max(0, names.indexOf(name)) % FACTOR_COLORS.length]!;
}

/**
 * A candidate's score as one bar on a 0–100 scale: a segment per factor (weight × index) laid
 * end to end, so the bar's length is the score. A stale penalty is drawn as a hatched segment
 * taken back off the end.
 */
export function ContributionBar({ contributions, score, names }: { contributions: readonly TContribution[]; score: number; names: readonly string[] }) {
  const positive = contributions.filter((c) => c.value > 0);
  const penalty = contributions.filter((c) => c.value < 0).reduce((s, c) => s + c.value, 0);
  const gross = positive.reduce((s, c) => s + c.value, 0);
  return (
    <div className="flex items-center gap-2">
      <div
        className="relative h-4 w-[360px] overflow-hidden rounded-sm"
        style={{ background: "var(--bg)", border: "1px solid var(--border)" }}
        role="img"
        aria-label={`score ${score.toFixed(2)} of 100`}
      >
        <div className="absolute inset-y-0 left-0 flex">
          {positive.map((c) => (
            <div
              key={c.score}
              title={`${c.score}: ${c.weight} × ${c.index.toFixed(1)} = ${c.value.toFixed(2)}`}
              style={{ width: `${(c.value / 100) * 360}px`, background: factorColor(c.score, names) }}
            />
          ))}
        </div>
        {penalty < 0 ? (
          <div
            className="absolute inset-y-0"
            title={`stale penalty ${penalty.toFixed(2)}`}
            style={{
              left: `${((gross + penalty) / 100) * 360}px`,
              width: `${(-penalty / 100) * 360}px`,
              background: "repeating-linear-gradient(45deg, var(--bad) 0 3px, transparent 3px 6px)",
            }}
          />
        ) : null}
      </div>
      <span className="mono text-xs">{score.toFixed(2)}</span>
    </div>
  );
}
