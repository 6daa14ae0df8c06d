import { randomUUID } from "node:crypto";

/** A UUIDv7 (RFC 9562) of `ms`: Switchyard stores a decision at its id's time. */
export function uuidV7At(ms: number): string {
  const ts = Math.floor(ms).toString(16).padStart(12, "0").slice(-12);
  const r = randomUUID();
  return `${ts.slice(0, 8)}-${ts.slice(8, 12)}-7${r.slice(15)}`;
}

export { randomUUID };
