/**
 * Calls one of governance's control-plane endpoints from the browser. fetch from the page sends
 * the Origin header and the session cookie, which is what those handlers require; their refusals
 * (401/403/409/422 with field errors) come back as values for the form to show inline.
 */
export type TControlError = { status: number; code: string; message: string; fields: { path: string; message: string }[] };
export type TControlResult<T> = { ok: true; value: T } | { ok: false; error: TControlError };

export async function controlRequest<T = unknown>(url: string, method: "POST" | "PATCH" | "PUT", body?: unknown): Promise<TControlResult<T>> {
  let res: Response;
  try {
    res = await fetch(url, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}), cache: "no-store" });
  } catch (err) {
    return { ok: false, error: { status: 0, code: "network", message: err instanceof Error ? err.message : "the request failed", fields: [] } };
  }
  const json = (await res.json().catch(() => null)) as { error?: Partial<TControlError> } | null;
  if (res.ok) return { ok: true, value: json as T };
  const e = json?.error;
  return {
    ok: false,
    error: { status: res.status, code: e?.code ?? `http_${res.status}`, message: e?.message ?? `HTTP ${res.status}`, fields: e?.fields ?? [] },
  };
}
