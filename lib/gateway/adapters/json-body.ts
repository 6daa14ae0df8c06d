import { malformedBody } from "../classify";

/** Parses an upstream body; a body that is not JSON is a transient failure (the LLM-routing article (docs/references.md): malformed upstream JSON). */
export function parseJsonBody(buf: Buffer, status: number): unknown {
  if (buf.length === 0) return null;
  try {
    return JSON.parse(buf.toString("utf8"));
  } catch (err) {
    throw malformedBody((err as Error).message, status);
  }
}

export function expectObject(value: unknown, what: string, status: number): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw malformedBody(`${what} is not an object`, status);
  return value as Record<string, unknown>;
}

export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, "") + (path.startsWith("/") ? path : `/${path}`);
}
