import Link from "next/link";
import { AuditFilters, AuditTable, type TAuditFilters } from "@/components/audit/audit-parts";
import { fieldChanges } from "@/lib/audit/field-changes";
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
  const raw = Object.fromEntries(FILTERS.map((k) => [k, firstParam(sp[k])?.trim() || undefined])) as TAuditFilters;
  const filters = { ...raw, from: asUtc(raw.from), to: asUtc(raw.to) };
  const parsed = ZAuditQuery.safeParse({ ...filters, before: firstParam(sp.before), limit: String(PAGE + 1) });
  const [rows, facets] = await Promise.all([parsed.success ? listAudit(getPrisma(), parsed.data) : Promise.resolve([]), listAuditFacets()]);
  // Each entry's diff as the fields that moved, old → new.
  const page = rows.slice(0, PAGE).map((e) => ({ ...e, ...fieldChanges(e.before, e.after) }));
  const more = rows.length > PAGE;
  const query = new URLSearchParams(Object.entries(filters).filter((e): e is [string, string] => typeof e[1] === "string"));
  const nextHref = more ? `/audit?${new URLSearchParams([...query, ["before", String(page[page.length - 1]!.seq)]])}` : null;
  const exportHref = (format: string) => `/api/control/audit/export?${new URLSearchParams([...query, ["format", format]])}`;

  return (
    <div className="flex flex-col gap-4">
      <section className="panel">
        <div className="flex flex-wrap items-center gap-2 px-3 pt-3">
          <h1 className="text-sm font-semibold">Audit log</h1>
          <span className="muted text-xs">hash-chained; every control-plane change with its actor, before/after and reason</span>
          <span className="ml-auto flex flex-wrap items-center gap-2">
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
        <AuditFilters raw={raw} facets={facets} />
        {parsed.success ? null : (
          <p role="alert" className="px-3 pb-2 text-xs" style={{ color: "var(--bad)" }}>
            {parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}
          </p>
        )}
        <AuditTable page={page} />
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
