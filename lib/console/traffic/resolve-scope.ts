import "server-only";
import type { TScope } from "../types";

/** The (operation, region) a page shows: the requested one when it exists, else the first. */
export function resolveScope(scope: TScope, operation: string | undefined, region: string | undefined): { operation: string; region: string } | null {
  const op = scope.operations.find((o) => o.key === operation) ?? scope.operations[0];
  if (!op) return null;
  const r = region && op.regions.includes(region) ? region : op.regions[0];
  return r ? { operation: op.key, region: r } : null;
}
