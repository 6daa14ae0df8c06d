import type { TPolicyChange } from "@/router-core/index";
import { valueText } from "@/router-core/policy/number-text";
import { ComplianceBadge } from "./status-badge";

const KIND_COLOR = { removed: "var(--bad)", added: "var(--ok)", changed: "var(--warn)" } as const;

/**
 * One side of a change. A list (gates, providers) reads one item per line, so a gate name never
 * wraps mid-word in a narrow column; the items the other side lacks are marked (struck through
 * when removed). Numbers read as written (no 0.9500000000000001).
 */
function Value({ value, other, side }: { value: unknown; other: unknown; side: "before" | "after" }) {
  if (value === undefined) return <span className="muted">–</span>;
  const mark = side === "before" ? "var(--bad)" : "var(--ok)";
  if (!Array.isArray(value)) return <span style={{ color: mark, overflowWrap: "anywhere" }}>{valueText(value)}</span>;
  if (value.length === 0) return <span className="muted">(none)</span>;
  const others = Array.isArray(other) ? other.map(valueText) : [];
  return (
    <ul className="flex flex-col" data-testid={`diff-${side}-items`}>
      {value.map((item, i) => {
        const text = valueText(item);
        const differs = Array.isArray(other) && !others.includes(text);
        return (
          <li
            key={i}
            data-differs={differs || undefined}
            style={{
              whiteSpace: "nowrap",
              color: differs ? mark : "var(--text)",
              fontWeight: differs ? 700 : undefined,
              textDecoration: differs && side === "before" ? "line-through" : undefined,
            }}
          >
            {differs ? (side === "before" ? "− " : "+ ") : "  "}
            {text}
          </li>
        );
      })}
    </ul>
  );
}

/**
 * A structural diff, one row per changed field path, before and after side by side. The field
 * and kind share the first column and the two sides split the rest evenly, so the diff stays
 * readable in the editor's half-width panel. On a phone each row stacks (globals.css, .stack-on-phone):
 * three columns of a 390 px screen cut long gate names off in "This version".
 */
export function DiffTable({ changes, against }: { changes: TPolicyChange[]; against: string }) {
  return (
    <table className="dense stack-on-phone w-full" data-testid="diff-table" style={{ tableLayout: "fixed" }}>
      <colgroup>
        <col style={{ width: "28%" }} />
        <col style={{ width: "36%" }} />
        <col style={{ width: "36%" }} />
      </colgroup>
      <thead>
        <tr>
          <th>Field</th>
          <th>{against}</th>
          <th>This version</th>
        </tr>
      </thead>
      <tbody>
        {changes.length === 0 ? (
          <tr>
            <td colSpan={3} className="muted">
              No change: identical to {against}.
            </td>
          </tr>
        ) : (
          changes.map((c) => (
            <tr key={c.path} data-testid={`diff-${c.path}`} style={{ verticalAlign: "top" }}>
              <td style={{ whiteSpace: "normal" }}>
                <div className="mono" style={{ overflowWrap: "anywhere" }}>
                  {c.path}
                </div>
                <div className="flex flex-wrap items-center gap-1 text-xs">
                  <span style={{ color: KIND_COLOR[c.kind] }}>{c.kind}</span>
                  {c.complianceRelevant ? <ComplianceBadge /> : null}
                </div>
              </td>
              <td className="mono" style={{ whiteSpace: "normal", overflowX: "auto" }} data-label={against}>
                <Value value={c.before} other={c.after} side="before" />
              </td>
              <td className="mono" style={{ whiteSpace: "normal", overflowX: "auto" }} data-label="This version" data-testid="diff-this-version">
                <Value value={c.after} other={c.before} side="after" />
              </td>
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}
