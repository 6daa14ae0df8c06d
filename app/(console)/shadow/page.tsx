import Link from "next/link";
import { DataTable } from "@/components/data-table";
import { LiveRefresh } from "@/components/live-refresh";
import { DecisionLink, DecisionOutcome } from "@/components/decisions/decision-cells";
import { pct, utc } from "@/components/format";
import { AgreementChart } from "./agreement-chart";
import { getShadowDisagreementGroups, type TDisagreementGroup } from "@/lib/console/shadow/get-shadow-disagreement-groups";
import { getShadowView } from "@/lib/console/shadow/get-shadow-view";
import { firstShadowedOperation } from "@/lib/console/shadow/first-shadowed-operation";
import { listScopes } from "@/lib/console/traffic/list-scopes";
import { RANGES, RANGE_KEYS, firstParam, parseRange, type TRangeKey } from "@/lib/console/ranges";

export const dynamic = "force-dynamic";

const CHART_HEIGHT = 220;

export default async function ShadowPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const [scope, inShadow] = await Promise.all([listScopes(), firstShadowedOperation()]);
  // Without a choice, the first operation that has a version in shadow: the others have nothing to compare.
  const operation = firstParam(sp.operation) ?? inShadow ?? scope.operations[0]?.key;
  const range = parseRange(sp.range, "24h");
  if (!operation) return <p className="panel muted p-3 text-sm">No operation exists yet.</p>;
  const view = await getShadowView(operation, range);
  const groups = await getShadowDisagreementGroups(operation, view.from, view.to);
  const href = (o: string, r: string) => `/shadow?operation=${encodeURIComponent(o)}&range=${r}`;
  return (
    <div className="flex flex-col gap-4" data-testid="shadow">
      <section className="panel">
        <div className="flex flex-wrap items-center gap-2 px-3 pt-3">
          <h1 className="text-sm font-semibold">Shadow mode</h1>
          <span className="muted text-sm">· operation</span>
          {scope.operations.map((o) => (
            <Link key={o.key} href={href(o.key, range)} className="btn mono" aria-current={o.key === operation ? "page" : undefined}>
              {o.key}
            </Link>
          ))}
          <span className="ml-auto flex gap-1">
            <LiveRefresh />
            {RANGE_KEYS.map((r) => (
              <Link key={r} href={href(operation, r)} className="btn" aria-current={r === range ? "page" : undefined}>
                {RANGES[r].label}
              </Link>
            ))}
          </span>
        </div>
        <div className="grid grid-cols-[160px_1fr] gap-x-3 gap-y-1 px-3 py-2 text-sm">
          <span className="muted">In shadow now</span>
          <span className="mono">
            {view.shadowVersion ? (
              <Link href={`/factor-lists/${view.shadowVersion.id}`}>v{view.shadowVersion.version}</Link>
            ) : (
              "no version (put an approved one in shadow from Factor lists)"
            )}
          </span>
          <span className="muted">Agreement</span>
          <span className="mono" data-testid="agreement-total">
            {pct(view.totals.compared > 0 ? view.totals.agreed / view.totals.compared : null)} of {view.totals.compared} compared decisions
          </span>
        </div>
        <h3 className="panel-title">
          Agreement rate over time{" "}
          <span className="muted font-normal">
            · per{" "}
            {view.bucketSeconds >= 3600
              ? `${view.bucketSeconds / 3600} h`
              : view.bucketSeconds >= 60
                ? `${view.bucketSeconds / 60} min`
                : `${view.bucketSeconds} s`}
            , last {RANGES[range].label}
          </span>
        </h3>
        <div className="px-2 pb-2">
          {view.series.length > 0 ? (
            <AgreementChart points={view.series} from={view.from} to={view.to} height={CHART_HEIGHT} />
          ) : (
            <div className="muted flex items-center justify-center text-sm" style={{ height: CHART_HEIGHT }}>
              No decision in this range was evaluated by a shadow version.
            </div>
          )}
        </div>
      </section>

      <DisagreementGroups groups={groups} range={range} />

      <details className="panel" aria-label="Disagreements">
        <summary className="panel-title cursor-pointer">
          Each disagreement <span className="muted font-normal">· newest 100, with outcome and whether the shadow avoided a degraded provider</span>
        </summary>
        <DataTable
          columns={[
            "Time",
            "Region",
            "Actual pick",
            "Shadow pick",
            "Actual outcome",
            { label: "Actual degraded", title: "the actual provider was degraded at decision time (definition below)" },
            { label: "Shadow avoids", title: "the shadow picked a provider whose breaker was closed" },
            "Versions",
          ]}
          empty="No disagreement in this range."
          testId="disagreements-table"
        >
          {view.disagreements.map((d) => (
            <tr key={d.id}>
              <td className="mono">
                <DecisionLink id={d.id} at={d.at} />
              </td>
              <td className="mono">{d.region}</td>
              <td className="mono">{d.actual ?? "none"}</td>
              <td className="mono">{d.shadow ?? "none"}</td>
              <td>
                <DecisionOutcome completed={d.completed} failureStage={d.failureStage} callStatus={d.callStatus} callError={d.callError} />
              </td>
              <td style={{ color: d.degraded ? "var(--bad)" : undefined }}>
                {d.degraded ? "yes" : "no"}
                {d.actualBreaker ? <span className="muted"> · breaker {d.actualBreaker.replace("_", "-")}</span> : null}
              </td>
              <td style={{ color: d.avoided ? "var(--ok)" : undefined, fontWeight: d.avoided ? 600 : 400 }}>{d.avoided ? "yes" : "no"}</td>
              <td className="mono muted">
                {d.policyVersion ?? "–"} / {d.shadowVersion ?? "–"}
              </td>
            </tr>
          ))}
        </DataTable>
        <p className="muted px-3 py-2 text-xs">
          Degraded: at the decision&apos;s time the actual provider&apos;s latest circuit-breaker transition (for the region or all regions) left it open or
          half-open, or this decision&apos;s own provider call failed, or its business outcome failed at the provider-call stage. Avoided: the actual provider
          was degraded and the shadow picked a different provider whose breaker was closed at that time.
        </p>
      </details>
    </div>
  );
}

/** The disagreements grouped by region and provider pair, largest first: what the shadow version would change, in a few lines. */
function DisagreementGroups({ groups, range }: { groups: TDisagreementGroup[]; range: TRangeKey }) {
  const disagreed = groups.reduce((s, g) => s + g.count, 0);
  return (
    <section className="panel" aria-label="Disagreements by region and provider pair">
      <h2 className="panel-title">
        Disagreements by region and provider pair <span className="muted font-normal">· last {RANGES[range].label}, largest first</span>
      </h2>
      <DataTable
        columns={["Region", "Live version picked", "Shadow would pick", "Decisions", "Share of disagreements", "Last"]}
        empty="No disagreement in this range."
        testId="disagreement-groups"
      >
        {groups.map((g) => (
          <tr key={`${g.region}:${g.actual}:${g.shadow}`} data-testid="disagreement-group">
            <td className="mono">{g.region}</td>
            <td className="mono">{g.actual ?? "none"}</td>
            <td className="mono">{g.shadow ?? "none"}</td>
            <td className="mono">{g.count.toLocaleString("en-US")}</td>
            <td className="mono">{pct(disagreed > 0 ? g.count / disagreed : null)}</td>
            <td className="mono">{utc(g.lastAt)}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
