/**
 * Secrets belong in the secrets namespace, reached through the provider's credentialRef, never in
 * an adapter's headers: the catalogue is read by every viewer, exported in bundles and kept in
 * the audit log. A header that carries authentication must be a template around
 * `{{credential}}` (optionally after a scheme word: `Bearer {{credential}}`); other headers may
 * not hold a value shaped like a known key format. No Node imports: the zod schemas use it.
 */
const AUTH_HEADER = /^(authorization|proxy-authorization|cookie|api-?key|apikey)$|token|secret|api[-_]?key|password|passwd|auth|signature|session/i;
const SCHEME_ONLY = /^\s*([A-Za-z][A-Za-z0-9-]{0,20})?\s*$/;
const KNOWN_KEY_SHAPES =
  /\b(sk|pk|rk)[-_](live|test|proj|ant)?[-_]?[A-Za-z0-9]{16,}|\bxox[abpr]-[A-Za-z0-9-]{10,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{30,}/;

export const REDACTED = "[redacted]";

/** Why this header value may not be stored, or null when it may. */
export function headerSecretProblem(name: string, value: string): string | null {
  if (AUTH_HEADER.test(name)) {
    if (!value.includes("{{credential}}") || !SCHEME_ONLY.test(value.split("{{credential}}").join(""))) {
      return `${name} carries authentication: write it as a template such as "Bearer {{credential}}" and put the secret behind the provider's credentialRef, never in the header`;
    }
    return null;
  }
  if (KNOWN_KEY_SHAPES.test(value)) return `${name} holds what looks like a secret key: use {{credential}} and the provider's credentialRef`;
  return null;
}

/** http_json's options.headers, when present and shaped as a string map. */
function headersOf(options: Record<string, unknown>): Record<string, unknown> | null {
  const h = options.headers;
  return h && typeof h === "object" && !Array.isArray(h) ? (h as Record<string, unknown>) : null;
}

export function adapterHeaderProblems(options: Record<string, unknown>): { name: string; message: string }[] {
  const headers = headersOf(options);
  if (!headers) return [];
  return Object.entries(headers).flatMap(([name, value]) => {
    const problem = typeof value === "string" ? headerSecretProblem(name, value) : null;
    return problem ? [{ name, message: problem }] : [];
  });
}

/**
 * Options as they may be shown: a header stored before this rule with a literal secret reads as
 * [redacted] (in the console, the API, bundles and the audit log), never as its value.
 */
export function redactAdapterOptions(options: Record<string, unknown>): Record<string, unknown> {
  const headers = headersOf(options);
  if (!headers || adapterHeaderProblems(options).length === 0) return options;
  const safe = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, typeof value === "string" && headerSecretProblem(name, value) ? REDACTED : value]),
  );
  return { ...options, headers: safe };
}
