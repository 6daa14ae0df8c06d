import type { PrismaClient } from "../db/generated/client";
import type { TApiKeyScope } from "./api-key-scopes";
import { sha256Hex } from "./tokens";

export type TApiKeyPrincipal = {
  kind: "api_key";
  apiKeyId: string;
  name: string;
  prefix: string;
  scopes: TApiKeyScope[];
  /** Empty: every operation. */
  operationKeys: string[];
};

export type TApiKeyVerification = { ok: true; principal: TApiKeyPrincipal } | { ok: false; status: 401 | 403; reason: string };

/**
 * A key's row is cached for CACHE_TTL_MS (unknown keys too, so a flood of bad keys does not
 * reach the database), so a revocation takes effect on other instances within that time;
 * revoking through this process drops the entry at once.
 */
export const CACHE_TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;
/** last_used_at is a "recently used" hint, written at most once a minute per key. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

type TCached = { at: number; row: { id: string; name: string; prefix: string; scopes: TApiKeyScope[]; operationKeys: string[]; revokedAt: Date | null } | null };
type TCacheState = { entries: Map<string, TCached>; lastUsedWritten: Map<string, number> };

/** One cache per process, shared by server.ts's fast path and Next's bundled copy of this module. */
const cacheState: TCacheState = ((globalThis as { __switchyardApiKeyCache?: TCacheState }).__switchyardApiKeyCache ??= {
  entries: new Map(),
  lastUsedWritten: new Map(),
});

export function forgetApiKey(keyHash?: string): void {
  if (keyHash === undefined) cacheState.entries.clear();
  else cacheState.entries.delete(keyHash);
}

async function lookup(prisma: Pick<PrismaClient, "apiKey">, keyHash: string, now: number): Promise<TCached["row"]> {
  const hit = cacheState.entries.get(keyHash);
  if (hit && now - hit.at < CACHE_TTL_MS) return hit.row;
  const row = await prisma.apiKey.findUnique({
    where: { keyHash },
    select: { id: true, name: true, prefix: true, scopes: true, operationKeys: true, revokedAt: true },
  });
  if (cacheState.entries.size >= MAX_ENTRIES) cacheState.entries.clear();
  cacheState.entries.set(keyHash, { at: now, row });
  return row;
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
  const row = await lookup(prisma, sha256Hex(presentedKey), now);
  if (!row) return { ok: false, status: 401, reason: "unknown API key" };
  if (row.revokedAt) return { ok: false, status: 401, reason: `API key ${row.prefix} was revoked` };
  if (!row.scopes.includes(requiredScope)) return { ok: false, status: 403, reason: `API key ${row.prefix} lacks the ${requiredScope} scope` };
  if (operation !== undefined && row.operationKeys.length > 0 && !row.operationKeys.includes(operation)) {
    return { ok: false, status: 403, reason: `API key ${row.prefix} is not allowed for operation ${operation}` };
  }
  touchLastUsed(prisma, row.id, now);
  return { ok: true, principal: { kind: "api_key", apiKeyId: row.id, name: row.name, prefix: row.prefix, scopes: row.scopes, operationKeys: row.operationKeys } };
}
