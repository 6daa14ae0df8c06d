import { createHash } from "node:crypto";
import { createInsertionOrderedMap } from "../runtime";

/**
 * The last successful answer per (operation, input), kept for the operation's cache_ttl_seconds,
 * for the token-gateway article's "degrade to cache" when no provider is eligible. Only operations that set a TTL
 * are cached (a stale OTP or payment answer would be wrong; a stale summary may be fine). Bounded
 * by entry count, oldest first out (a refreshed entry counts from its refresh).
 */
export function createAnswerCache(maxEntries = 10_000, now: () => number = Date.now) {
  const entries = createInsertionOrderedMap<{ at: number; body: unknown }>();

  const keyOf = (operation: string, input: unknown) => `${operation}\u001f${createHash("sha256").update(JSON.stringify(input)).digest("base64url")}`;

  return {
    put(operation: string, input: unknown, body: unknown): void {
      const k = keyOf(operation, input);
      entries.set(k, { at: now(), body });
      if (entries.size > maxEntries) {
        const oldest = entries.oldest()!;
        entries.delete(oldest.key, oldest.value);
      }
    },
    get(operation: string, input: unknown, ttlSeconds: number): { body: unknown; ageSeconds: number } | null {
      const k = keyOf(operation, input);
      const e = entries.get(k);
      if (!e) return null;
      const age = (now() - e.at) / 1000;
      if (age > ttlSeconds) {
        entries.delete(k, e);
        return null;
      }
      return { body: e.body, ageSeconds: Math.floor(age) };
    },
  };
}

export type AnswerCache = ReturnType<typeof createAnswerCache>;
