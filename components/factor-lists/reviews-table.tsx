import { utc } from "../format";

type TReview = { id: string; createdAt: Date; revokedAt: Date | null; capacity: string; decision: string; comment: string | null; reviewer: { email: string } };

/** Every review of a version in order, revoked ones dimmed. */
export function ReviewsTable({ reviews }: { reviews: TReview[] }) {
  return (
    <div className="overflow-x-auto">
      <table className="dense" data-testid="reviews-table">
        <thead>
          <tr>
            <th>Time</th>
            <th>Reviewer</th>
            <th>As</th>
            <th>Decision</th>
            <th>Comment</th>
          </tr>
        </thead>
        <tbody>
          {reviews.length === 0 ? (
            <tr>
              <td colSpan={5} className="muted">
                No review yet.
              </td>
            </tr>
          ) : (
            reviews.map((r) => (
              <tr key={r.id} style={{ opacity: r.revokedAt ? 0.5 : 1 }}>
                <td className="mono">{utc(r.createdAt.getTime())}</td>
                <td>{r.reviewer.email}</td>
                <td>{r.capacity}</td>
                <td style={{ color: r.decision === "approved" ? "var(--ok)" : "var(--bad)" }}>
                  {r.decision}
                  {r.revokedAt ? " (revoked by a revision)" : ""}
                </td>
                <td style={{ whiteSpace: "normal", minWidth: 200 }}>{r.comment || "–"}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
