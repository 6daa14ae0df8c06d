import { existsSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { isDemoMode, isLoopbackHost } from "../auth";
import { credentialRefProblem, hostMatches, secretNamespaceFromEnv, type TSecretNamespace } from "./secret-namespace";

/**
 * Credentials are stored as references, never values: `env:NAME` reads the environment variable
 * at call time (rotation is a restart-free env change in most process managers), `file:/path`
 * reads a mounted secret (Kubernetes, Docker secrets), cached for a few seconds so a call does
 * not read the disk. The value only ever reaches the outgoing request's headers or URL.
 *
 * A reference resolves only inside the secrets namespace (lib/gateway/secret-namespace.ts): the
 * server's own configuration (DATABASE_URL, SWITCHYARD_AUDIT_KEY, /proc/self/environ…) is never
 * a credential, whatever the catalogue says, and a credential is sent only to the hosts it is
 * bound to (credentialHostProblem).
 */
export const CREDENTIAL_REF_PATTERN = /^(env:[A-Za-z_][A-Za-z0-9_]*|file:\/.+)$/;

const FILE_TTL_MS = 10_000;
const fileCache = new Map<string, { value: string | null; readAt: number }>();

export type TCredentialResult = { ok: true; value: string | null } | { ok: false; reason: string };

/**
 * A file reference's real path must stay inside the real secrets directory: the text check at
 * write time cannot see a symlink planted (or replaced) later, so this runs at every read.
 */
function readSecretFile(file: string, ns: TSecretNamespace): string | null {
  if (!ns.dir) return null;
  try {
    const root = realpathSync(ns.dir);
    const real = realpathSync(file);
    if (!real.startsWith(root + path.sep)) return null;
    // A link inside the directory to the audit key file is the audit key file.
    for (const reserved of ns.reservedFiles) if (existsSync(reserved) && realpathSync(reserved) === real) return null;
    return readFileSync(real, "utf8").trim() || null;
  } catch {
    return null;
  }
}

/**
 * The namespace of process.env, kept for a second. Reading it enumerates every variable (to find
 * the server's own *FILE settings), which cost more than the rest of an execute call; the
 * server's settings do not change while it runs, and any other env object is read every time.
 * Credential values themselves are still read at every call.
 */
const PROCESS_ENV_NAMESPACE_TTL_MS = 1_000;
let processEnvNamespace: { ns: TSecretNamespace; readAt: number } | null = null;

function namespaceOf(env: Readonly<Record<string, string | undefined>>, now: number): TSecretNamespace {
  if (env !== process.env) return secretNamespaceFromEnv(env);
  const kept = processEnvNamespace;
  if (kept && now >= kept.readAt && now - kept.readAt < PROCESS_ENV_NAMESPACE_TTL_MS) return kept.ns;
  const ns = secretNamespaceFromEnv(env);
  processEnvNamespace = { ns, readAt: now };
  return ns;
}

export function resolveCredential(
  ref: string | null,
  env: Readonly<Record<string, string | undefined>> = process.env,
  now: number = Date.now(),
): TCredentialResult {
  if (ref === null) return { ok: true, value: null };
  const ns = namespaceOf(env, now);
  const problem = credentialRefProblem(ref, ns);
  if (problem) return { ok: false, reason: `credential ${ref} refused: ${problem}` };
  if (ref.startsWith("env:")) {
    const value = env[ref.slice(4)];
    return value ? { ok: true, value } : { ok: false, reason: `credential ${ref} is not set in the environment` };
  }
  const file = ref.slice(5);
  const cached = fileCache.get(file);
  let value: string | null;
  if (cached && now - cached.readAt < FILE_TTL_MS) value = cached.value;
  else {
    value = readSecretFile(file, ns);
    fileCache.set(file, { value, readAt: now });
  }
  return value ? { ok: true, value } : { ok: false, reason: `credential ${ref} cannot be read` };
}

/**
 * Why a credential may not be sent to `url`, or null when it may. Its hosts are those declared
 * for it in SWITCHYARD_CREDENTIAL_HOSTS, else SWITCHYARD_PROVIDER_HOSTS; with neither, only a
 * loopback mock where one is allowed (demo mode, tests, SWITCHYARD_ALLOW_LOOPBACK_PROVIDERS=1).
 */
export function credentialHostProblem(
  ref: string | null,
  url: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  now: number = Date.now(),
): string | null {
  if (ref === null) return null;
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  } catch {
    return `credential ${ref} is not sent to a URL that cannot be read`;
  }
  const ns = namespaceOf(env, now);
  const declared = ns.hosts.get(ref) ?? ns.providerHosts;
  if (declared) {
    return hostMatches(host, declared) ? null : `credential ${ref} is bound to ${declared.join(", ")}, not ${host}`;
  }
  const loopbackAllowed = isDemoMode() || process.env.NODE_ENV === "test" || process.env.SWITCHYARD_ALLOW_LOOPBACK_PROVIDERS === "1";
  if (loopbackAllowed && isLoopbackHost(host)) return null;
  return `credential ${ref} is bound to no host: declare where it may go in SWITCHYARD_CREDENTIAL_HOSTS (or SWITCHYARD_PROVIDER_HOSTS)`;
}
