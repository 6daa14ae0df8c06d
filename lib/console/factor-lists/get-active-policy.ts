import "server-only";
import { getPrisma } from "@/lib/db";

export type TActivePolicyInfo = {
  version: string | null;
  windowMinutes: number;
  minSampleSize: number;
  /** The factor list's provider order; empty when it names none (the whole catalogue serves). */
  providers: string[];
};

/** Fallbacks when an operation has no parseable active policy: Listing 1's values. */
const DEFAULT_WINDOW_MINUTES = 5;
const DEFAULT_MIN_SAMPLE_SIZE = 200;

/** The active version label ("v3", as the data plane writes it into decisions) and its metric window. */
export async function getActivePolicy(operation: string): Promise<TActivePolicyInfo> {
  const prisma = getPrisma();
  const pointer = await prisma.operationPolicy.findUnique({ where: { operationKey: operation } });
  const active = pointer?.activeVersionId ? await prisma.factorListVersion.findUnique({ where: { id: pointer.activeVersionId } }) : null;
  const doc = (active?.document ?? {}) as { metric_window_minutes?: unknown; min_sample_size?: unknown; providers?: unknown };
  return {
    version: active ? `v${active.version}` : null,
    windowMinutes: typeof doc.metric_window_minutes === "number" ? doc.metric_window_minutes : DEFAULT_WINDOW_MINUTES,
    minSampleSize: typeof doc.min_sample_size === "number" ? doc.min_sample_size : DEFAULT_MIN_SAMPLE_SIZE,
    providers: Array.isArray(doc.providers) ? doc.providers.filter((p): p is string => typeof p === "string") : [],
  };
}
