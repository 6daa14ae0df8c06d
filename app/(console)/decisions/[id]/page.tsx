import Link from "next/link";
import { notFound } from "next/navigation";
import { ContributionBar, factorColor } from "@/components/decisions/contribution-bar";
import { DataTable } from "@/components/data-table";
import { ms, num, pct, utc } from "@/components/format";
import { candidateMetricAgeSeconds, getDecision } from "@/lib/console/get-decision";
import { firstParam } from "@/lib/console/ranges";

export const dynamic = "force-dynamic";

const ageText = (s: number | null) => (s === null ? "–" : `${s.toFixed(1)} s`);

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <>
      <dt className="muted">{label}</dt>
      <dd className="mono">{children}</dd>
    </>
  );
}

export default async function DecisionPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const [{ id }, sp] = await Promise.all([params, searchParams]);
  const at = Number(firstParam(sp.at));
  const d = await getDecision(id, Number.isFinite(at) && at > 0 ? at : undefined);
  if (!d) notFound();
  const r = d.record;
  const factorNames = [...new Set(r.candidates.flatMap((c) => c.contributions.map((x) => x.score)))];
  const around = new URLSearchParams({ operation: r.operation, region: r.region, from: new Date(d.createdAt - 120_000).toISOString(), to: new Date(d.createdAt + 120_000).toISOString() });
  return (
    <div className="flex flex-col gap-4" data-testid="decision-detail">
      <div className="flex items-center gap-3 text-sm">
        <Link href="/decisions" className="underline">
          Decisions
        </Link>
        <span className="muted">/</span>
        <span className="mono">{r.id}</span>
        <span className="ml-auto flex gap-2">
          <Link className="btn" href={`/decisions?${around}`}>
            Decisions ±2 min
          </Link>
          <Link className="btn" href={`/why?${new URLSearchParams({ operation: r.operation, region: r.region, at: String(d.createdAt) })}`}>
            Explain this moment
          </Link>
        </span>
      </div>

      <section className="panel p-3">
        <dl className="grid grid-cols-[150px_1fr_150px_1fr_150px_1fr] gap-x-3 gap-y-1 text-sm">
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
          <Field label="Logged">
            {d.durability} by {d.instanceId}
            {d.degraded ? " · answered from cache (database down)" : ""}
          </Field>
        </dl>
      </section>

      <section className="panel" aria-label="Candidates">
        <div className="panel-title">Candidates in priority order</div>
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
              <tr key={c.provider} data-testid={`candidate-${c.provider}`} style={{ verticalAlign: "top", background: c.provider === r.selected ? "color-mix(in srgb, var(--ok) 8%, transparent)" : undefined }}>
                <td className="mono">
                  {c.priority === 0 ? "① " : `${c.priority + 1}. `}
                  {c.provider}
                  {c.provider === r.selected ? <span className="tag ml-1">selected</span> : null}
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
                  {c.score === null ? (
                    <span className="muted text-xs">not scored: a hard gate failed</span>
                  ) : (
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
                              <td className="mono muted pr-2">raw {x.raw === null ? "–" : num(x.raw, 3)}</td>
                              <td className="mono pr-2">
                                {x.score === "stale_penalty" ? "penalty" : `${x.weight} × ${x.index.toFixed(1)}`}
                                {x.defaulted ? <span className="muted"> (safe default)</span> : null}
                              </td>
                              <td className="mono text-right">{x.value >= 0 ? "+" : ""}{x.value.toFixed(2)}</td>
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
                  )}
                </td>
                <td className="mono">{pct(c.share)}</td>
                <td className="mono">{pct(c.selectionProbability)}</td>
                <td className="mono text-xs" style={{ whiteSpace: "normal" }}>
                  {c.sampleCount} samples ({c.metricScope})
                  <br />
                  age {ageText(candidateMetricAgeSeconds(r, c))}
                  {c.stale ? <span style={{ color: "var(--warn)" }}> stale</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section className="panel" aria-label="Outcomes">
        <div className="panel-title">Outcomes reported for this decision</div>
        <DataTable columns={["Reported", "Kind", "Provider", "Result", "Detail"]} empty="No outcome has come back yet." testId="outcomes-table">
          {[
            ...d.calls.map((c, i) => (
              <tr key={`c${i}`}>
                <td className="mono">{utc(c.at)}</td>
                <td>provider call</td>
                <td className="mono">{c.provider}</td>
                <td style={{ color: c.errorClass ? "var(--bad)" : "var(--ok)" }}>{c.status}</td>
                <td className="mono">
                  {c.httpStatus ?? "–"} · {ms(c.latencyMs)} · {c.retryCount} retries{c.errorClass ? ` · ${c.errorClass}` : ""}
                </td>
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
              </tr>
            )),
          ]}
        </DataTable>
      </section>
    </div>
  );
}
