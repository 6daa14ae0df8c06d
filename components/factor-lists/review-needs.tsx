import type { TReviewStanding } from "@/lib/controlplane/reviews/review-standing";
import { utc } from "../format";

const LABEL = { approver: "An approver", compliance: "Compliance" } as const;

/**
 * The approvals a version needs, each with who gave it or "waiting", so the page says after
 * every review what is still missing. Once decided, what was needed stays readable.
 */
export function ReviewNeeds({ standing, status, complianceReason }: { standing: TReviewStanding; status: string; complianceReason: boolean }) {
  return (
    <div className="flex flex-col gap-0.5" data-testid="review-needs">
      {standing.needs.map((n) => (
        <span key={n.capacity} data-testid={`need-${n.capacity}`}>
          {LABEL[n.capacity]}
          {n.capacity === "compliance" && complianceReason ? " (gates or regional rules change)" : ""}:{" "}
          {n.by ? (
            <span style={{ color: "var(--ok)" }}>
              approved by {n.by.email} <span className="mono">{utc(n.by.at.getTime())}</span>
            </span>
          ) : status === "in_review" ? (
            <strong>waiting</strong>
          ) : (
            <span className="muted">not given</span>
          )}
        </span>
      ))}
      <span className="muted text-xs">
        {status === "in_review" && standing.waitingOn.length === 0 ? "All approvals given. " : ""}Never the author or an editor; one review per person.
      </span>
    </div>
  );
}
