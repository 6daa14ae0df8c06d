/** GET for react-query: the parsed body, or an error naming the URL and status (the query shows it). */
export async function fetchJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { cache: "no-store" });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(`${url}: HTTP ${res.status}${body?.error?.message ? ` (${body.error.message})` : ""}`);
  }
  return (await res.json()) as T;
}
