import Link from "next/link";
import { DataTable } from "@/components/data-table";
import { utc } from "@/components/format";
import { ComplianceBadge, StatusBadge } from "@/components/factor-lists/status-badge";
import { can, getViewer } from "@/lib/console/get-viewer";
import { listFactorLists } from "@/lib/console/factor-lists/list-factor-lists";

export const dynamic = "force-dynamic";

export default async function FactorListsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const operation = typeof sp.operation === "string" && sp.operation ? sp.operation : undefined;
  const [{ operations, versions }, viewer] = await Promise.all([listFactorLists(operation), getViewer()]);
  const canCreate = can(viewer, "factor_list.create");
  return (
    <div className="flex flex-col gap-4">
      <section className="panel">
        <h1 className="panel-title">Factor lists · operations</h1>
        <DataTable columns={["Operation", "Description", "Active", "Shadow", "Versions", ""]} empty="No operation exists yet." testId="operations-table">
          {operations.map((o) => (
            <tr key={o.operation} data-testid={`operation-${o.operation}`}>
              <td className="mono">
                <Link href={`/factor-lists?operation=${encodeURIComponent(o.operation)}`} style={{ color: "var(--accent)" }}>
                  {o.operation}
                </Link>
              </td>
              <td>{o.description}</td>
              <td className="mono">
                {o.active ? <Link href={`/factor-lists/${o.active.id}`}>v{o.active.version}</Link> : <span className="muted">none (static order)</span>}
              </td>
              <td className="mono">{o.shadow ? <Link href={`/factor-lists/${o.shadow.id}`}>v{o.shadow.version}</Link> : <span className="muted">–</span>}</td>
              <td className="mono">{o.versions}</td>
              <td style={{ width: 1 }}>
                {canCreate ? (
                  <Link className="btn" href={`/factor-lists/new?operation=${encodeURIComponent(o.operation)}`} data-testid={`new-draft-${o.operation}`}>
                    New draft
                  </Link>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>
      </section>

      <section className="panel">
        <h2 className="panel-title">
          Versions {operation ? <span className="mono">· {operation}</span> : <span className="muted font-normal">· all operations</span>}
          {operation ? (
            <Link href="/factor-lists" className="muted ml-2 font-normal">
              (show all)
            </Link>
          ) : null}
        </h2>
        <DataTable
          columns={["Operation", "Version", "Status", "Author", "Change note", "Approvals", "Created", "Activated"]}
          empty="No factor-list version yet."
          testId="versions-table"
        >
          {versions.map((v) => (
            <tr key={v.id} data-testid={`version-row-${v.operation}-v${v.version}`}>
              <td className="mono">{v.operation}</td>
              <td className="mono">
                <Link href={`/factor-lists/${v.id}`} style={{ color: "var(--accent)" }}>
                  v{v.version}
                </Link>
              </td>
              <td>
                <StatusBadge status={v.status} /> {v.gatesChanged ? <ComplianceBadge /> : null}
              </td>
              <td>{v.author ?? <span className="muted">system</span>}</td>
              <td style={{ whiteSpace: "normal", maxWidth: 420 }}>{v.changeNote || <span className="muted">–</span>}</td>
              <td>
                {v.reviews.length === 0 ? (
                  <span className="muted">–</span>
                ) : (
                  v.reviews.map((r, i) => (
                    <span key={i} className="tag" style={{ color: r.decision === "approved" ? "var(--ok)" : "var(--bad)" }} title={r.reviewer}>
                      {r.decision} · {r.capacity}
                    </span>
                  ))
                )}
              </td>
              <td className="mono">{utc(v.createdAt)}</td>
              <td className="mono">{utc(v.activatedAt)}</td>
            </tr>
          ))}
        </DataTable>
      </section>
    </div>
  );
}
