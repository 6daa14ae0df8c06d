import { randomUUID } from "node:crypto";

/**
 * A UUIDv7 (RFC 9562): 48-bit millisecond timestamp, then random bits. Time-ordered ids keep
 * inserts at the right edge of an index on them (a random UUID touches a random leaf page per
 * insert, and after each checkpoint writes that page whole to the WAL), and a decision's
 * timestamp names the partition the row lives in, so a lookup by id alone can be pruned to one day.
 */
export function uuidV7At(ms: number): string {
  const ts = Math.floor(ms).toString(16).padStart(12, "0").slice(-12);
  const r = randomUUID();
  // r is xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx: keep its variant and random bits, set version 7.
  return `${ts.slice(0, 8)}-${ts.slice(8, 12)}-7${r.slice(15)}`;
}

/** A decision's id: a UUIDv7 of the time it was made. */
export const decisionIdAt = uuidV7At;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

/** The millisecond timestamp of a UUIDv7; null for other versions. */
export function uuidV7Time(id: string): number | null {
  if (!isUuid(id) || id[14] !== "7") return null;
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}
