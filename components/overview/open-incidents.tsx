import Link from "next/link";
import type { TOpenIncident } from "@/lib/console/types";
import { utc } from "../format";

const SEVERITY_COLOR: Record<string, string> = { critical: "var(--bad)", warning: "var(--warn)", info: "var(--muted)" };

/** The fleet's open incidents, whatever operation and region the chart shows: one click to the one that matters. */
export function OpenIncidents({ incidents }: { incidents: readonly TOpenIncident[] }) {
  return (
    <section className="panel" aria-label="Open incidents" data-testid="open-incidents">
      <h2 className="panel-title flex items-center gap-2">
        Open incidents
        <span className="muted font-normal">· every operation and region</span>
        <Link href="/incidents" className="ml-auto font-normal underline" data-testid="all-incidents-link">
          All incidents
        </Link>
      </h2>
      {incidents.length === 0 ? (
        <p className="muted px-3 py-2 text-sm">None: traffic follows the plan everywhere.</p>
      ) : (
        <ul className="flex flex-col text-sm">
          {incidents.map((i) => (
            <li key={i.id} className="flex flex-wrap items-baseline gap-x-3 border-t px-3 py-2" style={{ borderColor: "var(--border)" }}>
              <span className="font-semibold" style={{ color: SEVERITY_COLOR[i.severity] ?? "var(--text)" }}>
                {i.severity}
              </span>
              <Link href={`/incidents/${i.id}`} className="underline" data-testid="open-incident-link">
                {i.title}
              </Link>
              <span className="muted mono">since {utc(i.startedAt)}</span>
              {i.headline ? <span className="muted">{i.headline}</span> : null}
              {i.state === "recovering" ? <span style={{ color: "var(--ok)" }}>recovering</span> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
