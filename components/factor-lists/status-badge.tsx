const COLORS: Record<string, string> = {
  draft: "var(--muted)",
  in_review: "var(--warn)",
  approved: "var(--accent)",
  rejected: "var(--bad)",
  active: "var(--ok)",
  shadow: "var(--accent)",
  superseded: "var(--muted)",
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span className="tag" style={{ color: COLORS[status] ?? "var(--muted)", borderColor: COLORS[status] ?? "var(--border)" }} data-testid="version-status">
      {status.replace("_", " ")}
    </span>
  );
}

/** Gates and regional rules belong to compliance: a change to them needs their approval too. */
export function ComplianceBadge() {
  return (
    <span
      className="tag"
      style={{ color: "var(--warn)", borderColor: "var(--warn)", fontWeight: 600 }}
      title="changes gates or regional rules: needs a compliance approval"
      data-testid="compliance-badge"
    >
      compliance
    </span>
  );
}
