import { readFileSync } from "node:fs";

/**
 * Credentials are stored as references, never values: `env:NAME` reads the environment variable
 * at call time (rotation is a restart-free env change in most process managers), `file:/path`
 * reads a mounted secret (Kubernetes, Docker secrets), cached for a few seconds so a call does
 * not read the disk. The value only ever reaches the outgoing request's headers or URL.
 */
export const CREDENTIAL_REF_PATTERN = /^(env:[A-Za-z_][A-Za-z0-9_]*|file:\/.+)$/;

const FILE_TTL_MS = 10_000;
const fileCache = new Map<string, { value: string | null; readAt: number }>();

export type TCredentialResult = { ok: true; value: string | null } | { ok: false; reason: string };

export function resolveCredential(
  ref: string | null,
  env: Readonly<Record<string, string | undefined>> = process.env,
  now: number = Date.now(),
): TCredentialResult {
  if (ref === null) return { ok: true, value: null };
  if (ref.startsWith("env:")) {
    const name = ref.slice(4);
    const value = env[name];
    return value ? { ok: true, value } : { ok: false, reason: `credential ${ref} is not set in the environment` };
  }
  if (ref.startsWith("file:")) {
    const path = ref.slice(5);
    const cached = fileCache.get(path);
    let value: string | null;
    if (cached && now - cached.readAt < FILE_TTL_MS) value = cached.value;
    else {
      try {
        value = readFileSync(path, "utf8").trim() || null;
      } catch {
        value = null;
      }
      fileCache.set(path, { value, readAt: now });
    }
    return value ? { ok: true, value } : { ok: false, reason: `credential ${ref} cannot be read` };
  }
  return { ok: false, reason: `credential reference must be env:NAME or file:/path, got a value of another form` };
}
