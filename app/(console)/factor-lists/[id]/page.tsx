import Link from "next/link";
import { notFound } from "next/navigation";
import { utc } from "@/components/format";
import { DiffTable } from "@/components/factor-lists/diff-table";
import { ComplianceBadge, StatusBadge } from "@/components/factor-lists/status-badge";
import { VersionActions } from "@/components/factor-lists/version-actions";
import { WhatIfPanel } from "@/components/factor-lists/what-if-panel";
import { ReviewNeeds } from "@/components/factor-lists/review-needs";
import { ReviewsTable } from "@/components/factor-lists/reviews-table";
import { YamlView } from "@/components/factor-lists/yaml-view";
import { can, getViewer } from "@/lib/console/get-viewer";
import { getVersionDetail } from "@/lib/console/factor-lists/get-version-detail";

export const dynamic = "force-dynamic";

/** Versions still to be decided on: the approval page shows what each would have done with recent traffic. */
const WHAT_IF_STATUSES = new Set(["draft", "in_review", "approved", "shadow"]);

export default async function FactorListVersionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const viewer = await getViewer();
  const detail = await getVersionDetail(id, viewer);
  if (!detail) notFound();
  const { data, standing, weakenings, author, active, previousActive } = detail;
  const { version: v, diff, reviews, policy } = data;
  const isActive = policy.activeVersionId === v.id;
  return (
    <div className="flex flex-col gap-4" data-testid="version-detail">
      <section className="panel flex flex-col gap-3 p-3">
        <div className="flex flex-wrap items-center gap-3">
          <Link href={`/factor-lists?operation=${encodeURIComponent(v.operationKey)}`} className="muted text-sm">
            ← {v.operationKey}
          </Link>
          <h1 className="text-base font-semibold">
            <span className="mono">{v.operationKey}</span> · version {v.version}
          </h1>
          <StatusBadge status={v.status} />
          {data.changesCompliance ? <ComplianceBadge /> : null}
          <span className="ml-auto flex gap-2">
            <a className="btn" href={`/api/control/factor-lists/${v.id}/yaml`} data-testid="export-yaml">
              Export YAML
            </a>
            <a className="btn" href={`/api/control/factor-lists/${v.id}/yaml?canonical=1`}>
              Export with defaults
            </a>
          </span>
        </div>
        <div className="grid grid-cols-[140px_1fr] gap-x-3 gap-y-1 text-sm">
          <span className="muted">Author</span>
          <span>{author?.email ?? "system"}</span>
          <span className="muted">Change note</span>
          <span>{v.changeNote || "–"}</span>
          <span className="muted">Created</span>
          <span className="mono">{utc(v.createdAt.getTime())}</span>
          <span className="muted">Submitted</span>
          <span className="mono">{utc(v.submittedAt?.getTime())}</span>
          <span className="muted">Approved</span>
          <span className="mono">{utc(v.approvedAt?.getTime())}</span>
          <span className="muted">Activated</span>
          <span className="mono">{utc(v.activatedAt?.getTime())}</span>
          <span className="muted">Needs</span>
          <ReviewNeeds standing={standing} status={v.status} complianceReason={data.complianceApprovalRequired} />
        </div>
        {weakenings.length > 0 ? (
          <div className="rounded border p-2 text-sm" style={{ borderColor: "var(--bad)" }} data-testid="compliance-weakening">
            <p className="font-semibold" style={{ color: "var(--bad)" }}>
              Compliance impact: against the live version this loosens compliance
            </p>
            <ul className="list-disc pl-5">
              {weakenings.map((w) => (
                <li key={`${w.path}:${w.text}`}>{w.text}</li>
              ))}
            </ul>
            <p className="muted text-xs">Activating it asks for a confirmation and a reason, both kept in the audit log.</p>
          </div>
        ) : null}
        {viewer ? (
          <VersionActions
            id={v.id}
            version={v.version}
            status={v.status}
            wasActive={v.activatedAt !== null}
            lockVersion={policy.lockVersion}
            permissions={viewer.permissions}
            may={standing.may}
            weakenings={weakenings.map((w) => w.text)}
            note={standing.note}
            previousActive={previousActive}
          />
        ) : (
          <p className="muted text-sm">
            <Link href={`/login?next=/factor-lists/${v.id}`} style={{ color: "var(--accent)" }}>
              Sign in
            </Link>{" "}
            to review or change this version.
          </p>
        )}
      </section>

      <section className="panel" aria-label="Diff">
        <h2 className="panel-title">
          {isActive ? "This is the active version" : `Structural diff against ${active ? `active v${active.version}` : "nothing (no active version)"}`}{" "}
          {diff.complianceRelevant && !isActive ? <ComplianceBadge /> : null}
        </h2>
        {isActive ? null : <DiffTable changes={diff.changes} against={active ? `active v${active.version}` : "nothing"} />}
      </section>

      {WHAT_IF_STATUSES.has(v.status) ? <WhatIfPanel versionId={v.id} operation={v.operationKey} canRun={can(viewer, "evaluation.run")} /> : null}

      <div className="grid grid-cols-1 gap-4 xl:grid-cols-2">
        <section className="panel" aria-label="YAML">
          <h2 className="panel-title">YAML</h2>
          <YamlView yaml={v.yaml} />
        </section>
        <section className="panel" aria-label="Reviews">
          <h2 className="panel-title">Reviews</h2>
          <ReviewsTable reviews={reviews} />
        </section>
      </div>
    </div>
  );
}
