import type { AuditEntry } from "../db";

const COLUMNS = ["seq", "at", "actor", "actorId", "action", "targetType", "targetId", "reason", "ip", "before", "after", "prevHash", "hash", "mac"] as const;

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = value instanceof Date ? value.toISOString() : typeof value === "object" ? JSON.stringify(value) : String(value);
  // Quote always and neutralise spreadsheet formulas: the log holds user-written reasons.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** RFC 4180 CSV, one row per entry; before/after as JSON text. */
export function auditToCsv(rows: readonly AuditEntry[]): string {
  const lines = [COLUMNS.join(",")];
  for (const row of rows) lines.push(COLUMNS.map((c) => csvCell(row[c])).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

/** JSON export keeps every field needed to re-verify the chain offline. */
export function auditToJson(rows: readonly AuditEntry[]): string {
  return JSON.stringify(
    rows.map((r) => ({ ...r, at: r.at.toISOString() })),
    null,
    2,
  );
}
