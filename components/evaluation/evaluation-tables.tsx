import type { TEvaluationSummary } from "@/lib/console/evaluation/evaluation-types";
import type { TPolicyId, TScenarioId } from "@/router-core/replay";
import { DataTable } from "../data-table";
import { ms, num, pct } from "../format";

type TSelection = { scenario: TScenarioId; policy: TPolicyId };

/**
 * The paper's Table 14 (docs/references.md) for one evaluation: every scenario × policy with the six metrics, the
 * paper's success and degraded minutes beside ours, and whether the factor list meets the
 * paper's target. A row's button shows its per-minute charts.
 */
export function Table14({ result, selected, onSelect }: { result: TEvaluationSummary; selected: TSelection; onSelect: (s: TSelection) => void }) {
  const scenarios = [...new Set(result.cells.map((c) => c.scenario))];
  return (
    <table className="dense" data-testid="table-14">
      <thead>
        <tr>
          <th>Scenario</th>
          <th>Policy</th>
          <th title="completed requests / all requests">Success</th>
          <th className="muted">Paper</th>
          <th title="minutes in which more than 5% of traffic went to a degraded provider-region">Degraded min</th>
          <th className="muted">Paper</th>
          <th>p95</th>
          <th title="per-region minute leader changes, summed">Switches</th>
          <th title="leader changes reversed within 5 minutes">Osc.</th>
          <th title="from degradation start until A's share in the affected scope is ≤ 20%">Shift-away min</th>
          <th title="requests no provider took (fallback)">Unrouted</th>
          <th>Paper target</th>
        </tr>
      </thead>
      <tbody>
        {scenarios.flatMap((scenario) => {
          const rows = result.cells.filter((c) => c.scenario === scenario);
          return rows.map((c, i) => {
            const isSelected = selected.scenario === c.scenario && selected.policy === c.policy;
            return (
              <tr
                key={`${c.scenario}/${c.policy}`}
                data-testid={`t14-${c.scenario}-${c.policy}`}
                style={{
                  background: isSelected ? "color-mix(in srgb, var(--accent) 10%, transparent)" : undefined,
                  borderTop: i === 0 ? "2px solid var(--border)" : undefined,
                }}
              >
                {i === 0 ? (
                  <td rowSpan={rows.length} style={{ verticalAlign: "top", fontWeight: 600 }}>
                    {c.scenarioLabel}
                  </td>
                ) : null}
                <td>
                  <button
                    type="button"
                    className="underline"
                    aria-pressed={isSelected}
                    onClick={() => onSelect({ scenario: c.scenario, policy: c.policy })}
                    title="show its per-minute charts"
                  >
                    {c.policyLabel}
                  </button>
                </td>
                <td className="mono" data-testid="t14-success">
                  {pct(c.metrics.successRate, 2)}
                </td>
                <td className="mono muted">{pct(c.paper.success)}</td>
                <td className="mono" style={{ color: c.metrics.degradedMinutes > c.paper.degradedMinutes ? "var(--warn)" : undefined }}>
                  {c.metrics.degradedMinutes}
                </td>
                <td className="mono muted">{c.paper.degradedMinutes}</td>
                <td className="mono">{ms(c.metrics.p95Ms)}</td>
                <td className="mono">{c.metrics.switches}</td>
                <td className="mono">{c.metrics.oscillations}</td>
                <td className="mono">{num(c.metrics.shiftAwayMinutes, 2)}</td>
                <td className="mono">{c.metrics.unrouted}</td>
                <td>
                  {c.meetsTarget === null ? null : c.meetsTarget ? (
                    <span style={{ color: "var(--ok)" }}>met</span>
                  ) : (
                    <span style={{ color: "var(--bad)", fontWeight: 600 }}>not met</span>
                  )}
                </td>
              </tr>
            );
          });
        })}
      </tbody>
    </table>
  );
}

/** The paper's Table 15 (docs/references.md): the factor list's parameter variations, indices relative to the baseline = 100. */
export function Table15({ result }: { result: TEvaluationSummary }) {
  return (
    <DataTable
      columns={[
        "Variant",
        "Parameter",
        { label: "Completion idx", title: "100 × success rate / baseline's" },
        { label: "Failed idx", title: "100 × failed requests / baseline's" },
        { label: "p95 idx", title: "100 × p95 / baseline's" },
        "Switches",
        "Osc.",
        "Shift-away min",
        "Success",
        "p95",
      ]}
      empty="No sensitivity runs in this evaluation."
      testId="table-15"
    >
      {result.sensitivity.rows.map((r) => (
        <tr key={r.id}>
          <td className="mono">{r.id}</td>
          <td className="mono muted">{r.parameter}</td>
          <td className="mono">{num(r.completionIdx)}</td>
          <td className="mono" style={{ color: r.failedIdx > 100.5 ? "var(--warn)" : undefined }}>
            {num(r.failedIdx)}
          </td>
          <td className="mono" style={{ color: r.p95Idx > 100.5 ? "var(--warn)" : undefined }}>
            {num(r.p95Idx)}
          </td>
          <td className="mono">{r.switches}</td>
          <td className="mono">{r.oscillations}</td>
          <td className="mono">{num(r.shiftAwayMinutes, 1)}</td>
          <td className="mono">{pct(r.successRate, 2)}</td>
          <td className="mono">{ms(r.p95Ms)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
