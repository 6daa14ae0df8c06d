import Link from "next/link";
import { utc } from "@/components/format";
import { PageTitle } from "@/components/page-title";
import { getReviewInbox } from "@/lib/console/factor-lists/get-review-inbox";
import { getViewer } from "@/lib/console/get-viewer";

export const dynamic = "force-dynamic";

const AS = { approver: "as approver", compliance: "as compliance" } as const;

/** The signed-in person's review inbox: what waits for an approval they may give, oldest first. */
export default async function ReviewsPage() {
  const viewer = await getViewer();
  const { items, truncated } = await getReviewInbox(viewer);
  return (
    <div className="flex flex-col gap-4" data-testid="review-inbox">
      <PageTitle>Waiting for your review</PageTitle>
      <p className="muted text-sm">
        Factor-list versions with an approval still missing that you may give (not your own, not one you reviewed already), and catalogue changes held for
        compliance that someone else asked for. Oldest first.
      </p>
      {items.length === 0 ? (
        <p className="panel p-3 text-sm" data-testid="inbox-empty">
          Nothing waits for you.
        </p>
      ) : (
        <ul className="flex flex-col gap-2">
          {items.map((item) =>
            item.kind === "factor_list" ? (
              <li key={item.id} className="panel flex flex-col gap-1 p-3 text-sm" data-testid={`inbox-version-${item.id}`}>
                <Link href={`/factor-lists/${item.id}`} className="font-semibold underline">
                  <span className="mono">{item.operation}</span> version {item.version}
                </Link>
                <span>{item.changeNote || "No change note."}</span>
                <span className="muted text-xs">
                  Yours to approve {item.yours.map((c) => AS[c]).join(" or ")} · still missing: {item.waitingOn.join(", ")} · by {item.author} · submitted{" "}
                  <span className="mono">{utc(item.submittedAt?.getTime())}</span>
                </span>
              </li>
            ) : (
              <li key={item.id} className="panel flex flex-col gap-1 p-3 text-sm" data-testid={`inbox-change-${item.id}`}>
                <Link href="/catalog#pending-changes" className="font-semibold underline">
                  Catalogue change: <span className="mono">{item.target}</span>
                </Link>
                <span>{item.reasons.join("; ")}</span>
                <span className="muted text-xs">
                  Asked by {item.requestedBy} · <span className="mono">{utc(item.requestedAt.getTime())}</span>
                </span>
              </li>
            ),
          )}
        </ul>
      )}
      {truncated ? <p className="muted text-xs">Showing the oldest 100 of each kind.</p> : null}
    </div>
  );
}
