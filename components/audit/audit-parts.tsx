import Link from "next/link";
import type { listAudit } from "@/lib/audit/list-audit";
import { utc } from "../format";

/** The audit page's parts: its filter form (facets from the log itself) and the table of entries. */

type TAuditEntry = Awaited<ReturnType<typeof listAudit>>[number];
export type TAuditFilters = Record<"actor" | "action" | "targetType" | "targetId" | "from" | "to", string | undefined>;

function json(v: unknown): string {
  return v === null || v === undefined ? "" : JSON.stringify(v);
}

function FacetSelect({ label, name, value, options }: { label: string; name: string; value: string | undefined; options: string[] }) {
  return (
    <label className="flex flex-col gap-1">
      <span className="muted">{label}</span>
      <select name={name} defaultValue={value ?? ""} className="field" style={{ width: 200 }}>
        <option value="">any</option>
        {options.map((a) => (
          <option key={a}>{a}</option>
        ))}
      </select>
    </label>
  );
}

export function AuditFilters({ raw, facets }: { raw: TAuditFilters; facets: { actions: string[]; actors: string[]; targetTypes: string[] } }) {
  return (
    <form className="flex flex-wrap items-end gap-2 p-3 text-xs" method="get" action="/audit" data-testid="audit-filters">
      <FacetSelect label="Actor" name="actor" value={raw.actor} options={facets.actors} />
      <FacetSelect label="Action" name="action" value={raw.action} options={facets.actions} />
      <FacetSelect label="Target type" name="targetType" value={raw.targetType} options={facets.targetTypes} />
      <label className="flex flex-col gap-1">
        <span className="muted">Target id</span>
        <input name="targetId" defaultValue={raw.targetId ?? ""} className="field mono" style={{ width: 300 }} />
      </label>
      <label className="flex flex-col gap-1">
        <span className="muted">From (UTC)</span>
        <input type="datetime-local" name="from" defaultValue={raw.from?.slice(0, 16) ?? ""} className="field" />
      </label>
      <label className="flex flex-col gap-1">
        <span className="muted">To (UTC)</span>
        <input type="datetime-local" name="to" defaultValue={raw.to?.slice(0, 16) ?? ""} className="field" />
      </label>
      <button type="submit" className="btn">
        Apply
      </button>
      <Link href="/audit" className="btn">
        Clear
      </Link>
    </form>
  );
}

function AuditRow({ e }: { e: TAuditEntry }) {
  return (
    <tr data-testid="audit-row">
      <td className="mono muted">{e.seq}</td>
      <td className="mono">{utc(e.at.getTime())}</td>
      <td>{e.actor}</td>
      <td className="mono">{e.action}</td>
      <td className="mono">
        {e.targetType}
        {e.targetId ? <span className="muted"> · {e.targetId.slice(0, 8)}</span> : null}
      </td>
      <td style={{ whiteSpace: "normal", minWidth: 160 }}>{e.reason ?? <span className="muted">–</span>}</td>
      <td className="mono text-xs">
        <details>
          <summary className="cursor-pointer">diff</summary>
          <div style={{ whiteSpace: "pre-wrap", wordBreak: "break-all", maxWidth: 560 }}>
            <div style={{ color: "var(--bad)" }}>{json(e.before) || "–"}</div>
            <div style={{ color: "var(--ok)" }}>{json(e.after) || "–"}</div>
          </div>
        </details>
      </td>
      <td className="mono muted">{e.ip ?? "–"}</td>
    </tr>
  );
}

export function AuditTable({ page }: { page: TAuditEntry[] }) {
  return (
    <div className="overflow-x-auto">
      <table className="dense" data-testid="audit-table">
        <thead>
          <tr>
            <th>#</th>
            <th>Time</th>
            <th>Actor</th>
            <th>Action</th>
            <th>Target</th>
            <th>Reason</th>
            <th>Before → after</th>
            <th>IP</th>
          </tr>
        </thead>
        <tbody>
          {page.length === 0 ? (
            <tr>
              <td colSpan={8} className="muted">
                No entry matches.
              </td>
            </tr>
          ) : (
            page.map((e) => <AuditRow key={e.seq} e={e} />)
          )}
        </tbody>
      </table>
    </div>
  );
}
