import Link from "next/link";
import { utc } from "../format";

/** A decision's time, linking to its drilldown; `at` lets the drilldown go straight to the right partition. */
export function DecisionLink({ id, at }: { id: string; at: number }) {
  return (
    <Link href={`/decisions/${id}?at=${at}`} className="underline">
      {utc(at)}
    </Link>
  );
}

/**
 * What came back for a decision: the business outcome (with the stage that failed) and, when
 * known, the provider call's status. Red when either failed.
 */
export function DecisionOutcome({
  completed,
  failureStage = null,
  callStatus = null,
  callError = null,
}: {
  completed: boolean | null;
  failureStage?: string | null;
  callStatus?: string | null;
  callError?: string | null;
}) {
  const call = callStatus ? `call ${callStatus}${callError ? ` (${callError})` : ""}` : null;
  const business = completed === null ? null : completed ? "completed" : `failed${failureStage ? ` at ${failureStage}` : ""}`;
  const failed = completed === false || (callStatus !== null && callStatus !== "success");
  return (
    <span style={{ color: failed ? "var(--bad)" : completed ? "var(--ok)" : "var(--muted)" }}>{[business, call].filter(Boolean).join(" · ") || "pending"}</span>
  );
}
