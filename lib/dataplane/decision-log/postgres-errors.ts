/** SQLSTATEs meaning "cannot reach or use the server", as opposed to a bad statement. */
export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; severity?: unknown; message?: unknown };
  // Errors the server did not send (refused, reset, timeouts, "Connection terminated") carry no severity.
  if (typeof e?.severity !== "string") return true;
  const code = typeof e.code === "string" ? e.code : "";
  if (code.startsWith("08") || code.startsWith("57P") || code === "53300") return true;
  return code === "55000" && /accepting connections/.test(String(e.message));
}

/** A row's day has no partition (check_violation from the partitioned table). */
export const NO_PARTITION = "23514";
