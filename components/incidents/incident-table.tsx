import Link from "next/link";
import type { TIncidentsPage } from "@/lib/console/incidents/get-incidents-page";
import { DataTable } from "../data-table";
import { utc } from "../format";
import { PageTitle } from "../page-title";
import { duration, SeverityBadge, StateBadge } from "./incident-badges";

/** The filter as plain GET fields: the list is a link, shareable and reloadable. */
function Filters({ page }: { page: TIncidentsPage }) {
  const { filter } = page;
  return (
    <form method="get" action="/incidents" className="flex flex-wrap items-end gap-3 px-3 py-2 text-sm" data-testid="incident-filters">
      <label className="flex flex-col gap-1">
        <span className="muted">Operation</span>
        <select name="operation" className="field" defaultValue={filter.operation ?? ""} data-testid="filter-operation">
          <option value="">all operations</option>
          {page.operations.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-1">
        <span className="muted">Region</span>
        <select name="region" className="field" defaultValue={filter.region ?? ""} data-testid="filter-region">
          <option value="">all regions</option>
          {page.regions.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-1">
        <span className="muted">State</span>
        <select name="state" className="field" defaultValue={filter.state} data-testid="filter-state">
          <option value="all">open and resolved</option>
          <option value="open">open</option>
          <option value="resolved">resolved</option>
        </select>
      </label>
      <button type="submit" className="btn">
        Filter
      </button>
    </form>
  );
}

/** Every incident of the fleet, open ones first: where on-call starts without knowing where the problem is. */
export function IncidentTable({ page }: { page: TIncidentsPage }) {
  const open = page.items.filter((i) => i.endedAt === null).length;
  return (
    <div className="flex flex-col gap-4">
      <PageTitle>Incidents</PageTitle>
      <section className="panel" aria-label="Incidents">
        <h2 className="panel-title">
          {open} open · {page.items.length - open} resolved <span className="muted font-normal">· every operation and region unless filtered</span>
        </h2>
        <Filters page={page} />
        <div className="table-scroll">
          <DataTable columns={["State", "Incident"]} empty="No incident matches: nothing has moved traffic away from a provider here." testId="incident-table">
            {page.items.map((i) => (
              <tr key={i.id} data-testid="incident-row" data-state={i.state}>
                <td style={{ width: 1 }}>
                  <span className="flex flex-col gap-0.5">
                    <StateBadge state={i.state} />
                    <SeverityBadge severity={i.severity} />
                  </span>
                </td>
                {/* One cell of lines rather than six columns: a phone shows all of it without scrolling sideways. */}
                <td style={{ whiteSpace: "normal" }}>
                  <Link href={`/incidents/${i.id}`} className="font-semibold underline" data-testid="incident-link">
                    {i.title}
                  </Link>
                  <div>{i.causeDetail}</div>
                  <div className="muted">
                    <span className="mono">{utc(i.startedAt)}</span> · {duration((i.endedAt ?? page.now) - i.startedAt)}
                    {i.endedAt === null ? " so far" : ""} · {i.headline ?? "no traffic moved"}
                    {i.steps > 1 ? ` · ${i.steps} phases` : ""}
                  </div>
                </td>
              </tr>
            ))}
          </DataTable>
        </div>
      </section>
    </div>
  );
}
