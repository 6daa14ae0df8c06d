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
  const cause = (e.code && causes[e.code]) || e.message || String(err);
  return `cannot connect to ${where}: ${cause}`;
}
