import type { TFactorList } from "./schema";

export type TPolicyChange = {
  path: string;
  kind: "added" | "removed" | "changed";
  before?: unknown;
  after?: unknown;
  /** Gates and regional rules are owned by compliance: such a change needs their approval. */
  complianceRelevant: boolean;
};

export type TPolicyDiff = {
  changes: TPolicyChange[];
  gatesChanged: boolean;
  complianceRelevant: boolean;
};

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

const isComplianceRelevant = (path: string) => path === "gates" || path === "regions" || path.startsWith("regions.");

/**
 * Structural diff of two parsed factor lists. Arrays are compared as whole values because their
 * order is meaningful (providers is a priority order) and a reviewer reads them as one setting.
 */
export function diffFactorLists(a: TFactorList, b: TFactorList): TPolicyDiff {
  const changes: TPolicyChange[] = [];
  walk(a, b, "", changes);
  return {
    changes,
    gatesChanged: changes.some((c) => c.path === "gates"),
    complianceRelevant: changes.some((c) => c.complianceRelevant),
  };
}

function walk(a: unknown, b: unknown, path: string, out: TPolicyChange[]) {
  if (isRecord(a) && isRecord(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of [...keys].sort()) {
      const child = path === "" ? key : `${path}.${key}`;
      const inA = a[key] !== undefined;
      const inB = b[key] !== undefined;
      if (inA && !inB) out.push({ path: child, kind: "removed", before: a[key], complianceRelevant: isComplianceRelevant(child) });
      else if (!inA && inB) out.push({ path: child, kind: "added", after: b[key], complianceRelevant: isComplianceRelevant(child) });
      else if (inA && inB) walk(a[key], b[key], child, out);
    }
    return;
  }
  if (!sameValue(a, b)) out.push({ path, kind: "changed", before: a, after: b, complianceRelevant: isComplianceRelevant(path) });
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => sameValue(a[k], b[k]));
  }
  return Object.is(a, b);
}
