/** One field an audited change moved: its dotted path and the value before and after (undefined when absent). */
export type TFieldChange = { path: string; before: unknown; after: unknown };

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The most fields listed for one entry; the rest are counted, not shown. */
export const MAX_FIELD_CHANGES = 60;

/**
 * The fields an audit entry's before and after differ in, as `path: old → new`, so a reader sees
 * what changed instead of comparing two JSON documents. Objects are walked key by key; arrays and
 * scalars are compared as whole values, since a list such as certifications or a priority order
 * reads as one setting. A created or deleted target lists every field with one side absent.
 */
export function fieldChanges(before: unknown, after: unknown): { changes: TFieldChange[]; more: number } {
  const out: TFieldChange[] = [];
  walk(before ?? undefined, after ?? undefined, "", out);
  return { changes: out.slice(0, MAX_FIELD_CHANGES), more: Math.max(0, out.length - MAX_FIELD_CHANGES) };
}

function walk(a: unknown, b: unknown, path: string, out: TFieldChange[]): void {
  if (isRecord(a) || isRecord(b)) {
    if (isRecord(a) && isRecord(b)) {
      for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) walk(a[key], b[key], path ? `${path}.${key}` : key, out);
      return;
    }
    // An object on one side only (created, deleted, or replaced by a scalar): list its fields against nothing.
    if (a === undefined || b === undefined) {
      const present = (isRecord(a) ? a : b) as Record<string, unknown>;
      for (const key of Object.keys(present).sort())
        walk(a === undefined ? undefined : present[key], b === undefined ? undefined : present[key], path ? `${path}.${key}` : key, out);
      return;
    }
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ path: path || "(value)", before: a, after: b });
}
