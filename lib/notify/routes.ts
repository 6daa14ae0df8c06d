import { z } from "zod";
import { NOTIFICATION_KINDS, NOTIFICATION_SEVERITIES, type TEventFacts } from "./events";

const list = <T extends z.ZodType>(item: T) => z.array(item).max(100).default([]);
const key = z.string().min(1).max(100);

/** A channel's routing rules: an event goes to the channel when it matches every non-empty list. */
export const ZChannelRoutes = z.strictObject({
  kinds: list(z.enum(NOTIFICATION_KINDS)),
  operations: list(key),
  regions: list(key),
  severities: list(z.enum(NOTIFICATION_SEVERITIES)),
});
export type TChannelRoutes = z.infer<typeof ZChannelRoutes>;

export const NO_ROUTES: TChannelRoutes = { kinds: [], operations: [], regions: [], severities: [] };

/** Stored routes that no longer parse (an edited row) match nothing rather than everything. */
export function parseRoutes(raw: unknown): TChannelRoutes | null {
  const parsed = ZChannelRoutes.safeParse(raw ?? {});
  return parsed.success ? parsed.data : null;
}

/**
 * An event without an operation (or region) matches only channels that do not filter on it:
 * a channel for SEND_SMS alone should not hear about a fleet-wide kill switch's region-less twin.
 * Test sends bypass routing.
 */
export function routeMatches(routes: TChannelRoutes | null, e: Pick<TEventFacts, "kind" | "operation" | "region" | "severity">): boolean {
  if (e.kind === "test") return true;
  if (!routes) return false;
  const hit = (filter: readonly string[], value: string | null) => filter.length === 0 || (value !== null && filter.includes(value));
  return hit(routes.kinds, e.kind) && hit(routes.operations, e.operation) && hit(routes.regions, e.region) && hit(routes.severities, e.severity);
}
