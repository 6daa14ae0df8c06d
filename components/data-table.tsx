import type { ReactNode } from "react";

export type TColumn = string | { label: string; title?: string };

/**
 * The console's dense table: a header row, the rows, and one muted row saying why it is empty
 * (every table in the console has an empty state instead of a bare header).
 */
export function DataTable({
  columns,
  empty,
  testId,
  children,
}: {
  columns: readonly TColumn[] | null;
  empty: ReactNode;
  testId?: string;
  children: ReactNode[];
}) {
  return (
    <table className="dense" data-testid={testId}>
      {columns ? (
        <thead>
          <tr>
            {columns.map((c, i) => {
              const col = typeof c === "string" ? { label: c } : c;
              return (
                <th key={i} title={col.title}>
                  {col.label}
                </th>
              );
            })}
          </tr>
        </thead>
      ) : null}
      <tbody>
        {children.length === 0 ? (
          <tr>
            <td colSpan={Math.max(1, columns?.length ?? 1)} className="muted" style={{ whiteSpace: "normal" }}>
              {empty}
            </td>
          </tr>
        ) : (
          children
        )}
      </tbody>
    </table>
  );
}
