import Link from "next/link";
import type { TFieldChange } from "@/lib/audit/field-changes";
import type { listAudit } from "@/lib/audit/list-audit";
import { utc } from "../format";

/** The audit page's parts: its filter form (facets from the log itself) and the table of entries. */

type TAuditEntry = Awaited<ReturnType<typeof listAudit>>[number] & { changes: TFieldChange[]; more: number };
export type TAuditFilters = Record<"actor" | "action" | "targetType" | "targetId" | "from" | "to", string | undefined>;

/** A value as the log holds it; absent reads "(none)" so a created or cleared field is visible as such. */
function shown(v: unknown): string {
  return v === undefined ? "(none)" : JSON.stringify(v);
}

/** The fields the entry changed, one per line: path, old value struck through, new value. */
function FieldChanges({ e }: { e: TAuditEntry }) {
  if (e.changes.length === 0) return <span className="muted">{e.before === null && e.after === null ? "–" : "no field changed"}</span>;
  return (
    <ul className="flex flex-col gap-0.5" data-testid="audit-changes">
      {e.changes.map((c) => (
        <li key={c.path} data-testid="audit-change">
          <span className="font-semibold">{c.path}</span>: <del style={{ color: "var(--bad)" }}>{shown(c.before)}</del> →{" "}
          <ins style={{ color: "var(--ok)", textDecoration: "none" }}>{shown(c.after)}</ins>
        </li>
      ))}
      {e.more > 0 ? <li className="muted">and {e.more} more fields</li> : null}
    </ul>
  );
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
      <td className="mono muted" data-label="#">
        {e.seq}
      </td>
      <td className="mono" data-label="Time">
        {utc(e.at.getTime())}
      </td>
      <td data-label="Actor">{e.actor}</td>
      <td className="mono" data-label="Action">
        {e.action}
      </td>
      <td className="mono" style={{ whiteSpace: "normal", overflowWrap: "break-word", minWidth: 140 }} data-label="Target">
        {e.targetType}
        {e.targetId ? (
          <>
            {" "}
            <Link
              href={`/audit?${new URLSearchParams({ targetId: e.targetId })}`}
              className="underline"
              title="Every entry for this target"
              data-testid="audit-target"
            >
              {e.targetId}
            </Link>
          </>
        ) : null}
      </td>
      <td style={{ whiteSpace: "normal", minWidth: 160 }} data-label="Reason">
        {e.reason ?? <span className="muted">–</span>}
      </td>
      <td
        className="mono text-xs"
        style={{ whiteSpace: "pre-wrap", wordBreak: "break-word", minWidth: 240, maxWidth: 560 }}
        data-label="Changed: before → after"
      >
        <FieldChanges e={e} />
      </td>
      <td className="mono muted" data-label="IP">
        {e.ip ?? "–"}
      </td>
    </tr>
  );
}

export function AuditTable({ page }: { page: TAuditEntry[] }) {
  return (
    <div className="overflow-x-auto">
      <table className="dense stack-on-phone" data-testid="audit-table">
        <thead>
          <tr>
            <th>#</th>
            <th>Time</th>
            <th>Actor</th>
            <th>Action</th>
            <th>Target</th>
            <th>Reason</th>
            <th>Changed: before → after</th>
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
