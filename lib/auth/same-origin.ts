import { trustProxy } from "./client-ip";

/**
 * CSRF defence for cookie-authenticated writes: the browser always sends Origin on
 * cross-origin POST/PUT/PATCH/DELETE and a page cannot forge it, so a write whose Origin is
 * missing or names another host is refused, as is one whose Sec-Fetch-Site is not
 * "same-origin". SameSite=Lax alone would still let a sibling subdomain post.
 */
export function isSameOrigin(headers: Headers): boolean {
  // Browsers that send Fetch Metadata say outright where a request comes from; a sibling
  // subdomain ("same-site") is as foreign here as another site. Clients without it (scripts,
  // older browsers) are judged by Origin alone.
  const site = headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") return false;
  const origin = headers.get("origin");
  if (!origin || origin === "null") return false;
  const host = (trustProxy() && headers.get("x-forwarded-host")) || headers.get("host");
  if (!host) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

export function isHttps(headers: Headers, url: string): boolean {
  if (trustProxy() && headers.get("x-forwarded-proto") === "https") return true;
  const origin = headers.get("origin");
  if (origin?.startsWith("https://")) return true;
  return url.startsWith("https://");
}
