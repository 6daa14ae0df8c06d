const STATE_COLOR: Record<string, string> = { open: "var(--bad)", recovering: "var(--warn)", resolved: "var(--ok)" };
const SEVERITY_COLOR: Record<string, string> = { critical: "var(--bad)", warning: "var(--warn)", info: "var(--muted)" };

export function StateBadge({ state }: { state: string }) {
  return (
    <span className="font-semibold" style={{ color: STATE_COLOR[state] ?? "var(--text)" }} data-testid="incident-state">
      {state}
    </span>
  );
}

export function SeverityBadge({ severity }: { severity: string }) {
  return (
    <span className="text-xs" style={{ color: SEVERITY_COLOR[severity] ?? "var(--muted)" }}>
      {severity}
    </span>
  );
}

/** "4 min 10 s", "2 h 5 min": how long an incident lasted or has lasted. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}
