import { ContributionBar, factorColor } from "./contribution-bar";
import { DataTable } from "../data-table";
import { PriceEvidence } from "./price-evidence";
import { ms, num, pct, utc } from "../format";
import type { TCandidateRecord } from "@/router-core/index";
import { explainSelection } from "@/lib/console/decisions/explain-selection";
import { indexScaleText } from "@/router-core/scoring/index-scale";
import type { TDecisionCaller, TDecisionDetail } from "@/lib/console/decisions/get-decision";
import type { TDecisionRecordView } from "@/lib/console/decisions/decision-record-view";

/** A decision's drilldown, in parts: what was decided, every candidate's gates and score, and the outcomes reported since. */

const ageText = (s: number | null) => (s === null ? "–" : `${s.toFixed(1)} s`);

/** A key by its prefix and name, so an operator can find it on the access page and revoke it. */
export function callerText(c: TDecisionCaller | null): string {
  if (c === null) return "not recorded";
  if (c.prefix === null) return c.id === "env:SWITCHYARD_API_KEY" ? "bootstrap key (SWITCHYARD_API_KEY)" : c.id;
  return `sy_${c.prefix}… (${c.name ?? "unnamed"})${c.revoked ? " · revoked" : ""}`;
}

const SOURCE_TEXT: Record<TDecisionRecordView["source"], string> = {
  server: "Switchyard",
  local: "client, in its process (LocalRouter)",
  fail_static: "client, fail-static (Switchyard not reached)",
};

const FAIL_STATIC_TEXT =
  "The client could not reach Switchyard in time and chose from its last decision or its static order (Decided by, above): no gate or score was evaluated.";

function sourceText(r: TDecisionRecordView): string {
  const parts = [SOURCE_TEXT[r.source]];
  if (r.failStaticSource) parts.push(`from ${r.failStaticSource}`);
  if (r.order.length > 0) parts.push(`order ${r.order.join(" → ")}`);
  if (r.reason) parts.push(r.reason);
  if (r.sampleRate !== null && r.sampleRate < 1)
    parts.push(`a sampled record: the client sends 1 in ${Math.round(1 / r.sampleRate)} of its routine decisions' records (every decision is counted)`);
  return parts.join(" · ");
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <>
      <dt className="muted">{label}</dt>
      <dd className="mono min-w-0 [overflow-wrap:anywhere]">{children}</dd>
    </>
  );
}

export function DecisionSummary({ d }: { d: TDecisionDetail }) {
  const r = d.record;
  return (
    <section className="panel p-3">
      <dl className="grid grid-cols-[110px_minmax(0,1fr)] gap-x-3 gap-y-1 text-sm lg:grid-cols-[150px_1fr_150px_1fr_150px_1fr]">
        <Field label="Time">{utc(d.createdAt)}</Field>
        <Field label="Operation">{r.operation}</Field>
        <Field label="Region">{r.region}</Field>
        <Field label="Selected">
          <span style={{ color: r.selected ? "var(--ok)" : "var(--bad)", fontWeight: 600 }} data-testid="selected-provider">
            {r.selected ?? "none"}
          </span>
        </Field>
        <Field label="Reason code">{r.reasonCode}</Field>
        <Field label="Policy version">
          {r.policyVersion ?? "–"} ({r.strategy})
        </Field>
        <Field label="Score margin">{num(r.scoreMargin, 2)}</Field>
        <Field label="Metric age">{ageText(r.metricAgeSeconds)}</Field>
        <Field label="Stale">
          <span style={{ color: r.stale ? "var(--warn)" : undefined }}>{r.stale ? "yes" : "no"}</span>
        </Field>
        <Field label="Override">{r.override}</Field>
        <Field label="Shadow pick">
          {r.shadow ? `${r.shadow.selected ?? "none"} (${r.shadow.policyVersion ?? "?"}, ${r.shadow.agrees ? "agrees" : "disagrees"})` : "no shadow policy"}
        </Field>
        <Field label="Fallback">{r.fallback ? JSON.stringify(r.fallback) : "–"}</Field>
        <Field label="Request id">{r.requestId}</Field>
        <Field label="Decided by">
          <span data-testid="decision-source">{sourceText(r)}</span>
        </Field>
        <Field label="API key">
          <span data-testid="decision-caller">{callerText(d.caller)}</span>
        </Field>
        <Field label="Logged">
          {d.durability} by {d.instanceId}
          {d.degraded && r.source === "server" ? " · answered from cache (database down)" : ""}
        </Field>
      </dl>
    </section>
  );
}

function ScoreBreakdown({ c, factorNames }: { c: TCandidateRecord; factorNames: string[] }) {
  if (c.score === null) return <span className="muted text-xs">not scored: a hard gate failed</span>;
  return (
    <div className="flex flex-col gap-1">
      <ContributionBar contributions={c.contributions} score={c.score} names={factorNames} />
      <table className="text-xs">
        <tbody>
          {c.contributions.map((x) => (
            <tr key={x.score}>
              <td className="pr-2">
                <span style={{ display: "inline-block", width: 8, height: 8, background: factorColor(x.score, factorNames), marginRight: 4 }} />
                <span className="mono">{x.score}</span>
              </td>
              <td className="mono muted pr-2" title={indexScaleText(x.score, x.defaulted)}>
                raw {x.raw === null ? "–" : num(x.raw, 3)}
              </td>
              <td className="mono pr-2">
                {x.score === "stale_penalty" ? "penalty" : `${x.weight} × ${x.index.toFixed(1)}`}
                {x.defaulted ? <span className="muted"> (safe default)</span> : null}
              </td>
              <td className="mono text-right">
                {x.value >= 0 ? "+" : ""}
                {x.value.toFixed(2)}
              </td>
              <td className="muted pl-2" style={{ whiteSpace: "normal" }} data-testid="index-scale">
                {indexScaleText(x.score, x.defaulted)}
              </td>
            </tr>
          ))}
          <tr style={{ borderTop: "1px solid var(--border)" }}>
            <td className="mono font-semibold" colSpan={3}>
              = score
            </td>
            <td className="mono text-right font-semibold">{c.score.toFixed(2)}</td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}

function CandidateRow({
  c,
  selected,
  factorNames,
  metricAge,
}: {
  c: TCandidateRecord;
  selected: string | null;
  factorNames: string[];
  metricAge: number | null;
}) {
  return (
    <tr
      data-testid={`candidate-${c.provider}`}
      style={{ verticalAlign: "top", background: c.provider === selected ? "color-mix(in srgb, var(--ok) 8%, transparent)" : undefined }}
    >
      <td className="mono">
        {c.priority === 0 ? "① " : `${c.priority + 1}. `}
        {c.provider}
        {c.provider === selected ? <span className="tag ml-1">selected</span> : null}
      </td>
      <td style={{ whiteSpace: "normal", minWidth: 280 }}>
        <ul className="flex flex-col gap-0.5 text-xs">
          {c.gates.map((g) => (
            <li key={g.gate}>
              <span style={{ color: g.passed ? "var(--ok)" : "var(--bad)", fontWeight: g.passed ? 400 : 600 }}>{g.passed ? "✓ pass" : "✗ FAIL"}</span>{" "}
              <span className="mono">{g.gate}</span> <span className="muted">{g.detail}</span>
            </li>
          ))}
        </ul>
      </td>
      <td className="text-xs" style={{ whiteSpace: "normal" }}>
        {c.guardrail === null ? (
          <span className="muted">not checked (gated)</span>
        ) : c.guardrail.passed ? (
          <span style={{ color: "var(--ok)" }}>✓ within</span>
        ) : (
          <span style={{ color: "var(--warn)" }}>{c.guardrail.violations.join("; ")}</span>
        )}
      </td>
      <td>
        <ScoreBreakdown c={c} factorNames={factorNames} />
      </td>
      <td className="mono">{pct(c.share)}</td>
      <td className="mono">{pct(c.selectionProbability)}</td>
      <td className="mono text-xs" style={{ whiteSpace: "normal" }}>
        {c.sampleCount} samples ({c.metricScope})
        <br />
        age {ageText(metricAge)}
        {c.stale ? <span style={{ color: "var(--warn)" }}> stale</span> : null}
      </td>
    </tr>
  );
}

/** `ages`: each candidate's metric age in seconds at decision time, by provider. */
export function CandidatesTable({ d, ages }: { d: TDecisionDetail; ages: Record<string, number | null> }) {
  const r = d.record;
  const factorNames = [...new Set(r.candidates.flatMap((c) => c.contributions.map((x) => x.score)))];
  return (
    <section className="panel" aria-label="Candidates">
      <div className="panel-title">Candidates in priority order</div>
      <div className="px-3 pb-2 text-sm" data-testid="selection-explanation">
        {(r.source === "fail_static" ? [FAIL_STATIC_TEXT] : explainSelection(r)).map((line) => (
          <p key={line}>{line}</p>
        ))}
      </div>
      {/* Records logged before the evidence existed have none. */}
      {r.strategyEvidence ? <PriceEvidence e={r.strategyEvidence} candidates={r.candidates} /> : null}
      <table className="dense" data-testid="candidates-table">
        <thead>
          <tr>
            <th>Provider</th>
            <th>Hard gates</th>
            <th>Guardrails</th>
            <th>Score = Σ weight × index</th>
            <th>Share</th>
            <th>P(selected)</th>
            <th>Metrics</th>
          </tr>
        </thead>
        <tbody>
          {r.candidates.map((c) => (
            <CandidateRow key={c.provider} c={c} selected={r.selected} factorNames={factorNames} metricAge={ages[c.provider] ?? null} />
          ))}
          {r.candidates.length === 0 ? (
            <tr>
              <td colSpan={7} className="muted">
                No candidate was evaluated for this decision.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </section>
  );
}

export function DecisionOutcomes({ d }: { d: TDecisionDetail }) {
  return (
    <section className="panel" aria-label="Outcomes">
      <div className="panel-title">Outcomes reported for this decision</div>
      <DataTable columns={["Reported", "Kind", "Provider", "Result", "Detail", "Reported by"]} empty="No outcome has come back yet." testId="outcomes-table">
        {[
          ...d.calls.map((c, i) => (
            <tr key={`c${i}`}>
              <td className="mono">{utc(c.at)}</td>
              <td>provider call</td>
              <td className="mono">{c.provider}</td>
              <td style={{ color: c.errorClass ? "var(--bad)" : "var(--ok)" }}>{c.status}</td>
              <td className="mono">
                {c.httpStatus ?? "–"} · {ms(c.latencyMs)} · {c.retryCount} retries{c.errorClass ? ` · ${c.errorClass}` : ""}
                {c.detail ? (
                  <div className="muted" data-testid="call-detail">
                    {c.detail}
                  </div>
                ) : null}
              </td>
              <td className="mono">{callerText(c.reporter)}</td>
            </tr>
          )),
          ...d.outcomes.map((o, i) => (
            <tr key={`b${i}`}>
              <td className="mono">{utc(o.at)}</td>
              <td>business outcome</td>
              <td className="mono">{o.provider ?? "–"}</td>
              <td style={{ color: o.completed ? "var(--ok)" : "var(--bad)" }}>{o.completed ? "completed" : "failed"}</td>
              <td className="mono">
                {o.failureStage ? `failed at ${o.failureStage} · ` : ""}
                {o.withinSla ? "within SLA" : "outside SLA"}
              </td>
              <td className="mono">{callerText(o.reporter)}</td>
            </tr>
          )),
        ]}
      </DataTable>
    </section>
  );
}
