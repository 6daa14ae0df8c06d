import type { PrismaClient } from "../db";
import type { TApiKeyScope } from "./api-key-scopes";
import { sha256Hex } from "./tokens";
import { processSlot } from "../runtime";

export type TApiKeyPrincipal = {
  kind: "api_key";
  apiKeyId: string;
  name: string;
  prefix: string;
  scopes: TApiKeyScope[];
  /** Empty: every operation. */
  operationKeys: string[];
};

/** 503: the key could not be checked (the database is unreachable and this process never read the key). */
export type TApiKeyVerification = { ok: true; principal: TApiKeyPrincipal } | { ok: false; status: 401 | 403 | 503; reason: string };

/**
 * A key's row is cached for CACHE_TTL_MS (unknown keys too, so a flood of bad keys does not
 * reach the database), so a revocation takes effect on other instances within that time;
 * revoking through this process drops the entry at once.
 *
 * The request path does not wait for the database while a key is in use: a use after
 * REFRESH_AFTER_MS re-reads the row in the background, one read per key however many calls
 * arrive meanwhile, so an expiry does not make every call in flight send the same query.
 *
 * While the database is unreachable the last row read keeps answering (routing must not stop
 * with Postgres, and no revocation can be read then anyway); a key never read is refused with
 * 503 until it is reachable again.
 */
export const CACHE_TTL_MS = 10_000;
export const REFRESH_AFTER_MS = CACHE_TTL_MS / 2;
/** After a failed read, the least time before the next one. */
const RETRY_AFTER_FAILURE_MS = 1_000;
const MAX_ENTRIES = 10_000;
/** last_used_at is a "recently used" hint, written at most once a minute per key. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

type TRow = { id: string; name: string; prefix: string; scopes: TApiKeyScope[]; operationKeys: string[]; revokedAt: Date | null };
/** `at`: when `row` was read. `failedAt`: when the last read since then failed (null: none did). */
type TCached = { at: number; row: TRow | null; failedAt: number | null };
type TCacheState = {
  entries: Map<string, TCached>;
  /** Reads in flight by key hash: calls that need the same row share one. */
  reading: Map<string, Promise<TRow | null>>;
  /** Bumped by forgetApiKey: a read started before it does not put back what it dropped. */
  generation: number;
  lastUsedWritten: Map<string, number>;
};

/** One cache per process, shared by server.ts's fast path and Next's bundled copy of this module. */
const cacheState = processSlot<TCacheState>("apiKeyCache", () => ({
  entries: new Map(),
  reading: new Map(),
  generation: 0,
  lastUsedWritten: new Map(),
}));

export function forgetApiKey(keyHash?: string): void {
  cacheState.generation++;
  if (keyHash === undefined) {
    cacheState.entries.clear();
    cacheState.reading.clear();
  } else {
    cacheState.entries.delete(keyHash);
    cacheState.reading.delete(keyHash);
  }
}

/** The database could not be asked about a key this process has never read. */
class ApiKeyLookupUnavailable extends Error {}

function read(prisma: Pick<PrismaClient, "apiKey">, keyHash: string, now: number): Promise<TRow | null> {
  const inFlight = cacheState.reading.get(keyHash);
  if (inFlight) return inFlight;
  const generation = cacheState.generation;
  const current = () => cacheState.generation === generation;
  const p = prisma.apiKey
    .findUnique({ where: { keyHash }, select: { id: true, name: true, prefix: true, scopes: true, operationKeys: true, revokedAt: true } })
    .then(
      (row) => {
        if (current()) {
          if (cacheState.entries.size >= MAX_ENTRIES) cacheState.entries.clear();
          cacheState.entries.set(keyHash, { at: now, row, failedAt: null });
        }
        return row;
      },
      (err: unknown) => {
        const known = cacheState.entries.get(keyHash);
        if (current() && known) known.failedAt = now;
        throw err;
      },
    )
    .finally(() => {
      if (cacheState.reading.get(keyHash) === p) cacheState.reading.delete(keyHash);
    });
  cacheState.reading.set(keyHash, p);
  return p;
}

async function lookup(prisma: Pick<PrismaClient, "apiKey">, keyHash: string, now: number): Promise<TRow | null> {
  const hit = cacheState.entries.get(keyHash);
  if (hit) {
    const age = now - hit.at;
    // Fresh, or the database failed to answer the last read: answer now, and re-read in the
    // background once due (a failed read is not retried more than once a RETRY_AFTER_FAILURE_MS).
    if (age < CACHE_TTL_MS || hit.failedAt !== null) {
      const due = hit.failedAt === null ? age >= REFRESH_AFTER_MS : now - hit.failedAt >= RETRY_AFTER_FAILURE_MS;
      if (due) void read(prisma, keyHash, now).catch(() => {});
      return hit.row;
    }
  }
  try {
    return await read(prisma, keyHash, now);
  } catch (err) {
    if (hit) return hit.row;
    throw new ApiKeyLookupUnavailable(`cannot verify the API key: the database did not answer (${(err as Error).message.split("\n")[0]})`);
  }
}

function touchLastUsed(prisma: Pick<PrismaClient, "apiKey">, id: string, now: number): void {
  const last = cacheState.lastUsedWritten.get(id) ?? 0;
  if (now - last < LAST_USED_WRITE_INTERVAL_MS) return;
  cacheState.lastUsedWritten.set(id, now);
  // Off the request path: a failed hint write must not fail or slow the call it describes.
  void prisma.apiKey.update({ where: { id }, data: { lastUsedAt: new Date(now) } }).catch(() => cacheState.lastUsedWritten.delete(id));
}

/**
 * Checks a presented data-plane key: 401 when missing, unknown or revoked; 403 when it lacks
 * the scope or is restricted to other operations.
 */
export async function verifyApiKey(
  prisma: Pick<PrismaClient, "apiKey">,
  presentedKey: string | null | undefined,
  requiredScope: TApiKeyScope,
  operation?: string,
  now = Date.now(),
): Promise<TApiKeyVerification> {
  if (!presentedKey || !presentedKey.startsWith("sy_")) return { ok: false, status: 401, reason: "missing or malformed API key" };
  let row: TRow | null;
  try {
    row = await lookup(prisma, sha256Hex(presentedKey), now);
  } catch (err) {
    if (err instanceof ApiKeyLookupUnavailable) return { ok: false, status: 503, reason: err.message };
    throw err;
  }
  if (!row) return { ok: false, status: 401, reason: "unknown API key" };
  if (row.revokedAt) return { ok: false, status: 401, reason: `API key ${row.prefix} was revoked` };
  if (!row.scopes.includes(requiredScope)) return { ok: false, status: 403, reason: `API key ${row.prefix} lacks the ${requiredScope} scope` };
  if (operation !== undefined && row.operationKeys.length > 0 && !row.operationKeys.includes(operation)) {
    return { ok: false, status: 403, reason: `API key ${row.prefix} is not allowed for operation ${operation}` };
  }
  touchLastUsed(prisma, row.id, now);
  return {
    ok: true,
    principal: { kind: "api_key", apiKeyId: row.id, name: row.name, prefix: row.prefix, scopes: row.scopes, operationKeys: row.operationKeys },
  };
}
