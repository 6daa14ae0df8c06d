/** One line naming where we tried to connect and why it failed, for CLI and server start-up. */
export function describeConnectionError(url: string, err: unknown): string {
  let where = "the database";
  try {
    const u = new URL(url);
    where = `${u.hostname}:${u.port || "5432"}${u.pathname}`;
  } catch {
    where = "DATABASE_URL (not a valid URL)";
  }
  const e = err as { code?: string; message?: string };
  const causes: Record<string, string> = {
    ECONNREFUSED: "connection refused (is PostgreSQL running there?)",
    ENOTFOUND: "host not found",
    ETIMEDOUT: "connection timed out",
    EAI_AGAIN: "host name lookup failed",
    "28P01": "password authentication failed",
    "28000": "authentication rejected",
    "3D000": "database does not exist",
  };
  const known = e.code ? causes[e.code] : undefined;
  // Postgres's own message (e.g. which role was rejected) says more than the code alone.
  const pgDetail = e.code && /^[0-9A-Z]{5}$/.test(e.code) && e.message ? ` (${e.message})` : "";
  const cause = known ? `${known}${pgDetail}` : e.message || String(err);
  return `cannot connect to ${where}: ${cause}`;
}
