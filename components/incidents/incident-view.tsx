import Link from "next/link";
import type { ReactNode } from "react";
import type { TIncidentPage } from "@/lib/console/incidents/get-incident-page";
import type { TIncidentRecord, TShares, TStepView } from "@/lib/incidents/index";
import { DataTable } from "../data-table";
import { pct, utc } from "../format";
import { PageTitle } from "../page-title";
import { IncidentActions, OverridesPanel, ProviderControls } from "../providers/controls";
import { CloseIncident } from "./close-incident";
import { duration, SeverityBadge, StateBadge } from "./incident-badges";

const CAUSE_LABEL: Record<string, string> = {
  breaker_open: "Circuit breaker opened",
  metric_threshold: "Metric crossed its threshold",
  hard_exclusion: "Excluded by a hard gate",
  quota_exhausted: "Quota exhausted",
  no_eligible_provider: "No eligible provider",
  provider_kill: "Operator killed a provider",
  provider_pin: "Operator pinned a provider",
  routing_kill_switch: "Operator turned adaptive routing off",
  policy_activation: "Policy activated",
};

const PHASE_LABEL: Record<string, string> = { away: "moved away", recovery: "recovery", failback: "failback", rebalance: "rebalance" };

function Row({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <>
      <dt className="muted">{label}</dt>
      <dd className="mono" data-testid={testId}>
        {children}
      </dd>
    </>
  );
}

function WhatHappened({ i, now }: { i: TIncidentRecord; now: number }) {
  return (
    <section className="panel" aria-label="What happened" data-testid="what-happened">
      <h2 className="panel-title">What happened</h2>
      <dl className="grid grid-cols-[120px_1fr] gap-x-3 gap-y-1 px-3 py-2 text-sm">
        <Row label="Cause" testId="incident-cause">
          <span style={{ fontFamily: "inherit" }}>
            {CAUSE_LABEL[i.causeKind] ?? i.causeKind}
            {i.provider ? ` · ${i.provider}` : ""}
          </span>
        </Row>
        <Row label="Detail" testId="incident-cause-detail">
          <span style={{ whiteSpace: "normal" }}>{i.causeDetail}</span>
        </Row>
        <Row label="Started" testId="incident-started">
          {utc(i.startedAt)}
        </Row>
        <Row label="Recovered" testId="incident-recovered">
          {i.recoveredAt ? utc(i.recoveredAt) : "not yet"}
        </Row>
        <Row label="Failback done" testId="incident-failback">
          {i.failbackDoneAt ? utc(i.failbackDoneAt) : "not yet"}
        </Row>
        <Row label="Ended" testId="incident-ended">
          {i.endedAt ? `${utc(i.endedAt)} (${i.endReason?.replace("_", " ") ?? ""})` : "ongoing"}
        </Row>
        <Row label="Duration">{duration((i.endedAt ?? now) - i.startedAt)}</Row>
      </dl>
    </section>
  );
}

/** The cause's evidence: the breaker's failures, or the metric against its threshold, or the operator's reason. */
function Evidence({ page }: { page: TIncidentPage }) {
  const { incident, facts } = page.detail;
  const ev = incident.causeEvidence;
  const breakers = facts.filter((f) => f.kind === "breaker");
  const provider = ev.provider as { regional?: { samples: number; failures: number } | null; score?: number | null; failedGates?: string[] } | null | undefined;
  return (
    <section className="panel" aria-label="Evidence" data-testid="incident-evidence">
      <h2 className="panel-title">Evidence</h2>
      <div className="flex flex-col gap-2 px-3 py-2 text-sm">
        {incident.causeKind === "breaker_open" ? (
          <p>
            Breaker of <span className="mono">{incident.provider}</span> in <span className="mono">{incident.region}</span> opened:{" "}
            <strong data-testid="breaker-failures">{String(ev.detail ?? incident.causeDetail)}</strong>
            {ev.reason ? <span className="muted"> ({String(ev.reason)})</span> : null}
            {typeof ev.share === "number" ? <span className="muted"> · it carried {pct(ev.share)} of the plan</span> : null}
          </p>
        ) : provider?.regional ? (
          <p>
            <span className="mono">{incident.provider}</span>: {provider.regional.failures} failures in {provider.regional.samples} calls (
            {pct(provider.regional.failures / Math.max(1, provider.regional.samples))}) against a failure-rate threshold of 30%
            {provider.failedGates?.length ? ` · failed gates: ${provider.failedGates.join(", ")}` : ""}
          </p>
        ) : (
          <p style={{ whiteSpace: "normal" }}>{incident.causeDetail}</p>
        )}
        {breakers.length > 0 ? (
          <details open={breakers.length <= 6}>
            <summary className="muted cursor-pointer">{breakers.length} breaker transitions</summary>
            <ul className="mono text-xs">
              {breakers.map((b) => (
                <li key={b.source}>
                  {utc(b.at)} · {b.summary}
                </li>
              ))}
            </ul>
          </details>
        ) : null}
      </div>
    </section>
  );
}

function sharesText(s: TShares): string {
  return Object.entries(s)
    .filter(([, v]) => v > 0.0005)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([p, v]) => `${p} ${pct(v)}`)
    .join(", ");
}

function Steps({ steps }: { steps: TStepView[] }) {
  return (
    <section className="panel" aria-label="Traffic moved" data-testid="incident-steps">
      <h2 className="panel-title">How traffic moved</h2>
      <div className="table-scroll">
        <DataTable columns={["When (UTC)", "Move"]} empty="The controller has not moved traffic for this incident." testId="steps-table">
          {steps.map((s) => (
            <tr key={s.id} data-testid="incident-step">
              <td style={{ width: 1 }}>
                <div className="mono">{utc(s.startedAt)}</div>
                <div className="muted">{PHASE_LABEL[s.phase] ?? s.phase}</div>
              </td>
              <td style={{ whiteSpace: "normal" }}>
                <div>
                  {s.summary}
                  {s.capped ? <span className="muted"> · capped</span> : null}
                </div>
                <div className="mono muted text-xs">{sharesText(s.sharesTo)}</div>
              </td>
            </tr>
          ))}
        </DataTable>
      </div>
    </section>
  );
}

function CurrentState({ page }: { page: TIncidentPage }) {
  const { sharesNow, breakers, incident } = page.detail;
  return (
    <section className="panel" aria-label="Current state" data-testid="incident-now">
      <h2 className="panel-title">
        Now{" "}
        <span className="muted font-normal">
          · planned shares in {incident.operation} · {incident.region}
        </span>
      </h2>
      <ul className="flex flex-col gap-1 px-3 py-2 text-sm">
        {Object.keys(sharesNow).length === 0 ? <li className="muted">No planned shares here.</li> : null}
        {Object.entries(sharesNow)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([p, v]) => {
            const b = breakers.find((x) => x.provider === p);
            return (
              <li key={p} className="mono" data-testid={`now-${p}`}>
                {p} {pct(v)}
                {b ? <span className={`state-${b.state}`}> · breaker {b.state}</span> : null}
              </li>
            );
          })}
      </ul>
    </section>
  );
}

function Timeline({ page }: { page: TIncidentPage }) {
  const others = page.detail.facts.filter((f) => f.kind !== "breaker");
  const deliveries = page.detail.deliveries;
  return (
    <section className="panel" aria-label="Timeline and notifications" data-testid="incident-timeline">
      <h2 className="panel-title">Operator actions and notifications</h2>
      <ul className="flex flex-col gap-1 px-3 py-2 text-sm">
        {others.length === 0 && deliveries.length === 0 ? <li className="muted">No operator action and no notification channel configured.</li> : null}
        {others.map((f) => (
          <li key={f.source}>
            <span className="mono muted">{utc(f.at)}</span> {f.summary}
          </li>
        ))}
        {deliveries.map((d) => (
          <li key={d.id} data-testid="incident-delivery">
            <span className="mono">{d.kind}</span> → {d.channel}: <strong>{d.status}</strong>
            {d.attempts.length > 0 ? (
              <span className="muted">
                {" "}
                · {d.attempts.length} {d.attempts.length === 1 ? "attempt" : "attempts"}, last {utc(d.attempts.at(-1)!.at)}
                {d.attempts.at(-1)!.statusCode ? ` HTTP ${d.attempts.at(-1)!.statusCode}` : ""}
                {d.attempts.at(-1)!.error ? ` ${d.attempts.at(-1)!.error}` : ""}
              </span>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** One incident on one screen: what happened, the evidence, how traffic moved, where it stands now, and what to do. */
export function IncidentView({ page }: { page: TIncidentPage }) {
  const i = page.detail.incident;
  const alternatives = Object.keys(page.detail.sharesNow)
    .filter((p) => p !== i.provider && (page.detail.sharesNow[p] ?? 0) > 0.0005)
    .sort((a, b) => (page.detail.sharesNow[b] ?? 0) - (page.detail.sharesNow[a] ?? 0))
    .slice(0, 2);
  return (
    <ProviderControls data={page.controls}>
      <div className="flex flex-col gap-4" data-testid="incident-page">
        <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
          <PageTitle>{i.title}</PageTitle>
          <StateBadge state={i.state} />
          <SeverityBadge severity={i.severity} />
          <Link href={`/?${new URLSearchParams({ operation: i.operation, region: i.region, range: "1h" })}`} className="muted text-sm underline">
            chart of {i.operation} · {i.region}
          </Link>
          <Link href="/incidents" className="muted text-sm underline">
            all incidents
          </Link>
        </div>
        <div className="grid gap-4 lg:grid-cols-2">
          <WhatHappened i={i} now={page.now} />
          <Evidence page={page} />
          <Steps steps={page.detail.steps} />
          <CurrentState page={page} />
        </div>
        <section className="panel" aria-label="Actions" data-testid="incident-actions">
          <h2 className="panel-title">
            Act{" "}
            <span className="muted font-normal">
              · for {i.operation} · {i.region}; every override needs an expiry
            </span>
          </h2>
          <div className="flex flex-col gap-3 px-3 py-2">
            <IncidentActions operation={i.operation} region={i.region} provider={i.provider} alternatives={alternatives} />
            {page.canClose ? <CloseIncident id={i.id} /> : null}
          </div>
        </section>
        <OverridesPanel overrides={page.overrides} now={page.now} />
        <Timeline page={page} />
      </div>
    </ProviderControls>
  );
}
