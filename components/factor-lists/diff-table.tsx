import type { TPolicyChange } from "@/router-core/index";
import { ComplianceBadge } from "./status-badge";

const show = (v: unknown) => (v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v));

/** Lists (gates, providers) read item by item: the items the other side lacks are marked. */
function Value({ value, other, mark }: { value: unknown; other: unknown; mark: string }) {
  if (!Array.isArray(value)) return <>{show(value)}</>;
  const others = Array.isArray(other) ? other.map(show) : [];
  return (
    <>
      [
      {value.map((item, i) => {
        const text = show(item);
        const differs = Array.isArray(other) && !others.includes(text);
        return (
          <span
            key={i}
            style={differs ? { color: mark, fontWeight: 700, textDecoration: mark === "var(--bad)" ? "line-through" : undefined } : { color: "var(--text)" }}
          >
            {i > 0 ? ", " : ""}
            {text}
          </span>
        );
      })}
      ]
    </>
  );
}

/** A structural diff, one row per changed field path, before and after side by side. */
export function DiffTable({ changes, against }: { changes: TPolicyChange[]; against: string }) {
  return (
    <table className="dense" data-testid="diff-table">
      <thead>
        <tr>
          <th>Field</th>
          <th>Change</th>
          <th>{against}</th>
          <th>This version</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {changes.length === 0 ? (
          <tr>
            <td colSpan={5} className="muted">
              No change: identical to {against}.
            </td>
          </tr>
        ) : (
          changes.map((c) => (
            <tr key={c.path} data-testid={`diff-${c.path}`}>
              <td className="mono">{c.path}</td>
              <td style={{ color: c.kind === "removed" ? "var(--bad)" : c.kind === "added" ? "var(--ok)" : "var(--warn)" }}>{c.kind}</td>
              <td className="mono" style={{ whiteSpace: "pre-wrap", wordBreak: "break-word", maxWidth: 420, color: "var(--bad)" }}>
                <Value value={c.before} other={c.after} mark="var(--bad)" />
              </td>
              <td className="mono" style={{ whiteSpace: "pre-wrap", wordBreak: "break-word", maxWidth: 420, color: "var(--ok)" }}>
                <Value value={c.after} other={c.before} mark="var(--ok)" />
              </td>
              <td style={{ width: 1 }}>{c.complianceRelevant ? <ComplianceBadge /> : null}</td>
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}
