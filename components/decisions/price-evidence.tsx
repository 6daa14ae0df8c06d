import { DataTable } from "../data-table";
import { ms, num, pct } from "../format";
import type { TCandidateRecord, TPriceEvidence } from "@/router-core/index";

const price = (v: number) => (v === 0 ? "0" : v < 0.01 ? v.toPrecision(3) : v.toFixed(4));

function baselineText(e: TPriceEvidence): string {
  if (e.strategy === "price_weighted") return "";
  if (e.p99BaselineMs === null) return " No eligible provider has a p99 yet, so no latency penalty applies.";
  const from = e.p99BaselineFrom === "factor_list" ? "the factor list's p99_baseline_ms" : "the lowest p99 among the eligible providers";
  return ` The p99 baseline is ${ms(e.p99BaselineMs)} (${from}); the penalty never goes below ${e.penaltyFloor}.`;
}

/**
 * The numbers a price strategy weighed (the token-gateway article (docs/references.md) algorithms 1 and 2), one row per eligible
 * provider: each factor of the weight, and the probability the weights gave after normalising
 * (the formula is in the selection explanation above it).
 */
export function PriceEvidence({ e, candidates }: { e: TPriceEvidence; candidates: readonly TCandidateRecord[] }) {
  const penalised = e.strategy === "price_latency_penalty";
  const probability = new Map(candidates.map((c) => [c.provider, c.selectionProbability]));
  return (
    <div className="px-3 pb-3" data-testid="price-evidence">
      <p className="pb-1 text-sm">
        Base price: {price(e.basePrice)}, the cheapest eligible.
        {baselineText(e)}
      </p>
      <DataTable
        columns={["Provider", "Price", "Base ÷ price", ...(penalised ? ["p99", "Baseline", "Penalty"] : []), "Weight", "P(selected)"]}
        empty="No eligible provider."
        testId="price-evidence-table"
      >
        {e.rows.map((r) => (
          <tr key={r.provider} data-testid={`price-row-${r.provider}`}>
            <td className="mono">{r.provider}</td>
            <td className="mono">{price(r.price)}</td>
            <td className="mono">{r.price > 0 ? num(e.basePrice / r.price, 3) : "–"}</td>
            {penalised ? (
              <>
                <td className="mono">{ms(r.p99Ms)}</td>
                <td className="mono">{ms(e.p99BaselineMs)}</td>
                <td className="mono">
                  {num(r.penalty, 3)}
                  {r.penalty !== null && e.penaltyFloor !== null && r.penalty <= e.penaltyFloor ? <span className="muted"> (floor)</span> : null}
                </td>
              </>
            ) : null}
            <td className="mono">{num(r.weight, 3)}</td>
            <td className="mono">{pct(probability.get(r.provider))}</td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}
