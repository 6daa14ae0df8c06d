/**
 * The secrets namespace: the only places a provider's credential reference may point. An
 * admin edits references in the catalogue, but the server's own configuration (the database
 * URL, the audit key, the admin password, the process environment as a file) is not theirs to
 * send anywhere, so a reference resolves only to
 *   - `env:NAME` where NAME starts with SWITCHYARD_SECRET_ENV_PREFIX (default SWITCHYARD_SECRET_)
 *     or is listed in SWITCHYARD_SECRET_ENV_NAMES (default: the LLM vendors' conventional
 *     OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY), and
 *   - `file:/path` strictly inside SWITCHYARD_SECRETS_DIR (default /run/secrets), written
 *     without `.`/`..` segments (the real path is checked again at every read).
 * Whatever those settings say, the server's own variables are refused (isReservedEnvName), and
 * so are the files they name (SWITCHYARD_AUDIT_KEY_FILE may well live in /run/secrets).
 * No Node imports: the catalogue's write-time checks and the gateway's call-time checks share it.
 */
export type TSecretNamespace = {
  envPrefix: string | null;
  envNames: ReadonlySet<string>;
  dir: string | null;
  /** Declared per reference (SWITCHYARD_CREDENTIAL_HOSTS). */
  hosts: ReadonlyMap<string, readonly string[]>;
  /** Files the server's own configuration names (SWITCHYARD_AUDIT_KEY_FILE, PGPASSFILE…): never a credential, even inside the directory. */
  reservedFiles: ReadonlySet<string>;
  /** SWITCHYARD_PROVIDER_HOSTS, the fallback binding; null when unset. */
  providerHosts: readonly string[] | null;
  /** A setting that could not be read, reported with every refusal. */
  configProblem: string | null;
};

export const DEFAULT_SECRET_ENV_PREFIX = "SWITCHYARD_SECRET_";
export const DEFAULT_SECRET_ENV_NAMES = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"] as const;
export const DEFAULT_SECRETS_DIR = "/run/secrets";

/**
 * The server's own configuration is never a credential: DATABASE_URL and anything naming a
 * database, libpq's PG* variables, and every SWITCHYARD_* variable outside SWITCHYARD_SECRET_.
 */
export function isReservedEnvName(name: string): boolean {
  if (/DATABASE/i.test(name) || /^PG[A-Z_]*$/.test(name)) return true;
  return name.startsWith("SWITCHYARD_") && !name.startsWith("SWITCHYARD_SECRET_");
}

const list = (v: string | undefined) =>
  (v ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/** `ref=host|*.host,ref2=host`: hosts a reference may be sent to. */
function parseHostBindings(raw: string | undefined): { hosts: Map<string, string[]>; problem: string | null } {
  const hosts = new Map<string, string[]>();
  for (const entry of list(raw)) {
    const eq = entry.lastIndexOf("=");
    const ref = entry.slice(0, eq).trim();
    const targets = entry
      .slice(eq + 1)
      .split("|")
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean);
    if (eq <= 0 || targets.length === 0) return { hosts: new Map(), problem: `SWITCHYARD_CREDENTIAL_HOSTS entry "${entry}" is not ref=host|host` };
    hosts.set(ref, targets);
  }
  return { hosts, problem: null };
}

function normaliseDir(raw: string | undefined): { dir: string | null; problem: string | null } {
  const dir = (raw ?? DEFAULT_SECRETS_DIR).trim().replace(/\/+$/, "");
  if (dir === "") return { dir: null, problem: null };
  if (!dir.startsWith("/") || dir.split("/").some((s) => s === "." || s === "..") || /^\/(proc|sys|dev)(\/|$)/.test(dir)) {
    return { dir: null, problem: `SWITCHYARD_SECRETS_DIR ${JSON.stringify(dir)} must be an absolute directory outside /proc, /sys and /dev` };
  }
  return { dir, problem: null };
}

export function secretNamespaceFromEnv(env: Readonly<Record<string, string | undefined>>): TSecretNamespace {
  const prefix = env.SWITCHYARD_SECRET_ENV_PREFIX ?? DEFAULT_SECRET_ENV_PREFIX;
  const prefixOk = /^[A-Z][A-Z0-9_]{2,}_$/.test(prefix);
  const names = env.SWITCHYARD_SECRET_ENV_NAMES === undefined ? [...DEFAULT_SECRET_ENV_NAMES] : list(env.SWITCHYARD_SECRET_ENV_NAMES);
  const { dir, problem: dirProblem } = normaliseDir(env.SWITCHYARD_SECRETS_DIR);
  const { hosts, problem: hostsProblem } = parseHostBindings(env.SWITCHYARD_CREDENTIAL_HOSTS);
  const providerHosts = list(env.SWITCHYARD_PROVIDER_HOSTS).map((h) => h.toLowerCase());
  const prefixProblem = prefixOk ? null : `SWITCHYARD_SECRET_ENV_PREFIX ${JSON.stringify(prefix)} must be upper case, at least 4 characters, ending in _`;
  const reservedFiles = Object.entries(env)
    .filter(([name, value]) => isReservedEnvName(name) && /FILE$/.test(name) && value)
    .map(([, value]) => value!.trim());
  return {
    envPrefix: prefixOk ? prefix : null,
    reservedFiles: new Set(reservedFiles),
    envNames: new Set(names),
    dir,
    hosts,
    providerHosts: providerHosts.length > 0 ? providerHosts : null,
    configProblem: prefixProblem ?? dirProblem ?? hostsProblem,
  };
}

/** Why a reference is outside the namespace, or null when it is inside (its value may still be unset). */
export function credentialRefProblem(ref: string, ns: TSecretNamespace): string | null {
  if (ref.startsWith("env:")) {
    const name = ref.slice(4);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return "env:NAME takes a variable name (letters, digits, _)";
    if (isReservedEnvName(name)) return `${name} is the server's own configuration, never a provider credential`;
    if ((ns.envPrefix && name.startsWith(ns.envPrefix)) || ns.envNames.has(name)) return null;
    const names = [...ns.envNames].join(", ");
    return `${name} is outside the secrets namespace: use a variable starting with ${ns.envPrefix ?? "(no valid prefix configured)"}${names ? ` or one of ${names}` : ""} (SWITCHYARD_SECRET_ENV_PREFIX, SWITCHYARD_SECRET_ENV_NAMES)${ns.configProblem ? `; ${ns.configProblem}` : ""}`;
  }
  if (ref.startsWith("file:")) {
    const file = ref.slice(5);
    if (!ns.dir) return `file references are off: SWITCHYARD_SECRETS_DIR is empty or invalid${ns.configProblem ? ` (${ns.configProblem})` : ""}`;
    if (!file.startsWith("/") || file.includes("\0") || file.includes("//") || file.split("/").some((s) => s === "." || s === "..")) {
      return "file:/path must be an absolute path without . or .. segments";
    }
    if (!file.startsWith(`${ns.dir}/`) || file.length === ns.dir.length + 1)
      return `${file} is outside the secrets directory ${ns.dir} (SWITCHYARD_SECRETS_DIR)`;
    if (ns.reservedFiles.has(file)) return `${file} holds the server's own configuration, never a provider credential`;
    return null;
  }
  return "must be env:NAME or file:/path";
}

/** Exact hosts, or `*.example.com` for its subdomains (not the apex). */
export function hostMatches(host: string, allowed: readonly string[]): boolean {
  return allowed.some((a) => (a.startsWith("*.") ? host.endsWith(a.slice(1)) && host.length > a.length - 1 : host === a));
}
