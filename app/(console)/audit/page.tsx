import Link from "next/link";
import { utc } from "@/components/format";
import { ZAuditQuery, listAudit } from "@/lib/audit/list-audit";
import { can, getViewer } from "@/lib/console/get-viewer";
import { listAuditFacets } from "@/lib/console/list-audit-facets";
import { firstParam } from "@/lib/console/ranges";
import { getPrisma } from "@/lib/db/client";
import { VerifyChainButton } from "./verify-button";

export const dynamic = "force-dynamic";

const PAGE = 50;
const FILTERS = ["actor", "action", "targetType", "targetId", "from", "to"] as const;

/** datetime-local inputs carry no zone; the console shows UTC everywhere, so they are read as UTC. */
const asUtc = (v: string | undefined) => (v ? (/[zZ]|[+-]\d\d:\d\d$/.test(v) ? v : `${v.length === 16 ? `${v}:00` : v}Z`) : undefined);

function json(v: unknown): string {
  return v === null || v === undefined ? "" : JSON.stringify(v);
}

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const viewer = await getViewer();
  if (!can(viewer, "audit.read")) {
    return (
      <p className="panel p-3 text-sm">
        The audit log needs a signed-in user.{" "}
        <Link href="/login?next=/audit" style={{ color: "var(--accent)" }}>
          Sign in
        </Link>
      </p>
    );
  }
  const raw = Object.fromEntries(FILTERS.map((k) => [k, firstParam(sp[k])?.trim() || undefined]));
  const filters = { ...raw, from: asUtc(raw.from), to: asUtc(raw.to) };
  const parsed = ZAuditQuery.safeParse({ ...filters, before: firstParam(sp.before), limit: String(PAGE + 1) });
  const [rows, facets] = await Promise.all([parsed.success ? listAudit(getPrisma(), parsed.data) : Promise.resolve([]), listAuditFacets()]);
  const page = rows.slice(0, PAGE);
  const more = rows.length > PAGE;
  const query = new URLSearchParams(Object.entries(filters).filter((e): e is [string, string] => typeof e[1] === "string"));
  const nextHref = more ? `/audit?${new URLSearchParams([...query, ["before", String(page[page.length - 1]!.seq)]])}` : null;
  const exportHref = (format: string) => `/api/control/audit/export?${new URLSearchParams([...query, ["format", format]])}`;

  return (
    <div className="flex flex-col gap-4">
      <section className="panel">
        <div className="flex flex-wrap items-center gap-2 px-3 pt-3">
          <h2 className="text-sm font-semibold">Audit log</h2>
          <span className="muted text-xs">hash-chained; every control-plane change with its actor, before/after and reason</span>
          <span className="ml-auto flex items-center gap-2">
            <VerifyChainButton />
            {can(viewer, "audit.export") ? (
              <>
                <a className="btn" href={exportHref("json")} data-testid="export-json">
                  Export JSON
                </a>
                <a className="btn" href={exportHref("csv")} data-testid="export-csv">
                  Export CSV
                </a>
              </>
            ) : null}
          </span>
        </div>
        <form className="flex flex-wrap items-end gap-2 p-3 text-xs" method="get" action="/audit" data-testid="audit-filters">
          <label className="flex flex-col gap-1">
            <span className="muted">Actor</span>
            <select name="actor" defaultValue={raw.actor ?? ""} className="field" style={{ width: 200 }}>
              <option value="">any</option>
              {facets.actors.map((a) => (
                <option key={a}>{a}</option>
              ))}
            </select>
          </label>
          <label className="flex flex-col gap-1">
            <span className="muted">Action</span>
            <select name="action" defaultValue={raw.action ?? ""} className="field" style={{ width: 200 }}>
              <option value="">any</option>
              {facets.actions.map((a) => (
                <option key={a}>{a}</option>
              ))}
            </select>
          </label>
          <label className="flex flex-col gap-1">
            <span className="muted">Target type</span>
            <select name="targetType" defaultValue={raw.targetType ?? ""} className="field" style={{ width: 200 }}>
              <option value="">any</option>
              {facets.targetTypes.map((a) => (
                <option key={a}>{a}</option>
              ))}
            </select>
          </label>
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
        {parsed.success ? null : (
          <p role="alert" className="px-3 pb-2 text-xs" style={{ color: "var(--bad)" }}>
            {parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}
          </p>
        )}
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
                page.map((e) => (
                  <tr key={e.seq} data-testid="audit-row">
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
                ))
              )}
            </tbody>
          </table>
        </div>
        <div className="flex items-center gap-2 p-3 text-xs">
          <span className="muted">
            {page.length} entr{page.length === 1 ? "y" : "ies"}
            {firstParam(sp.before) ? ` before #${firstParam(sp.before)}` : ", newest first"}
          </span>
          {firstParam(sp.before) ? (
            <Link className="btn" href={`/audit?${query}`}>
              Newest
            </Link>
          ) : null}
          {nextHref ? (
            <Link className="btn" href={nextHref} data-testid="audit-older">
              Older →
            </Link>
          ) : null}
        </div>
      </section>
    </div>
  );
}
