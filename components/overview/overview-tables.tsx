import Link from "next/link";
import type { TOverview } from "@/lib/console/types";
import { DataTable } from "../data-table";
import { age, sharesText, utc } from "../format";
import { ProviderHealthTable } from "../providers/health-table";
import { ShiftEventLink } from "../shift-evidence";

/** Provider health in the region beside the active overrides. */
export function HealthAndOverrides({ data }: { data: TOverview }) {
  const health = [...data.health].sort((a, b) => (b.servedShare ?? b.share ?? -1) - (a.servedShare ?? a.share ?? -1) || a.provider.localeCompare(b.provider));
  return (
    <div className="grid gap-4 lg:grid-cols-[3fr_2fr]">
      <section className="panel" aria-label="Provider health">
        <div className="panel-title">
          Providers in <span className="mono">{data.region}</span>{" "}
          <span className="muted font-normal">
            · last {data.windowMinutes} min, merged across instances; served from the decision log, plan from the controller
          </span>
        </div>
        <ProviderHealthTable
          rows={health}
          now={data.generatedAt}
          byRegion={false}
          testId="health-table"
          empty={`No provider serves ${data.operation} in ${data.region}.`}
        />
      </section>
      <section className="panel" aria-label="Active overrides">
        <div className="panel-title">Active overrides</div>
        <DataTable columns={null} empty="None: routing is automatic." testId="overrides-table">
          {data.overrides.map((o) => (
            <tr key={o.id}>
              <td style={{ color: "var(--bad)" }}>{o.kind.replaceAll("_", " ")}</td>
              <td className="mono">{o.provider ?? "–"}</td>
              <td className="mono">{o.region ?? "all regions"}</td>
              <td className="muted" style={{ whiteSpace: "normal" }}>
                {o.reason}
                <div className="text-xs">
                  since {age(o.createdAt, data.generatedAt)} · {o.expiresAt ? `expires ${utc(o.expiresAt)}` : "no expiry"}
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      </section>
    </div>
  );
}

/** Consecutive events of one type and provider (a tick each while the controller moves) as one row with a count and the first time. */
function collapseRuns(shifts: TOverview["shifts"]) {
  const runs: { e: TOverview["shifts"][number]; count: number; firstAt: number }[] = [];
  for (const e of shifts) {
    const last = runs.at(-1);
    if (last && last.e.type === e.type && last.e.provider === e.provider) {
      last.count++;
      last.firstAt = e.at;
    } else runs.push({ e, count: 1, firstAt: e.at });
  }
  return runs;
}

export function RecentShifts({ data, operation, region }: { data: TOverview; operation: string; region: string }) {
  return (
    <section className="panel" aria-label="Recent shift events">
      <div className="panel-title flex">
        Recent shift events
        <Link href={`/why?${new URLSearchParams({ operation, region })}`} className="ml-auto text-xs font-normal underline">
          all in Why traffic moved (g w)
        </Link>
      </div>
      <DataTable
        columns={["Time", "Event", "Provider", "Shares after", "Policy", "Detail"]}
        empty={`No shift events yet for ${data.operation} in ${data.region}.`}
        testId="recent-shifts"
      >
        {collapseRuns(data.shifts).map(({ e: s, count, firstAt }) => (
          <tr key={s.id}>
            <td className="mono">
              {utc(s.at)}
              {count > 1 ? <div className="muted text-xs">since {utc(firstAt)}</div> : null}
            </td>
            <td className="mono">
              <ShiftEventLink event={s} />
              {count > 1 ? <span className="tag ml-1">× {count}</span> : null}
            </td>
            <td className="mono">{s.provider ?? "–"}</td>
            <td className="mono">{sharesText(s.sharesTo)}</td>
            <td className="mono">{s.policyVersion ?? "–"}</td>
            <td className="muted" style={{ whiteSpace: "normal" }}>
              {s.detail}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
