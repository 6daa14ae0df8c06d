import { trustProxy } from "./client-ip";

/**
 * The origin browsers use to reach the console (SWITCHYARD_PUBLIC_URL, e.g.
 * "https://switchyard.internal.example"), or null when unset. Behind a proxy that rewrites
 * Host, the Host header says nothing about what the browser sees; the configured URL does.
 */
export function publicOrigin(env: NodeJS.ProcessEnv = process.env): string | null {
  const raw = env.SWITCHYARD_PUBLIC_URL?.trim();
  if (!raw) return null;
  try {
    const url = new URL(raw);
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("not http(s)");
    return url.origin;
  } catch {
    throw new RangeError(`SWITCHYARD_PUBLIC_URL must be an http(s) URL, got ${JSON.stringify(raw)}`);
  }
}

/**
 * CSRF defence for cookie-authenticated writes, applied alike to route handlers and server
 * actions (the server checks every write it hands to Next): the browser always sends Origin on
 * cross-origin POST/PUT/PATCH/DELETE and a page cannot forge it, so a write whose Origin is
 * missing or names another origin is refused, as is one whose Sec-Fetch-Site is not
 * "same-origin". SameSite=Lax alone would still let a sibling subdomain post.
 */
export function isSameOrigin(headers: Headers, env: NodeJS.ProcessEnv = process.env): boolean {
  // Browsers that send Fetch Metadata say outright where a request comes from; a sibling
  // subdomain ("same-site") is as foreign here as another site. Clients without it (scripts,
  // older browsers) are judged by Origin alone.
  const site = headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") return false;
  const origin = headers.get("origin");
  if (!origin || origin === "null") return false;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  const configured = publicOrigin(env);
  if (configured) return parsed.origin === configured;
  const host = (trustProxy() && headers.get("x-forwarded-host")) || headers.get("host");
  return Boolean(host) && parsed.host === host;
}

export function isHttps(headers: Headers, url: string): boolean {
  if (publicOrigin()?.startsWith("https://")) return true;
  if (trustProxy() && headers.get("x-forwarded-proto") === "https") return true;
  const origin = headers.get("origin");
  if (origin?.startsWith("https://")) return true;
  return url.startsWith("https://");
}
