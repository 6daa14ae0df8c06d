import type { TWhatIfView } from "@/lib/console/evaluation/evaluation-types";
import { durationText } from "@/router-core/policy/number-text";

type TWhatIfResult = NonNullable<TWhatIfView["result"]>;

/** "covers 25 min of the 3 h asked": a what-if over little recorded traffic must not read as a full one. */
export function WhatIfCoverage({ result }: { result: Pick<TWhatIfResult, "coverage" | "from" | "to"> }) {
  const { coverage } = result;
  const full = coverage.recordedMinutes >= coverage.askedMinutes;
  return (
    <p className="text-xs" data-testid="what-if-coverage" data-from={result.from} data-to={result.to} style={full ? undefined : { color: "var(--warn)" }}>
      {coverage.recordedMinutes === 0
        ? `No recorded decisions in the ${durationText(coverage.askedMinutes)} asked.`
        : `Covers ${durationText(coverage.recordedMinutes)} of the ${durationText(coverage.askedMinutes)} asked${full ? "" : " (minutes with recorded decisions)"}.`}
    </p>
  );
}

/**
 * Replayed decisions this version would have sent to a provider the active policy's compliance
 * rules refuse for the region, per region and provider, out of the region's recorded decisions.
 */
export function WhatIfCompliance({ compliance }: { compliance: TWhatIfResult["compliance"] }) {
  if (!compliance) return null;
  const against = compliance.activeVersion ? `active ${compliance.activeVersion}` : "the active version";
  if (compliance.breaches.length === 0) {
    return (
      <p className="text-xs" data-testid="what-if-compliance" style={{ color: "var(--ok)" }}>
        Compliance: no replayed decision goes to a provider that {against}&apos;s compliance rules refuse.
      </p>
    );
  }
  return (
    <div className="flex flex-col gap-1" data-testid="what-if-compliance">
      <p className="text-xs font-semibold" style={{ color: "var(--bad)" }}>
        Compliance: {compliance.breaches.reduce((a, b) => a + b.decisions, 0).toLocaleString("en-US")} replayed decisions go to a provider that {against}
        &apos;s compliance rules refuse
      </p>
      <div className="overflow-x-auto">
        <table className="dense" data-testid="what-if-compliance-table">
          <thead>
            <tr>
              <th>Region</th>
              <th>Provider</th>
              <th>Decisions</th>
              <th>Why {against} refuses it</th>
            </tr>
          </thead>
          <tbody>
            {compliance.breaches.map((b) => (
              <tr key={`${b.region}/${b.provider}`} data-testid={`compliance-${b.region}-${b.provider}`}>
                <td className="mono">{b.region}</td>
                <td className="mono">{b.provider}</td>
                <td className="mono" data-testid="breach-count">
                  <span data-testid="breach-decisions">{b.decisions.toLocaleString("en-US")}</span> of{" "}
                  <span data-testid="breach-region-decisions">{b.regionDecisions.toLocaleString("en-US")}</span>
                </td>
                <td style={{ whiteSpace: "normal", minWidth: 220 }}>{b.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
