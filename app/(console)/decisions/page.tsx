import Link from "next/link";
import { DataTable } from "@/components/data-table";
import { DecisionLink, DecisionOutcome } from "@/components/decisions/decision-cells";
import { LiveRefresh } from "@/components/live-refresh";
import { utc } from "@/components/format";
import { FILTER_KEYS, OUTCOME_FILTERS, ZDecisionFilters, type TDecisionFilters } from "@/lib/console/decisions/decision-filters";
import { listDecisionFacets } from "@/lib/console/decisions/list-decision-facets";
import { listDecisions } from "@/lib/console/decisions/list-decisions";
import { firstParam } from "@/lib/console/ranges";
import { PageTitle } from "@/components/page-title";

export const dynamic = "force-dynamic";

type TSearch = Record<string, string | string[] | undefined>;

function hrefWith(filters: TDecisionFilters, extra: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const k of FILTER_KEYS) {
    const v = filters[k];
    if (v) q.set(k, v);
  }
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) q.delete(k);
    else q.set(k, v);
  }
  return `/decisions?${q}`;
}

function Select({ name, label, value, options }: { name: string; label: string; value: string | undefined; options: readonly string[] }) {
  return (
    <label className="flex flex-col gap-1 text-xs">
      <span className="muted">{label}</span>
      <select name={name} defaultValue={value ?? ""} className="field mono">
        <option value="">any</option>
        {options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
    </label>
  );
}

export default async function DecisionsPage({ searchParams }: { searchParams: Promise<TSearch> }) {
  const sp = await searchParams;
  const raw = Object.fromEntries(Object.entries(sp).map(([k, v]) => [k, firstParam(v)]));
  const parsed = ZDecisionFilters.safeParse(raw);
  const filters: TDecisionFilters = parsed.success ? parsed.data : {};
  const [facets, page] = await Promise.all([listDecisionFacets(), listDecisions(filters)]);
  const now = page.to;
  const quick = (label: string, ms: number) => (
    <Link key={label} className="btn" href={hrefWith({ ...filters, from: new Date(now - ms).toISOString(), to: undefined }, { after: undefined })}>
      last {label}
    </Link>
  );
  return (
    <div className="flex flex-col gap-4">
      <PageTitle>Decisions</PageTitle>
      <form method="get" action="/decisions" className="panel flex flex-wrap items-end gap-3 p-3" aria-label="Decision filters">
        <label className="flex flex-col gap-1 text-xs">
          <span className="muted">From (ISO, UTC)</span>
          <input name="from" defaultValue={filters.from ?? new Date(page.from).toISOString()} className="field mono w-[210px]" />
        </label>
        <label className="flex flex-col gap-1 text-xs">
          <span className="muted">To (ISO, blank = now)</span>
          <input name="to" defaultValue={filters.to ?? ""} placeholder="now" className="field mono w-[210px]" />
        </label>
        <Select name="operation" label="Operation" value={filters.operation} options={facets.operations} />
        <Select name="region" label="Region" value={filters.region} options={facets.regions} />
        <Select name="provider" label="Selected provider" value={filters.provider} options={facets.providers} />
        <Select name="reason" label="Reason code" value={filters.reason} options={facets.reasons} />
        <Select name="policy" label="Policy version" value={filters.policy} options={facets.policies} />
        <Select name="outcome" label="Outcome" value={filters.outcome} options={OUTCOME_FILTERS} />
        <Select name="stale" label="Stale metrics" value={filters.stale} options={["true", "false"]} />
        <button type="submit" className="btn btn-primary">
          Apply
        </button>
        <Link href="/decisions" className="btn">
          Reset
        </Link>
        <span className="ml-auto flex gap-1">{[quick("15 min", 900_000), quick("1 h", 3_600_000), quick("24 h", 86_400_000)]}</span>
        {!parsed.success ? (
          <p className="w-full text-xs" style={{ color: "var(--bad)" }} role="alert">
            Ignored invalid filters: {parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}
          </p>
        ) : null}
      </form>

      <section className="panel">
        <div className="panel-title flex items-center gap-3">
          <span>
            Decisions {utc(page.from)} – {utc(page.to)}
          </span>
          <span className="muted text-xs font-normal">newest first · {page.rows.length} shown</span>
          {/* A view built from records: clients send every non-routine local decision's record but only a sample of routine ones. */}
          <span className="muted text-xs font-normal" data-testid="local-sample-note">
            decisions clients made locally: every non-routine one, routine ones sampled (counts on the overview and shadow pages are exact)
          </span>
          <span className="ml-auto flex gap-2 text-xs font-normal">
            {/* Open-ended and on the newest page: a live tail, new decisions appear at the top. */}
            {!filters.to && !filters.after ? <LiveRefresh label="Live tail" /> : null}
            {filters.after ? (
              <Link className="btn" href={hrefWith(filters, { after: undefined })}>
                ← Newest
              </Link>
            ) : null}
            {page.next ? (
              <Link className="btn" href={hrefWith(filters, { after: page.next })} data-testid="older-page">
                Older →
              </Link>
            ) : null}
          </span>
        </div>
        <DataTable
          columns={["Time", "Operation", "Region", "Selected", "Reason", "Policy", "Margin", "Metric age", "Shadow", "Outcome"]}
          empty="No decisions match these filters in this time range."
          testId="decisions-table"
        >
          {page.rows.map((d) => (
            <tr key={d.id} data-testid="decision-row">
              <td className="mono">
                <DecisionLink id={d.id} at={d.at} />
              </td>
              <td className="mono">{d.operation}</td>
              <td className="mono">{d.region}</td>
              <td className="mono">{d.selected ?? <span style={{ color: "var(--bad)" }}>none ({d.fallbackAction ?? "fallback"})</span>}</td>
              <td className="mono">{d.reasonCode}</td>
              <td className="mono">{d.policyVersion ?? "–"}</td>
              <td className="mono">{d.scoreMargin === null ? "–" : d.scoreMargin.toFixed(1)}</td>
              <td className="mono" style={{ color: d.stale ? "var(--warn)" : undefined }}>
                {d.metricAgeMs === null ? "–" : `${(d.metricAgeMs / 1000).toFixed(1)} s`}
                {d.stale ? " stale" : ""}
              </td>
              <td className="mono" style={{ color: d.shadowAgrees === false ? "var(--warn)" : undefined }}>
                {d.shadowPick === null && d.shadowAgrees === null ? "–" : d.shadowAgrees ? "agrees" : `→ ${d.shadowPick ?? "none"}`}
              </td>
              <td>
                <DecisionOutcome completed={d.completed} />
              </td>
            </tr>
          ))}
        </DataTable>
      </section>
    </div>
  );
}
